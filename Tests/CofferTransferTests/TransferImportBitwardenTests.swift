import Foundation
import Testing
@testable import CofferTransfer
import CofferTestSupport

@Suite("Transfer: import Bitwarden JSON")
struct TransferImportBitwardenTests {
    @Test("the fixture: logins, a secure note, a card, folders, fields, TOTP, history, trash")
    func fixture() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("bitwarden.json"), format: .bitwardenJSON)
            #expect(report.imported == 4, "\(report)")
            #expect(report.skipped.map(\.label) == ["Old forum"])
            #expect(report.skipped.first?.reason == "in Bitwarden's trash")
            #expect(report.unreadable.count == 1)
            #expect(report.unreadable.first?.reason == "unknown Bitwarden item type 9")
            #expect(report.unreadable.first?.location.hasPrefix("line ") == true)

            let (github, secrets) = try itemLabelled("GitHub", in: vault)
            #expect(github.kind == .internetPassword)
            #expect(github.server == "github.com" && github.protocol == "https" && github.path == "/login" && github.port == nil)
            #expect(github.account == "octocat")
            #expect(github.urls == ["https://github.com/login", "https://gist.github.com"])
            #expect(github.tags == ["Work"])
            #expect(github.isFavorite)
            #expect(github.created == utc("2024-01-02T03:04:05.000Z") && github.modified == utc("2024-05-06T07:08:09.123Z"))
            #expect(github.fields == [CustomField(name: "Customer number", value: "12-345"),
                                      CustomField(name: "Has hardware key", value: "true"),
                                      CustomField(name: "Login name", value: "linked to username")])
            #expect(secrets.password?.testString == "hunter2-é€🔑")
            #expect(secrets.notes?.testString == "Recovery codes are in the safe.\nSecond line: \"quoted\" \\ backslash")
            #expect(secrets.testFields == ["otp": "otpauth://totp/GitHub:octocat?secret=JBSWY3DPEHPK3PXP&issuer=GitHub", "PIN": "4321"])
            #expect(secrets.passwordHistory.map { $0.password.testString } == ["old-github", "older-github"])
            #expect(secrets.passwordHistory.map(\.replaced) == [utc("2024-04-01T10:00:00Z"), utc("2024-03-01T10:00:00Z")])

            // No URI: a generic password named by the item; a bare TOTP secret becomes a URI.
            let (bank, bankSecrets) = try itemLabelled("Bank app", in: vault)
            #expect(bank.kind == .genericPassword && bank.service == "Bank app" && bank.account == "bob")
            #expect(bank.tags == ["Personal/Finance"])
            #expect(bankSecrets.field(named: "otp")?.testString
                    == "otpauth://totp/Bank%20app:bob?secret=JBSWY3DPEHPK3PXP&issuer=Bank%20app&algorithm=SHA1&digits=6&period=30")

            let (note, noteSecrets) = try itemLabelled("Wi-Fi", in: vault)
            #expect(note.kind == .secureNote && noteSecrets.notes?.testString == "SSID: home\nkey: abc")

            let (card, cardSecrets) = try itemLabelled("Visa", in: vault)
            #expect(card.kind == .secureNote)
            #expect(Set(card.fields.map(\.name)) == ["cardholderName", "brand", "expMonth", "expYear"])
            #expect(cardSecrets.testFields == ["number": "4111111111111111", "code": "123"])
        }
    }

    @Test("an encrypted export is refused with advice")
    func encrypted() throws {
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.unsupportedImport) {
                try importText(#"{"encrypted": true, "encKeyValidation_DO_NOT_EDIT": "2.x", "items": []}"#, format: .bitwardenJSON, into: vault)
            }
        }
    }

    @Test("malformed JSON names the line and imports nothing, even after good items")
    func malformed() throws {
        let text = """
            {"encrypted": false, "items": [
              {"type": 1, "name": "one", "login": {"username": "a", "password": "p1"}},
              {"type": 1, "name": "two", "login": {"username": "b", "password": "p2"}},
              {"type": 1, "name": "three", "login": {"username": "c", "password": p3}}
            ]}
            """
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText(text, format: .bitwardenJSON, into: vault)
            }
            #expect(try vault.items().isEmpty)
        }
    }

    @Test("a bad date halfway through imports nothing: one transaction")
    func failsHalfway() throws {
        let text = """
            {"encrypted": false, "items": [
              {"type": 1, "name": "one", "login": {"username": "a", "password": "p1"}},
              {"type": 1, "name": "two", "revisionDate": "yesterday", "login": {"username": "b", "password": "p2"}}
            ]}
            """
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText(text, format: .bitwardenJSON, into: vault)
            }
            #expect(try vault.items().isEmpty)
            let reopened = try Vault.open(at: vault.path, password: try secure("pw"), options: testOptions)
            #expect(try reopened.items().isEmpty)
        }
    }

    @Test("JSON reader: escapes, surrogates, depth limit, trailing text")
    func jsonReader() throws {
        var text = Array(#"{"a": "x\u00e9\ud83d\udd11\n\"\/", "b": [1, -2.5e3, true, null], "c": {}}"#.utf8)
        try text.withUnsafeMutableBytes { raw in
            let json = JSONReader(UnsafeRawBufferPointer(raw), formatName: "JSON")
            let root = try json.parse()
            #expect(try json.string(root["a"], "a") == "xé🔑\n\"/")
            #expect(try json.secret(root["a"], "a")?.testString == "xé🔑\n\"/")
            #expect(try json.array(root["b"], "b")?.count == 4)
            #expect(try json.integer(json.array(root["b"], "b")?[0], "n") == 1)
        }
        for bad in [String(repeating: "[", count: 100), #"{"a": 1} x"#, #"{"a": "\ud83d"}"#, "{\"a\": \"\u{01}\"}", #"{"a" 1}"#] {
            var bytes = Array(bad.utf8)
            _ = bytes.withUnsafeMutableBytes { raw in
                #expect(throws: CofferError.self, "\(bad)") { try JSONReader(UnsafeRawBufferPointer(raw), formatName: "JSON").parse() }
            }
        }
    }
}

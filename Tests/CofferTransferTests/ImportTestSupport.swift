import Foundation
import Testing
import CofferOTP
@testable import CofferTransfer
import CofferTestSupport

/// The hand-made and tool-made export files in Tests/Fixtures.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> SecureBytes {
        try SecureBytes(copying: [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
    }
}

/// A new vault in a temporary folder.
@discardableResult
func withImportVault<R>(_ body: (Vault) throws -> R) throws -> R {
    try withTemporaryDirectory { dir in
        let vault = try Vault.create(at: dir.appendingPathComponent("import.coffer").path, password: try secure("pw"), options: testOptions)
        return try body(vault)
    }
}

/// The one item with `label`, and its secrets.
func itemLabelled(_ label: String, in vault: Vault, sourceLocation: SourceLocation = #_sourceLocation) throws -> (Item, ItemSecrets) {
    let found = try vault.items(matching: ItemQuery(label: label))
    let item = try #require(found.count == 1 ? found.first : nil, "expected one item labelled \(label), found \(found.count)",
                            sourceLocation: sourceLocation)
    return (item, try vault.secrets(for: item.id))
}

func utc(_ text: String) -> Date {
    TransferDate.parse(text) ?? Date(timeIntervalSince1970: 0)
}

extension ItemSecrets {
    /// Secret fields as name -> text, for comparisons in tests.
    var testFields: [String: String] {
        Dictionary(fields.map { ($0.name, $0.value.testString ?? "<bytes>") }, uniquingKeysWith: { a, _ in a })
    }
}

/// What the KeePassXC test database (Tests/Fixtures/keepassxc-fixture.py) holds, as Coffer
/// should import it. Shared by the fixture tests and the real-peer test.
enum KeePassXCExpectations {
    /// Checks every field. The CSV export carries fewer fields (no attributes, tags or history).
    static func check(_ vault: Vault, report: ImportReport, fromCSV: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(report.imported == 5, "\(report)", sourceLocation: sourceLocation)
        #expect(report.skippedDuplicates.isEmpty, sourceLocation: sourceLocation)
        #expect(report.unreadable.isEmpty, "\(report.unreadable)", sourceLocation: sourceLocation)
        #expect(report.skipped.map(\.label) == ["Trash me"], sourceLocation: sourceLocation)
        #expect(report.skipped.first?.reason.contains("Recycle Bin") == true, sourceLocation: sourceLocation)
        #expect(try vault.items().count == 5, sourceLocation: sourceLocation)
        let created = utc("2024-01-02T03:04:05Z"), modified = utc("2024-02-03T04:05:06Z")

        // Work Mail: internet password from the URL, group path as a tag, history, attributes, OTP.
        let (mail, mailSecrets) = try itemLabelled("Work Mail", in: vault)
        #expect(mail.kind == .internetPassword, sourceLocation: sourceLocation)
        #expect(mail.server == "mail.example.com" && mail.protocol == "https" && mail.port == 8443 && mail.path == "/login",
                sourceLocation: sourceLocation)
        #expect(mail.account == "alice@example.com", sourceLocation: sourceLocation)
        #expect(mail.urls == ["https://mail.example.com:8443/login?x=1"], sourceLocation: sourceLocation)
        #expect(mail.created == created && mail.modified == modified, sourceLocation: sourceLocation)
        #expect(mailSecrets.password?.testString == "third-pass <&> \"quoted\"", sourceLocation: sourceLocation)
        #expect(mailSecrets.notes?.testString == "line one\nline two", sourceLocation: sourceLocation)
        let otp = try #require(try mailSecrets.totp(), sourceLocation: sourceLocation)
        #expect(otp.algorithm == .sha1 && otp.digits == 6 && otp.period == 30, sourceLocation: sourceLocation)
        #expect(try otp.code(at: Date(timeIntervalSince1970: 1_700_000_000)) == "324550", sourceLocation: sourceLocation)
        if fromCSV {
            #expect(mail.tags == ["Work/Email"], sourceLocation: sourceLocation)
            #expect(mail.fields.isEmpty && mailSecrets.fields.count == 1, sourceLocation: sourceLocation)
            #expect(mailSecrets.passwordHistory.isEmpty, sourceLocation: sourceLocation)
        } else {
            #expect(mail.tags == ["important", "mail", "Work/Email"], sourceLocation: sourceLocation)
            #expect(mail.fields == [CustomField(name: "Customer", value: "12-345")], sourceLocation: sourceLocation)
            #expect(mailSecrets.testFields == [
                "otp": "otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&period=30&digits=6&algorithm=SHA1",
                "PIN": "9876",
            ], sourceLocation: sourceLocation)
            #expect(otp.issuer == "Example" && otp.account == "alice@example.com", sourceLocation: sourceLocation)
            #expect(mailSecrets.passwordHistory.map { $0.password.testString } == ["second-pass", "first-pass"], sourceLocation: sourceLocation)
            #expect(mailSecrets.passwordHistory.map(\.replaced) == [modified, utc("2024-01-20T00:00:00Z")], sourceLocation: sourceLocation)
        }

        // Bänk: no URL, so a generic password named by its title.
        let (bank, bankSecrets) = try itemLabelled("Bänk", in: vault)
        #expect(bank.kind == .genericPassword && bank.service == "Bänk" && bank.account == "bob", sourceLocation: sourceLocation)
        #expect(bank.tags == ["Personal"] && bank.urls.isEmpty, sourceLocation: sourceLocation)
        #expect(bankSecrets.password?.testString == "b@nk\"pw,;" && bankSecrets.notes == nil, sourceLocation: sourceLocation)
        #expect(bank.created == created && bank.modified == modified, sourceLocation: sourceLocation)

        // Router: a bare host makes an internet password without a protocol; expiry kept (XML).
        let (router, routerSecrets) = try itemLabelled("Router", in: vault)
        #expect(router.kind == .internetPassword && router.server == "192.168.1.1" && router.protocol == nil, sourceLocation: sourceLocation)
        #expect(router.account == "admin" && router.tags.isEmpty && router.urls == ["192.168.1.1"], sourceLocation: sourceLocation)
        #expect(routerSecrets.password?.testString == "r0uter", sourceLocation: sourceLocation)
        // XML: KeePassXC's Expires/ExpiryTime becomes the item's expiry date, not a custom field.
        #expect(router.fields.isEmpty, sourceLocation: sourceLocation)
        #expect(router.expires == (fromCSV ? nil : TransferDate.parse("2030-05-06T07:08:09.000Z")), sourceLocation: sourceLocation)

        // Wi-Fi note: nothing but a title and notes: a secure note.
        let (note, noteSecrets) = try itemLabelled("Wi-Fi note", in: vault)
        #expect(note.kind == .secureNote && note.account == nil, sourceLocation: sourceLocation)
        #expect(noteSecrets.notes?.testString == "SSID: home\nkey: abc" && noteSecrets.password == nil, sourceLocation: sourceLocation)

        // VPN: SHA-256, 8 digits, 60 s.
        let (vpn, vpnSecrets) = try itemLabelled("VPN", in: vault)
        #expect(vpn.kind == .internetPassword && vpn.server == "vpn.example.com" && vpn.tags == ["Work"], sourceLocation: sourceLocation)
        let vpnOTP = try #require(try vpnSecrets.totp(), sourceLocation: sourceLocation)
        #expect(vpnOTP.algorithm == .sha256 && vpnOTP.digits == 8 && vpnOTP.period == 60, sourceLocation: sourceLocation)
        #expect(try vpnOTP.code(at: Date(timeIntervalSince1970: 1_700_000_000)) == "77076628", sourceLocation: sourceLocation)
    }
}

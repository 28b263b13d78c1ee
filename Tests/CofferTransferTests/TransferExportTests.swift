import Foundation
import Testing
import CofferTransfer
import CofferTestSupport

@Suite("Transfer: export to Coffer JSON and CSV")
struct TransferExportTests {
    /// A vault holding every kind of item and every field, including bytes that are not UTF-8.
    static func fillEveryField(_ vault: Vault) throws {
        var login = ItemAttributes(kind: .internetPassword, label: "Example login", account: "alice", server: "example.com",
                                   protocol: "https", port: 8443, path: "/login", comment: "work account",
                                   urls: ["https://example.com:8443/login", "https://example.com/alt"], tags: ["work", "web/sso"],
                                   isFavorite: true, fields: [CustomField(name: "Customer", value: "12\"34\n")],
                                   created: utc("2021-02-03T04:05:06.789Z"), modified: utc("2022-03-04T05:06:07.008Z"))
        login.fields.append(CustomField(name: "", value: ""))
        login.expires = utc("2031-01-01T00:00:00.500Z")
        try vault.add(login, secrets: ItemSecrets(
            password: try SecureBytes(copying: [0xFF, 0x00, 0x41, 0xC3]),   // not UTF-8
            notes: try secure("notes with \"quotes\", commas,\r\nand é"),
            fields: [SecretField(name: "otp", value: try secure("otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP")),
                     SecretField(name: "PIN", value: try secure("0000")),
                     SecretField(name: "empty", value: try SecureBytes(copying: []))],
            passwordHistory: [PasswordHistoryEntry(password: try secure("old-2"), replaced: utc("2022-01-01T00:00:00.001Z")),
                              PasswordHistoryEntry(password: try secure("old-1"), replaced: utc("2021-06-01T00:00:00Z"))],
            attachments: [Attachment(name: "key.bin", data: try SecureBytes(copying: Array(0...255))),
                          Attachment(name: "empty.txt", data: try SecureBytes(copying: []))]))
        try vault.add(ItemAttributes(kind: .genericPassword, service: "api", account: nil, created: utc("2020-01-01T00:00:00Z")),
                      secrets: ItemSecrets(password: try secure("")))
        // Two notes with the same title: their order must not depend on item ids.
        try vault.add(ItemAttributes(kind: .secureNote, label: "Same title", created: utc("2020-01-01T00:00:00Z")),
                      secrets: ItemSecrets(notes: try secure("second text")))
        try vault.add(ItemAttributes(kind: .secureNote, label: "Same title", created: utc("2020-01-01T00:00:00Z")),
                      secrets: ItemSecrets(notes: try secure("first text")))
    }

    @Test("export → import (coffer-json) → export is byte-identical")
    func jsonRoundTripIsByteIdentical() throws {
        try withImportVault { (source) throws in
            try Self.fillEveryField(source)
            let first = try source.exportItems(format: .json)
            try withImportVault { (copy) throws in
                let report = try copy.importItems(from: first, format: .cofferJSON)
                #expect(report.imported == 4 && report.skippedDuplicates.isEmpty && report.unreadable.isEmpty, "\(report)")
                let second = try copy.exportItems(format: .json)
                #expect(first == second)
                if first != second { Issue.record("first:\n\(first.testString ?? "")\nsecond:\n\(second.testString ?? "")") }
            }
        }
    }

    @Test("every field survives the JSON round trip")
    func jsonRoundTripKeepsEveryField() throws {
        try withImportVault { (source) throws in
            try Self.fillEveryField(source)
            try withImportVault { (copy) throws in
                _ = try copy.importItems(from: try source.exportItems(format: .json), format: .cofferJSON)
                let before = try source.items(), after = try copy.items()
                #expect(before.count == after.count)
                for item in before where item.kind != .secureNote {
                    let twin = try #require(after.first { $0.attributes == item.attributes }, "\(item.attributes)")
                    #expect(try source.secrets(for: item.id) == copy.secrets(for: twin.id))
                }
                let notes = try copy.items(matching: ItemQuery(kind: .secureNote))
                #expect(Set(try notes.map { try copy.secrets(for: $0.id).notes?.testString }) == ["first text", "second text"])
            }
        }
    }

    @Test("the JSON layout is the documented one")
    func jsonLayout() throws {
        try withImportVault { (vault) throws in
            try Self.fillEveryField(vault)
            let export = try vault.exportItems(format: .json)
            let text = try #require(export.testString)
            #expect(text.hasPrefix("{\n  \"format\": \"coffer-export\",\n  \"version\": 1,\n  \"items\": [\n    {\n      \"kind\": "))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let items = try #require(object["items"] as? [[String: Any]])
            #expect(items.count == 4)
            let keys = ["kind", "label", "service", "account", "server", "protocol", "port", "path", "comment", "urls", "tags",
                        "favorite", "fields", "created", "modified", "expires", "password", "notes", "secretFields", "passwordHistory", "attachments"]
            for item in items { #expect(Set(item.keys) == Set(keys)) }
            let login = try #require(items.first { $0["label"] as? String == "Example login" })
            #expect((login["password"] as? [String: Any])?["base64"] as? String == "/wBBww==")
            #expect(login["created"] as? String == "2021-02-03T04:05:06.789Z")
            #expect(login["port"] as? Int == 8443)
            #expect((login["attachments"] as? [[String: Any]])?.first?["data"] as? String == Data(Array(0...255)).base64EncodedString())
            #expect(items.filter { $0["label"] as? String == "Same title" }.compactMap { $0["notes"] as? String } == ["first text", "second text"])
            // Importing into the same vault adds nothing: every item is a duplicate.
            let again = try vault.importItems(from: export, format: .cofferJSON)
            #expect(again.imported == 0 && again.skippedDuplicates.count == 4)
        }
    }

    @Test("coffer-json refuses other files and versions")
    func refusesOtherJSON() throws {
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.self) { try importText(#"{"items": []}"#, format: .cofferJSON, into: vault) }
            #expect(throws: CofferError.malformedImport) {
                try importText(#"{"format": "coffer-export", "version": 2, "items": []}"#, format: .cofferJSON, into: vault)
            }
            let empty = try importText(#"{"format": "coffer-export", "version": 1, "items": []}"#, format: .cofferJSON, into: vault)
            #expect(empty.imported == 0)
            #expect(try vault.exportItems(format: .json).testString == "{\n  \"format\": \"coffer-export\",\n  \"version\": 1,\n  \"items\": []\n}\n")
        }
    }

    @Test("CSV export: quoted cells, CRLF, the documented columns; the csv import reads it back")
    func csv() throws {
        try withImportVault { (vault) throws in
            try Self.fillEveryField(vault)
            let export = try vault.exportItems(format: .csv)
            let bytes = export.withUnsafeBytes { Array($0) }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasPrefix("\"name\",\"url\",\"username\",\"password\",\"note\",\"otp\",\"tags\",\"kind\",\"service\",\"server\",\"protocol\",\"port\",\"path\",\"comment\",\"favorite\",\"created\",\"modified\"\r\n"))
            #expect(text.contains("\"api\",\"\",\"\",\"\",\"\",\"\",\"\",\"generic-password\",\"api\","))
            #expect(text.contains("\"notes with \"\"quotes\"\", commas,\r\nand é\""))
            try withImportVault { (copy) throws in
                let report = try copy.importItems(from: export, format: .browserCSV)
                #expect(report.imported == 4, "\(report)")
                #expect(report.recognisedColumns?.allSatisfy { $0.field != "ignored" && !$0.field.hasPrefix("secret-field") } == true)
                let (login, secrets) = try itemLabelled("Example login", in: copy)
                #expect(login.kind == .internetPassword && login.server == "example.com" && login.port == 8443 && login.path == "/login")
                #expect(login.protocol == "https" && login.account == "alice" && login.comment == "work account" && login.isFavorite)
                #expect(login.tags == ["work", "web/sso"] && login.urls == ["https://example.com:8443/login"])
                #expect(login.created == utc("2021-02-03T04:05:06.789Z") && login.modified == utc("2022-03-04T05:06:07.008Z"))
                #expect(secrets.password?.withUnsafeBytes { Array($0) } == [0xFF, 0x00, 0x41, 0xC3])
                #expect(secrets.field(named: "otp")?.testString == "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP")
                let api = try #require(try copy.firstItem(matching: ItemQuery(service: "api")))
                #expect(api.kind == .genericPassword && api.label == "api")
            }
        }
    }

    @Test("exportItems(toFile:) writes mode 0600 and never overwrites")
    func toFile() throws {
        try withImportVault { (vault) throws in
            try Self.fillEveryField(vault)
            let path = URL(fileURLWithPath: vault.path).deletingLastPathComponent().appendingPathComponent("out.json").path
            try vault.exportItems(format: .json, toFile: path)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(throws: CofferError.fileExists(path)) { try vault.exportItems(format: .csv, toFile: path) }
            let report = try vault.importItems(fromFile: path, format: .cofferJSON, dryRun: true)
            #expect(report.skippedDuplicates.count == 4)
        }
    }
}

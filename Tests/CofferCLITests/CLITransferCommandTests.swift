import Coffer
import Foundation
import Testing

/// `coffer import`, `coffer export` and `coffer totp`, driven as a script would.
@Suite("coffer import, export, totp")
struct CLITransferCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    @Test("import without --format tells the format from the file and names it; a file it cannot tell is exit 64 (issue 28, finding 11)")
    func importRecognisesFormat() throws {
        try withVault { dir in
            for (name, format) in [("keepassxc.xml", "keepassxc-xml"), ("bitwarden.json", "bitwarden-json"), ("chrome.csv", "csv"),
                                   ("keepassxc.csv", "keepassxc-csv")] {
                let result = try CLI.run(["import", "v.coffer", Self.fixture(name), "--dry-run", "--json"], input: "pw\n", in: dir)
                #expect(result.status == 0, "\(name): \(result.err)")
                #expect(try result.jsonObject()["format"] as? String == format, "\(name)")
                #expect(result.err.contains("(\(format))"), "the summary names the format: \(result.err)")
            }
            let export = try CLI.run(["export", "v.coffer", "--format", "json", "--output", "all.json"], input: "pw\n", in: dir)
            try #require(export.status == 0, "\(export.err)")
            let own = try CLI.run(["import", "v.coffer", "all.json", "--dry-run", "--json"], input: "pw\n", in: dir)
            #expect(try own.jsonObject()["format"] as? String == "coffer-json", "\(own.err)")
            try Data("just words\n".utf8).write(to: dir.appendingPathComponent("notes.txt"))
            let unknown = try CLI.run(["import", "v.coffer", "notes.txt"], input: "pw\n", in: dir)
            #expect(unknown.status == 64, "\(unknown.err)")
            expectOneLineMessage(unknown, containing: "cannot tell the file's format")
        }
    }

    @Test("import csv: the summary on stderr, nothing on stdout; --json prints the report")
    func importCSV() throws {
        try withVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", Self.fixture("chrome.csv")], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.isEmpty)
            #expect(result.err.contains("imported 3 items from"))
            #expect(result.err.contains("1 conflict, items whose password differs"), "line 6 is line 2's login with another password: \(result.err)")
            #expect(result.err.contains("could not read 1:"))
            #expect(result.err.contains("columns: name -> label, url -> urls, username -> account, password -> password, note -> notes"))
            #expect(!result.err.contains("hunter2"))

            let again = try CLI.run(["import", "v.coffer", "--format", "csv", Self.fixture("chrome.csv"), "--json"], input: "pw\n", in: dir)
            #expect(again.status == 0, "duplicates are not an error: \(again.err)")
            let report = try again.jsonObject()
            #expect(Set(report.keys) == ["format", "file", "dryRun", "imported", "skippedDuplicates", "conflicts", "merged", "skipped",
                                         "unreadable", "warnings", "recognisedColumns"])
            #expect(report["format"] as? String == "csv")
            #expect(report["imported"] as? Int == 0)
            #expect((report["skippedDuplicates"] as? [[String: Any]])?.count == 3)
            #expect((report["conflicts"] as? [[String: Any]])?.count == 1)
            #expect((report["skippedDuplicates"] as? [[String: Any]])?.first.map { Set($0.keys) } == ["label", "location", "reason"])
            #expect((report["recognisedColumns"] as? [[String: Any]])?.first?["field"] as? String == "label")
            #expect(!again.out.contains("hunter2"))
        }
    }

    @Test("a malformed file exits 65 naming the line, and imports nothing")
    func malformed() throws {
        try withVault { dir in
            try Data("name,url,username,password\nA,https://a.example,u,p\nB,https://b.example,u,\"p\n".utf8)
                .write(to: dir.appendingPathComponent("bad.csv"))
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", "bad.csv"], input: "pw\n", in: dir)
            #expect(result.status == 65)
            expectOneLineMessage(result, containing: "bad.csv: CSV line 3: a quoted field is never closed; nothing was imported")
            let list = try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir)
            #expect(try list.jsonArray().isEmpty)
        }
    }

    @Test("bad arguments: an unknown format is 64, a missing file is 74 before any prompt")
    func badArguments() throws {
        try withVault { dir in
            let format = try CLI.run(["import", "v.coffer", "--format", "lastpass", "x.csv"], input: "pw\n", in: dir)
            #expect(format.status == 64)
            expectOneLineMessage(format, containing: "--format must be one of keepassxc-xml, keepassxc-csv, bitwarden-json, csv, coffer-json")
            let missing = try CLI.run(["import", "v.coffer", "--format", "csv", "nope.csv"], in: dir)
            #expect(missing.status == 74)
            expectOneLineMessage(missing, containing: "cannot read nope.csv")
            let encrypted = try CLI.run(["import", "v.coffer", "--format", "bitwarden-json", "enc.json"], input: "pw\n", in: dir)
            #expect(encrypted.status == 74)
            try Data(#"{"encrypted": true, "items": []}"#.utf8).write(to: dir.appendingPathComponent("enc.json"))
            let refused = try CLI.run(["import", "v.coffer", "--format", "bitwarden-json", "enc.json"], input: "pw\n", in: dir)
            #expect(refused.status == 64)
            expectOneLineMessage(refused, containing: "encrypted")
        }
    }

    @Test("--dry-run saves nothing")
    func dryRun() throws {
        try withVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "keepassxc-xml", Self.fixture("keepassxc.xml"), "--dry-run"],
                                     input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("would import 5 items"))
            #expect(result.err.contains("Trash me: in KeePassXC's Recycle Bin"))
            #expect(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().isEmpty)
        }
    }

    @Test("export json warns on stderr; export → import → export through the CLI gives the same bytes")
    func exportRoundTrip() throws {
        try withVault { dir in
            _ = try CLI.run(["import", "v.coffer", "--format", "keepassxc-xml", Self.fixture("keepassxc.xml")], input: "pw\n", in: dir)
            let export = try CLI.run(["export", "v.coffer", "--format", "json"], input: "pw\n", in: dir)
            #expect(export.status == 0, "\(export.err)")
            #expect(export.err.contains("warning: the export is plaintext"))
            #expect(export.out.contains("\"password\": \"third-pass <&> \\\"quoted\\\"\""))
            let object = try export.jsonObject()
            #expect((object["items"] as? [Any])?.count == 5)

            try export.stdout.write(to: dir.appendingPathComponent("export.json"))
            let created = try CLI.run(["init", "w.coffer"] + fastKDF, input: "pw2\n", in: dir)
            try #require(created.status == 0)
            let imported = try CLI.run(["import", "w.coffer", "--format", "coffer-json", "export.json"], input: "pw2\n", in: dir)
            #expect(imported.status == 0 && imported.err.contains("imported 5 items"), "\(imported.err)")
            let second = try CLI.run(["export", "w.coffer", "--format", "json"], input: "pw2\n", in: dir)
            #expect(second.stdout == export.stdout)

            let csv = try CLI.run(["export", "v.coffer", "--format", "csv"], input: "pw\n", in: dir)
            #expect(csv.status == 0 && csv.err.contains("plaintext"))
            #expect(csv.out.hasPrefix("\"name\",\"url\",\"username\",\"password\",\"note\",\"otp\""))
        }
    }

    @Test("export --output writes a new 0600 file and never overwrites (73)")
    func exportToFile() throws {
        try withVault { dir in
            let result = try CLI.run(["export", "v.coffer", "--format", "json", "--output", "out.json"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.isEmpty)
            #expect(result.err.contains("plaintext"))
            let path = dir.appendingPathComponent("out.json").path
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
            let again = try CLI.run(["export", "v.coffer", "--format", "csv", "--output", "out.json"], input: "pw\n", in: dir)
            #expect(again.status == 73)
            expectOneLineMessage(again, containing: "the file exists")
        }
    }

    @Test("totp prints the code; --json gives code, secondsRemaining, period, digits, algorithm")
    func totp() throws {
        try withVault { dir in
            _ = try CLI.run(["import", "v.coffer", "--format", "keepassxc-xml", Self.fixture("keepassxc.xml")], input: "pw\n", in: dir)
            let expected = try TOTP(parsing: "otpauth://totp/VPN:alice?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA&algorithm=SHA256&digits=8&period=60")
            let before = Date()
            let result = try CLI.run(["totp", "v.coffer", "--server", "https://vpn.example.com", "--json"], input: "pw\n", in: dir)
            let after = Date()
            #expect(result.status == 0, "\(result.err)")
            let object = try result.jsonObject()
            #expect(Set(object.keys) == ["code", "secondsRemaining", "period", "digits", "algorithm"])
            #expect(object["period"] as? Int == 60 && object["digits"] as? Int == 8 && object["algorithm"] as? String == "SHA256")
            let code = try #require(object["code"] as? String)
            #expect([try expected.code(at: before), try expected.code(at: after)].contains(code))
            let left = try #require(object["secondsRemaining"] as? Int)
            #expect((1...60).contains(left))

            let plain = try CLI.run(["totp", "v.coffer", "--server", "https://mail.example.com:8443/login"], input: "pw\n", in: dir)
            #expect(plain.status == 0)
            #expect(plain.out.count == 7 && plain.out.hasSuffix("\n") && plain.out.dropLast().allSatisfy(\.isNumber), "\(plain.out)")

            let none = try CLI.run(["totp", "v.coffer", "--service", "Bänk"], input: "pw\n", in: dir)
            #expect(none.status == 1)
            expectOneLineMessage(none, containing: "has no one-time password")
        }
    }

    @Test("totp --set reads the secret from stdin, never the command line")
    func totpSet() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "bank", "--account", "alice"], input: "pw\nitem-pw\n", in: dir)
            try #require(added.status == 0, "\(added.err)")
            let bad = try CLI.run(["totp", "v.coffer", "--service", "bank", "--set"], input: "pw\nnot base32!\n", in: dir)
            #expect(bad.status == 64)
            expectOneLineMessage(bad, containing: "nothing was changed")

            let set = try CLI.run(["totp", "v.coffer", "--service", "bank", "--set"], input: "pw\njbsw y3dp ehpk 3pxp\n", in: dir)
            #expect(set.status == 0, "\(set.err)")
            #expect(set.out.isEmpty && !set.err.contains("JBSW"))
            let field = try CLI.run(["get", "v.coffer", "--service", "bank", "--field", "otp"], input: "pw\n", in: dir)
            #expect(field.out == "otpauth://totp/bank:alice?secret=JBSWY3DPEHPK3PXP&issuer=bank&algorithm=SHA1&digits=6&period=30\n")
            let code = try CLI.run(["totp", "v.coffer", "--service", "bank"], input: "pw\n", in: dir)
            #expect(code.status == 0 && code.out.count == 7)
            let conflicting = try CLI.run(["totp", "v.coffer", "--service", "bank", "--set", "--json"], input: "pw\n", in: dir)
            #expect(conflicting.status == 64)
        }
    }
}

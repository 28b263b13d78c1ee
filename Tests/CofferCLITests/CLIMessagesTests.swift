import Coffer
import CofferTestSupport
import Foundation
import Testing

/// Issue 28, finding 13: the messages a week of use found wrong, each with its fix.
@Suite("coffer's messages (issue 28, finding 13)")
struct CLIMessagesTests {
    @Test("A refused add on a rolled-back vault says the rollback once; a merge that heals it says so")
    func rollbackOnceAndHealed() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            try laptop.ok(["init", "v.coffer"] + fastKDF, in: root)
            let older = root.appendingPathComponent("older.coffer"), newer = root.appendingPathComponent("newer.coffer")
            let vault = root.appendingPathComponent("v.coffer")
            try FileManager.default.copyItem(at: vault, to: older)
            try laptop.ok(["add", "v.coffer", "--service", "later"], input: "pw\nx\n", in: root)
            try FileManager.default.copyItem(at: vault, to: newer)
            try FileManager.default.removeItem(at: vault)
            try FileManager.default.copyItem(at: older, to: vault)

            let refused = try laptop.run(["add", "v.coffer", "--service", "b"], input: "pw\ny\n", in: root)
            #expect(refused.status == 76, "\(refused.err)")
            #expect(refused.err.components(separatedBy: "older than a version of the vault seen").count - 1 == 1, "\(refused.err)")
            #expect(refused.err.split(separator: "\n").count == 2 && refused.err.contains("nothing was saved"), "\(refused.err)")

            let healed = try laptop.ok(["merge", "v.coffer", newer.path], in: root)
            #expect(healed.err.contains("the rollback is over: v.coffer"), "\(healed.err)")
            let added = try laptop.ok(["add", "v.coffer", "--service", "b"], input: "pw\ny\n", in: root)
            #expect(!added.err.contains("warning"), "\(added.err)")
        }
    }

    @Test("The weak-password warning has no \". ;\"; init and info say \"1 iteration, 1 lane\"")
    func punctuationAndPlurals() throws {
        try withTemporaryDirectory { dir in
            let made = try CLI.run(["init", "w.coffer", "--kdf-memory", "8", "--kdf-iterations", "1", "--kdf-parallelism", "1"],
                                   input: "password\n", in: dir)
            #expect(made.status == 0, "\(made.err)")
            #expect(made.err.contains("easy to guess: ") && !made.err.contains(".;") && !made.err.contains(". ;"), "\(made.err)")
            #expect(made.err.contains("(Argon2id: 8 MiB, 1 iteration, 1 lane)"), "\(made.err)")
            let info = try CLI.run(["info", "w.coffer"], input: "", in: dir)
            #expect(info.out.contains("1 iteration, 1 lane)"), "\(info.out)")
            let more = try CLI.run(["init", "m.coffer", "--kdf-memory", "16", "--kdf-iterations", "2", "--kdf-parallelism", "2"],
                                   input: "a much longer passphrase here\n", in: dir)
            #expect(more.err.contains("2 iterations, 2 lanes)"), "\(more.err)")
        }
    }

    @Test("list on an empty vault says so (exit 0); --kind note is accepted; --for 25h names the 24-hour maximum")
    func emptyListKindAndDuration() throws {
        try withVault { dir in
            let empty = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(empty.status == 0 && empty.out.isEmpty, "\(empty.err)")
            expectOneLineMessage(empty, containing: "v.coffer holds no items yet")
            #expect(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).out == "[]\n")

            let note = try CLI.run(["note", "v.coffer", "--title", "Plans"], input: "pw\ntext\n", in: dir)
            try #require(note.status == 0, "\(note.err)")
            _ = try CLI.run(["add", "v.coffer", "--service", "s"], input: "pw\nx\n", in: dir)
            for kind in ["note", "Secure-Note"] {
                let notes = try CLI.run(["list", "v.coffer", "--kind", kind, "--json"], input: "pw\n", in: dir)
                #expect(notes.status == 0, "\(kind): \(notes.err)")
                #expect(try notes.jsonArray().compactMap { $0["label"] as? String } == ["Plans"])
            }
            let long = try CLI.run(["unlock", "v.coffer", "--for", "25h"], input: "pw\n", in: dir)
            #expect(long.status == 64)
            expectOneLineMessage(long, containing: "1 second to 24 hours")
        }
    }

    @Test("Bitwarden identity: city and country are plain fields, the SSN and passport number secret")
    func bitwardenIdentity() throws {
        try withVault { dir in
            let export = """
                {"encrypted": false, "items": [{"type": 4, "name": "Me", "identity": {"firstName": "Ann", "city": "Lyon",
                 "country": "FR", "ssn": "123-45-6789", "passportNumber": "X1234567", "phone": "+33 1 23"}}]}
                """
            try export.write(to: dir.appendingPathComponent("bw.json"), atomically: true, encoding: .utf8)
            let imported = try CLI.run(["import", "v.coffer", "--format", "bitwarden-json", "bw.json"], input: "pw\n", in: dir)
            try #require(imported.status == 0, "\(imported.err)")
            let item = try #require(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().first)
            let fields = (item["fields"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(Set(fields) == ["firstName", "city", "country", "phone"], "\(fields)")
            let found = try CLI.run(["search", "v.coffer", "Lyon", "--json"], input: "pw\n", in: dir)
            #expect(found.status == 0, "a plain field is searchable: \(found.err)")
            let ssn = try CLI.run(["get", "v.coffer", "Me", "--field", "ssn"], input: "pw\n", in: dir)
            #expect(ssn.out == "123-45-6789\n", "\(ssn.err)")
        }
    }

    @Test("audit leaves out an app's keychain values: they are not passwords a person chose")
    func auditSkipsKeychain() throws {
        try withVault { dir in
            let vault = try Vault.open(at: dir.appendingPathComponent("v.coffer"), password: secure("pw"), options: testOptions)
            try vault.keychain(service: "com.example.app").set("dark", key: "theme")
            _ = try CLI.run(["add", "v.coffer", "--service", "site"], input: "pw\nhunter2\n", in: dir)
            let report = try CLI.run(["audit", "v.coffer", "--json"], input: "pw\n", in: dir).jsonObject()
            #expect(report["checked"] as? Int == 1)
            #expect(CLIAuditTests.services(report["weak"]) == ["site"])
        }
    }
}

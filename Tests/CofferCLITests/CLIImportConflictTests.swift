import CofferTestSupport
import Foundation
import Testing

/// Issue 20, finding 7: import skipped an existing login even when its password differed,
/// with no hint. Now such an item is a conflict: reported (count and names, no secrets) and
/// settled by `--on-conflict skip|keep-both|update` (the policy is CofferTransfer's).
@Suite("coffer import --on-conflict")
struct CLIImportConflictTests {
    static let header = "name,url,username,password,note\n"

    /// A vault holding two logins imported from a CSV; `newer.csv` has one of them with
    /// another password and the other unchanged.
    static func withImportedVault(_ body: (URL) throws -> Void) throws {
        try withVault { dir in
            try (header + "Example,https://example.com/,alice,old-pass-1,\nOther,https://other.example/,bob,same-pass,\n")
                .write(to: dir.appendingPathComponent("first.csv"), atomically: true, encoding: .utf8)
            try (header + "Example,https://example.com/,alice,new-pass-2,\nOther,https://other.example/,bob,same-pass,\n")
                .write(to: dir.appendingPathComponent("newer.csv"), atomically: true, encoding: .utf8)
            let first = try CLI.run(["import", "v.coffer", "--format", "csv", "first.csv"], input: "pw\n", in: dir)
            try #require(first.status == 0, "\(first.err)")
            try body(dir)
        }
    }

    static func password(in dir: URL) throws -> String {
        try CLI.run(["get", "v.coffer", "--server", "https://example.com/", "--account", "alice"], input: "pw\n", in: dir).out
    }

    static func history(in dir: URL) throws -> [String] {
        let result = try CLI.run(["history", "v.coffer", "--server", "https://example.com/", "--account", "alice",
                                  "--show-passwords", "--json"], input: "pw\n", in: dir)
        let entries = try result.jsonObject()["passwordHistory"] as? [[String: Any]] ?? []
        return entries.compactMap { $0["password"] as? String }
    }

    @Test("The default (skip) reports the conflict by count and name, never a password, and changes nothing")
    func skipReports() throws {
        try Self.withImportedVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--json"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("1 conflict, items whose password differs from the imported one"), "\(result.err)")
            #expect(result.err.contains("line 2: Example"), "\(result.err)")
            #expect(result.err.contains("skipped 1 duplicate:"), "the unchanged login is a plain duplicate: \(result.err)")
            for secret in ["old-pass-1", "new-pass-2", "same-pass"] {
                #expect(!result.err.contains(secret) && !result.out.contains(secret))
            }
            let conflicts = try result.jsonObject()["conflicts"] as? [[String: Any]]
            #expect(conflicts?.count == 1)
            #expect(conflicts?.first?["label"] as? String == "Example")
            #expect(conflicts?.first?["resolution"] as? String == "skip")
            #expect(try Self.password(in: dir) == "old-pass-1\n")
            #expect(try Self.history(in: dir).isEmpty)
        }
    }

    @Test("update: the imported password becomes current and the old one goes to the history")
    func update() throws {
        try Self.withImportedVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--on-conflict", "update"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("1 conflict"), "\(result.err)")
            #expect(result.err.contains("updated"), "\(result.err)")
            #expect(try Self.password(in: dir) == "new-pass-2\n")
            #expect(try Self.history(in: dir) == ["old-pass-1"])
            // Importing the same file again finds nothing new: no conflict.
            let again = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--on-conflict", "update", "--json"],
                                    input: "pw\n", in: dir)
            #expect((try again.jsonObject()["conflicts"] as? [[String: Any]])?.isEmpty == true, "\(again.err)")
        }
    }

    @Test("keep-both: the current password stays and the imported one goes first in the item's history")
    func keepBoth() throws {
        try Self.withImportedVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--on-conflict", "keep-both"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("1 conflict"), "\(result.err)")
            #expect(try Self.password(in: dir) == "old-pass-1\n")
            #expect(try Self.history(in: dir) == ["new-pass-2"])
            let again = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--on-conflict", "keep-both", "--json"],
                                    input: "pw\n", in: dir)
            #expect((try again.jsonObject()["conflicts"] as? [[String: Any]])?.isEmpty == true, "\(again.err)")
            #expect(try Self.history(in: dir) == ["new-pass-2"])
        }
    }

    @Test("An unknown --on-conflict is a usage error (exit 64)")
    func unknownPolicy() throws {
        try Self.withImportedVault { dir in
            let result = try CLI.run(["import", "v.coffer", "--format", "csv", "newer.csv", "--on-conflict", "merge"], input: "pw\n", in: dir)
            #expect(result.status == 64)
        }
    }
}

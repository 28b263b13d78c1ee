import CofferTestSupport
import Foundation
import Testing

/// Issue 20, finding 10: there was no health report. `coffer audit` reports weak passwords
/// (the strength estimator), reused ones (grouped) and old ones, never printing a password.
@Suite("coffer audit")
struct CLIAuditTests {
    static let shared = "Qv7#mLp2-Zx9!wRt4-Kb3$"
    static let unique = "Hn4&tYc8-Wd2%pLs6-Jm5@"

    static func item(_ service: String, _ password: String, created: String) -> String {
        """
        {"kind": "generic-password", "label": null, "service": "\(service)", "account": null, "server": null,
         "protocol": null, "port": null, "path": null, "comment": null, "urls": [], "tags": [], "favorite": false,
         "fields": [], "created": "\(created)", "modified": "\(created)", "password": "\(password)", "notes": null,
         "secretFields": [], "passwordHistory": [], "attachments": []}
        """
    }

    /// A vault with one weak password, two items sharing one, and one set in 2020; the
    /// others are dated 2099, so only that one is old whenever the test runs.
    static func withAuditedVault(_ body: (URL) throws -> Void) throws {
        try withVault { dir in
            let items = [item("weak-site", "hunter2", created: "2099-01-01T00:00:00.000Z"),
                         item("reuse-a", shared, created: "2099-01-01T00:00:00.000Z"),
                         item("reuse-b", shared, created: "2099-01-01T00:00:00.000Z"),
                         item("old-site", unique, created: "2020-01-01T00:00:00.000Z")]
            try "{\"format\": \"coffer-export\", \"version\": 1, \"items\": [\(items.joined(separator: ","))]}"
                .write(to: dir.appendingPathComponent("in.json"), atomically: true, encoding: .utf8)
            let imported = try CLI.run(["import", "v.coffer", "--format", "coffer-json", "in.json"], input: "pw\n", in: dir)
            try #require(imported.status == 0, "\(imported.err)")
            try body(dir)
        }
    }

    static func services(_ list: Any?) -> [String] {
        (list as? [[String: Any]] ?? []).compactMap { ($0["item"] as? [String: Any])?["service"] as? String }
    }

    @Test("weak, reused and old passwords are found; JSON names items, never a password; exit 0 without --fail-on-findings")
    func findings() throws {
        try Self.withAuditedVault { dir in
            let result = try CLI.run(["audit", "v.coffer", "--json"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            let report = try result.jsonObject()
            #expect(report["checked"] as? Int == 4)
            #expect(Self.services(report["weak"]) == ["weak-site"])
            let reused = (report["reused"] as? [[[String: Any]]] ?? []).map { $0.compactMap { $0["service"] as? String } }
            #expect(reused == [["reuse-a", "reuse-b"]])
            #expect(Self.services(report["old"]) == ["old-site"])
            #expect(report["olderThanDays"] as? Int == 365)
            for secret in ["hunter2", Self.shared, Self.unique] {
                #expect(!result.out.contains(secret) && !result.err.contains(secret))
            }
            let text = try CLI.run(["audit", "v.coffer"], input: "pw\n", in: dir)
            #expect(text.status == 0)
            #expect(text.out.contains("weak: 1") && text.out.contains("reused: 1 group") && text.out.contains("older than 365 days: 1"),
                    "\(text.out)")
            #expect(!text.out.contains("hunter2"))
        }
    }

    @Test("--fail-on-findings exits 1 when something is found, 0 when nothing is; --older-than moves the age limit")
    func exitStatus() throws {
        try Self.withAuditedVault { dir in
            let failing = try CLI.run(["audit", "v.coffer", "--fail-on-findings"], input: "pw\n", in: dir)
            #expect(failing.status == 1, "\(failing.err)")
            let older = try CLI.run(["audit", "v.coffer", "--older-than", "36500d", "--json"], input: "pw\n", in: dir)
            #expect(Self.services(try older.jsonObject()["old"]).isEmpty)
            let bad = try CLI.run(["audit", "v.coffer", "--older-than", "soon"], input: "pw\n", in: dir)
            #expect(bad.status == 64)
        }
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "fine"], input: "pw\n\(Self.unique)\n", in: dir).status == 0)
            let clean = try CLI.run(["audit", "v.coffer", "--fail-on-findings"], input: "pw\n", in: dir)
            #expect(clean.status == 0, "\(clean.out)\(clean.err)")
        }
    }
}

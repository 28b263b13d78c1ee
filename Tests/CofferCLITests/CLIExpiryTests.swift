import CofferTestSupport
import Foundation
import Testing

/// Issue 28, finding 7: items had no expiry date (KeePass has them; an import kept
/// KeePassXC's as a custom field). `add`/`edit --expires DATE|never`, `show`, `list --json`,
/// `list --expired` and `audit` (expired, and expiring within 30 days), run as a process.
@Suite("coffer: expiry dates")
struct CLIExpiryTests {
    /// A date `days` from now, as YYYY-MM-DD (UTC).
    static func day(_ days: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
    }

    static func listed(_ arguments: [String], in dir: URL) throws -> [String: String?] {
        let result = try CLI.run(arguments, input: "pw\n", in: dir)
        #expect(result.status == 0, "\(result.err)")
        var out: [String: String?] = [:]
        for item in try result.jsonArray() { out[item["service"] as? String ?? "?"] = item["expires"] as? String }
        return out
    }

    @Test("add --expires sets it (YYYY-MM-DD is midnight UTC, ISO 8601 keeps its zone); show and list --json print it; edit changes and clears it")
    func addShowEdit() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "vpn", "--account", "ada", "--expires", "2031-02-03"],
                                    input: "pw\nitem-pw\n", in: dir)
            #expect(added.status == 0, "\(added.err)")
            #expect(try CLI.run(["add", "v.coffer", "--service", "mail", "--expires", "2031-02-03T10:00:00+02:00"],
                                input: "pw\nitem-pw\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "plain"], input: "pw\nitem-pw\n", in: dir).status == 0)
            #expect(try Self.listed(["list", "v.coffer", "--json"], in: dir)
                    == ["vpn": "2031-02-03T00:00:00.000Z", "mail": "2031-02-03T08:00:00.000Z", "plain": nil])

            let shown = try CLI.run(["show", "v.coffer", "vpn"], input: "pw\n", in: dir)
            #expect(shown.status == 0, "\(shown.err)")
            #expect(shown.out.contains("expires:") && shown.out.contains("2031-02-03T00:00:00.000Z"), "\(shown.out)")
            #expect(!shown.out.contains("(expired)"))
            let plain = try CLI.run(["show", "v.coffer", "plain"], input: "pw\n", in: dir)
            #expect(!plain.out.contains("expires:"), "\(plain.out)")

            #expect(try CLI.run(["edit", "v.coffer", "vpn", "--expires", "2032-01-01"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["edit", "v.coffer", "mail", "--expires", "never"], input: "pw\n", in: dir).status == 0)
            #expect(try Self.listed(["list", "v.coffer", "--json"], in: dir)
                    == ["vpn": "2032-01-01T00:00:00.000Z", "mail": nil, "plain": nil])
        }
    }

    @Test("a date that is not one is a usage error (exit 64) and changes nothing")
    func badDate() throws {
        try withVault { dir in
            for bad in ["tomorrow", "2031-13-01", "31/01/2031", ""] {
                let result = try CLI.run(["add", "v.coffer", "--service", "x", "--expires", bad], input: "pw\nitem-pw\n", in: dir)
                #expect(result.status == 64, "\(bad): \(result.err)")
            }
            #expect(try CLI.run(["add", "v.coffer", "--service", "x"], input: "pw\nitem-pw\n", in: dir).status == 0)
            let edit = try CLI.run(["edit", "v.coffer", "x", "--expires", "soon"], input: "pw\n", in: dir)
            #expect(edit.status == 64, "\(edit.err)")
            #expect(try Self.listed(["list", "v.coffer", "--json"], in: dir) == ["x": nil])
        }
    }

    @Test("list --expired lists only items whose date has passed (exit 1 when none); show marks them")
    func listExpired() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "future", "--expires", Self.day(400)],
                                input: "pw\nitem-pw\n", in: dir).status == 0)
            let none = try CLI.run(["list", "v.coffer", "--expired"], input: "pw\n", in: dir)
            #expect(none.status == 1, "\(none.out)\(none.err)")
            #expect(try CLI.run(["add", "v.coffer", "--service", "past", "--expires", Self.day(-2)],
                                input: "pw\nitem-pw\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "never"], input: "pw\nitem-pw\n", in: dir).status == 0)
            #expect(Array(try Self.listed(["list", "v.coffer", "--expired", "--json"], in: dir).keys) == ["past"])
            let text = try CLI.run(["list", "v.coffer", "--expired"], input: "pw\n", in: dir)
            #expect(text.status == 0 && text.out.contains("past") && !text.out.contains("future") && !text.out.contains("never"),
                    "\(text.out)")
            let shown = try CLI.run(["show", "v.coffer", "past"], input: "pw\n", in: dir)
            #expect(shown.out.contains("(expired)"), "\(shown.out)")
        }
    }

    @Test("audit reports expired and soon-to-expire (30 days) items, text and JSON; --fail-on-findings counts them")
    func audit() throws {
        let strong = "Hn4&tYc8-Wd2%pLs6-Jm5@"
        try withVault { dir in
            for (service, days) in [("past", -3), ("soon", 10), ("later", 90)] {
                #expect(try CLI.run(["add", "v.coffer", "--service", service, "--expires", Self.day(days)],
                                    input: "pw\n\(strong)\(service)\n", in: dir).status == 0)
            }
            let json = try CLI.run(["audit", "v.coffer", "--json"], input: "pw\n", in: dir)
            #expect(json.status == 0, "\(json.err)")
            let report = try json.jsonObject()
            #expect(CLIAuditTests.services(report["expired"]) == ["past"])
            #expect(CLIAuditTests.services(report["expiringSoon"]) == ["soon"])
            let soonDays = (report["expiringSoon"] as? [[String: Any]])?.first?["daysLeft"] as? Int
            #expect(soonDays.map { (8...10).contains($0) } == true, "\(String(describing: soonDays))")
            let text = try CLI.run(["audit", "v.coffer"], input: "pw\n", in: dir)
            #expect(text.out.contains("expired: 1") && text.out.contains("expiring within 30 days: 1"), "\(text.out)")
            #expect(text.out.contains("past") && text.out.contains("soon") && !text.out.contains("later"), "\(text.out)")
            #expect(try CLI.run(["audit", "v.coffer", "--fail-on-findings"], input: "pw\n", in: dir).status == 1)
            // Moved beyond the window and cleared: nothing left to report.
            #expect(try CLI.run(["edit", "v.coffer", "past", "--expires", "never"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["edit", "v.coffer", "soon", "--expires", Self.day(60)], input: "pw\n", in: dir).status == 0)
            let clean = try CLI.run(["audit", "v.coffer", "--fail-on-findings"], input: "pw\n", in: dir)
            #expect(clean.status == 0, "\(clean.out)\(clean.err)")
        }
    }
}

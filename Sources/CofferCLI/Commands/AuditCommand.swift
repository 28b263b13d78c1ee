import ArgumentParser
import Coffer
import Foundation

/// `coffer audit VAULT [--older-than 365d] [--json] [--fail-on-findings]`
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Report weak, reused and old passwords and expired items (offline; never prints a password).",
        discussion: """
            Weak: the strength estimator (`coffer estimate`) scores the password below 3 of \\
            4. Reused: two or more items share one password (found by a keyed hash whose key \\
            is drawn for the audit and wiped); each group is listed. Old: the password was set more than \\
            --older-than ago (the newest history entry, else the item's creation). Secure notes \\
            and items without a password are left out. Expired: the item's expiry date \\
            (`add`/`edit --expires`) has passed; expiring soon: it falls within 30 days (any \\
            kind of item). Nothing leaves this device.

            Exit status: 0 whatever is found (a report is not an error); with \\
            --fail-on-findings, 1 when anything is found (for scripts and CI).

            JSON shape:
              {"checked": int, "olderThanDays": int,
               "weak": [{"item": {"id", "kind", "label", "service", "account", "server"}, "score": int}],
               "reused": [[{"id", "kind", "label", "service", "account", "server"}]],
               "old": [{"item": {…}, "passwordSet": str, "ageDays": int}],
               "expired": [{"item": {…}, "expires": str, "daysLeft": int}],
               "expiringSoon": [{"item": {…}, "expires": str, "daysLeft": int}]}

            EXAMPLES:
              coffer audit vault.coffer
              coffer audit vault.coffer --older-than 180d --json
              coffer audit vault.coffer --fail-on-findings
            """)

    @OptionGroup var vault: VaultArguments

    @Option(name: .customLong("older-than"),
            help: ArgumentHelp("Report passwords set longer ago than this many days (e.g. 365d or 365).", valueName: "days"))
    var olderThan: String = "365d"

    @Flag(help: "Print JSON (shape above).")
    var json = false

    @Flag(name: .customLong("fail-on-findings"), help: "Exit 1 when anything is found.")
    var failOnFindings = false

    /// `--older-than` in days: digits, optionally followed by `d`.
    var days: Int? {
        let digits = olderThan.hasSuffix("d") ? String(olderThan.dropLast()) : olderThan
        guard let value = Int(digits), value >= 0, value <= 36_500 else { return nil }
        return value
    }

    func validate() throws {
        guard days != nil else { throw ValidationError("--older-than must be a number of days, 0 to 36500, such as 365d") }
    }

    func run() throws {
        guard let days else { throw CLIFailure(.usage, "--older-than must be a number of days") }
        let unlocked = try vault.unlock()
        let report = try vault.run { try unlocked.vault.audit(olderThanDays: days) }
        if json {
            try JSONValue.object([
                ("checked", .int(Int64(report.checked))),
                ("olderThanDays", .int(Int64(report.olderThanDays))),
                ("weak", .array(report.weak.map { .object([("item", .object(itemIdentityMembers($0.item))), ("score", .int(Int64($0.score)))]) })),
                ("reused", .array(report.reused.map { group in .array(group.map { .object(itemIdentityMembers($0)) }) })),
                ("old", .array(report.old.map {
                    .object([("item", .object(itemIdentityMembers($0.item))), ("passwordSet", .string(ItemJSON.date($0.passwordSet))),
                             ("ageDays", .int(Int64($0.ageDays)))])
                })),
                ("expired", .array(report.expired.map(expiryJSON))),
                ("expiringSoon", .array(report.expiringSoon.map(expiryJSON))),
            ]).print()
        } else {
            printText(report)
        }
        if failOnFindings && !report.isClean {
            throw CLIFailure(.noMatch, "the audit found \(report.weak.count) weak, \(report.reused.count) reused group(s), \(report.old.count) old, "
                                + "\(report.expired.count) expired, \(report.expiringSoon.count) expiring soon")
        }
    }

    private func expiryJSON(_ finding: AuditReport.Expiry) -> JSONValue {
        .object([("item", .object(itemIdentityMembers(finding.item))), ("expires", .string(ItemJSON.date(finding.expires))),
                 ("daysLeft", .int(Int64(finding.daysLeft)))])
    }

    private func printText(_ report: AuditReport) {
        Output.line("checked \(report.checked) password\(report.checked == 1 ? "" : "s")")
        Output.line("weak: \(report.weak.count)")
        for finding in report.weak { Output.line("  \(finding.item.summary): score \(finding.score)/4") }
        Output.line("reused: \(report.reused.count) group\(report.reused.count == 1 ? "" : "s")")
        for group in report.reused { Output.line("  " + group.map(\.summary).joined(separator: ", ")) }
        Output.line("older than \(report.olderThanDays) days: \(report.old.count)")
        for finding in report.old { Output.line("  \(finding.item.summary): set \(ItemJSON.date(finding.passwordSet)) (\(finding.ageDays) days)") }
        Output.line("expired: \(report.expired.count)")
        for finding in report.expired { Output.line("  \(finding.item.summary): expired \(ItemJSON.date(finding.expires))") }
        Output.line("expiring within \(report.expiringWithinDays) days: \(report.expiringSoon.count)")
        for finding in report.expiringSoon {
            Output.line("  \(finding.item.summary): expires \(ItemJSON.date(finding.expires)) (in \(finding.daysLeft) day\(finding.daysLeft == 1 ? "" : "s"))")
        }
    }
}

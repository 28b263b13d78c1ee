import ArgumentParser
import Coffer
import Foundation

/// `coffer status [--json]`
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show which vaults `coffer unlock` left unlocked in this session, and for how long; and the copies `coffer sync` refused.",
        discussion: """
            One line per unlocked vault: its path, the time left, when it ends and the kind \
            of slot it opens. Needs no password and shows no secret. A kernel without a \
            usable keyring is exit 74.

            Then, in text only, the conflict copies `coffer sync` refused on this device \
            (another vault, damaged, too large) and that are still there unchanged: later \
            syncs skip them without reading them. Remove such a copy, or read it again with \
            `coffer sync VAULT --retry-refused`.

            JSON shape:
              [{"path": str, "vaultID": str, "slot": "password"|"password+key-file"|"key-file"|"raw-key"|"age-recipient"|"ssh-recipient",
                "expires": str (ISO 8601), "secondsLeft": int}]

            EXAMPLES:
              coffer status
              coffer status --json
            """)

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        let unlocks = try mappingErrors(vault: nil) { try CachedUnlocking.cache.entries() }
        let now = Date()
        if json {
            try JSONValue.array(unlocks.map { unlock in
                .object([
                    ("path", .string(unlock.path)),
                    ("vaultID", .string(unlock.vaultID)),
                    ("slot", .string(unlock.slotKind.description)),
                    ("expires", .string(unlock.expires.ISO8601Format())),
                    ("secondsLeft", .int(Int64(max(0, unlock.expires.timeIntervalSince(now).rounded(.down))))),
                ])
            }).print()
            return
        }
        if unlocks.isEmpty { Output.line("no vault is unlocked") }
        for unlock in unlocks {
            let until = unlock.expires.clockTime
            Output.line("\(Output.visible(unlock.path))  unlocked for \(CachedUnlocking.remaining(until: unlock.expires, now: now)) (until \(until), \(unlock.slotKind) slot)")
        }
        // Best effort: the device's state is a hint, and an unreadable one hides nothing else.
        let refused = ((try? Vault.refusedCopies()) ?? []).filter(\.isUnchanged)
        guard !refused.isEmpty else { return }
        Output.line("refused by `coffer sync` and skipped while unchanged (remove them, or `coffer sync VAULT --retry-refused`):")
        for copy in refused {
            Output.line("  \(Output.visible(copy.path))  for \(Output.visible(copy.vaultPath)), refused \(copy.refusedAt.ISO8601Format()): \(Output.visible(copy.reason))")
        }
    }
}

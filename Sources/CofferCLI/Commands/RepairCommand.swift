import ArgumentParser
import Coffer
import CofferTerminal

/// `coffer repair VAULT [--from COPY]… [--dry-run] [--yes]`
struct RepairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repair",
        abstract: "Replace damaged entries from the backup or another copy, or take them out, so the vault saves again.",
        discussion: """
            An entry whose bytes changed on disk cannot be read, and while one is in the file \
            no command saves (exit 65): damage is never dropped silently. `repair` checks every \
            entry as `coffer check` does, replaces each damaged one with the intact entry that \
            VAULT.bak holds, else the first --from COPY that holds it (another replica of this \
            vault: a synced or backed-up copy), and takes out those no copy holds. It prints one \
            line per entry (`replace` with the item's name and the copy, or `remove`), then \
            saves; the damaged file becomes VAULT.bak.

            Removed items come back when a copy that holds them is merged (`coffer merge VAULT \
            COPY`). To keep what the damaged vault can still read first: `coffer export VAULT \
            --salvage`. It asks first on a terminal; on a pipe, --yes confirms. --dry-run \
            changes nothing. A vault with no damaged entry is left as it is (exit 0).

            EXAMPLES:
              coffer repair vault.coffer --dry-run
              coffer repair vault.coffer --from /media/usb/vault.coffer
              printf '%s\\n' "$MASTER" | coffer repair vault.coffer --yes
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Option(help: ArgumentHelp("Another copy of this vault to take intact entries from (repeatable), after VAULT.bak.",
                               valueName: "copy"), completion: .file(extensions: ["coffer"]))
    var from: [String] = []

    @Flag(name: .customLong("dry-run"), help: "Print what would be replaced or removed; change nothing.")
    var dryRun = false

    @Flag(help: "Repair without asking (needed when stdin is not a terminal).")
    var yes = false

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback)
        let preview = try vault.run { try unlocked.vault.repairDamaged(from: from, dryRun: true) }
        guard !preview.isEmpty else {
            Output.error("\(vault.vault): no damaged entry; nothing to repair")
            return
        }
        printPlan(preview)
        if dryRun {
            Output.error("dry run: nothing was changed")
            return
        }
        if !yes {
            guard SecretReader.isInteractive else {
                throw CLIFailure(.usage, "repairing rewrites the vault: add --yes to confirm when stdin is not a terminal; nothing was changed")
            }
            guard SecretInput.confirm("Repair \(Output.visible(vault.vault)) as above? The damaged file becomes \(Output.visible(vault.vault)).bak.") else {
                Output.error("nothing was changed")
                return
            }
        }
        let report = try vault.run { try unlocked.vault.repairDamaged(from: from) }
        var summary = "repaired \(vault.vault): \(report.replaced.count) replaced, \(report.removed.count) removed"
        if !report.removed.isEmpty {
            summary += "; merge a copy that holds the removed ones to bring them back (`coffer merge \(vault.vault) COPY`)"
        }
        Output.error(summary)
    }

    private func printPlan(_ report: RepairReport) {
        for replacement in report.replaced {
            let name = replacement.item.map(\.candidateDescription) ?? "a deleted item [\(replacement.damaged.shortID)]"
            Output.line("replace \(Output.visible(name)) from \(Output.visible(replacement.source))")
        }
        for damaged in report.removed {
            Output.line("remove  \(damaged) (no copy holds it intact)")
        }
    }
}

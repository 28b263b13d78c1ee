import ArgumentParser
import Coffer
import CofferTerminal
import Foundation

/// `coffer restore VAULT [--yes]`
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Put the backup (VAULT.bak) back in place of the vault; the current version becomes the backup.",
        discussion: """
            Every save keeps the version it replaces as VAULT.bak. `restore` swaps them: the \
            backup becomes the vault, and the version it replaces becomes VAULT.bak, so running \
            `restore` again undoes it and no version is lost. It shows both versions (generation, \
            entries, when saved) and asks first; on a pipe, --yes confirms.

            --dry-run changes nothing: it prints what restoring would do, one item a line \
            (name, account, short id): `restore` brings back items only the backup holds, \
            `remove` drops items only the vault holds, `revert` puts back the backup's \
            version of an item both hold. `coffer list VAULT.bak` lists the whole backup.

            The restored file is older than the vault this device saw last; `restore` accepts it \
            as the current version (see "Rolled-back files" in the README), so later saves work \
            without --accept-rollback. Copies of the vault elsewhere still hold the newer edits \
            and bring them back if merged (`coffer sync`, `coffer merge`).

            EXAMPLES:
              coffer restore vault.coffer
              printf '%s\\n' "$MASTER" | coffer restore vault.coffer --yes
              coffer restore vault.coffer --dry-run
            """)

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Restore without asking (needed when stdin is not a terminal).")
    var yes = false

    @Flag(name: .customLong("dry-run"), help: "Print what restoring would bring back, remove or revert; change nothing.")
    var dryRun = false

    func run() throws {
        let path = vault.vault
        let backupPath = path + ".bak"
        let (current, backup) = try vault.run { (try Vault.info(at: path), try Vault.info(at: backupPath)) }
        guard current.vaultID == backup.vaultID else {
            throw CLIFailure(.vaultUnreadable, "\(Output.visible(backupPath)) holds another vault; nothing was restored")
        }
        // The credentials (or a cached unlock) are needed: the backup is checked with the
        // vault's keys before it replaces anything.
        let unlocked = try vault.unlock()
        if dryRun {
            let changes = try vault.run { try unlocked.vault.backupChanges() }
            for (verb, items) in [("restore", changes.restored), ("remove ", changes.removed), ("revert ", changes.changed)] {
                for item in items { Output.line("\(verb) \(Output.visible(item.candidateDescription))") }
            }
            Output.error("the backup holds \(changes.backupItemCount) items (generation \(backup.generation)); "
                         + (changes.isEmpty ? "restoring would change no item; " : "") + "nothing was restored")
            return
        }
        Output.error("current: generation \(current.generation), \(current.entryCount) entries, saved \(Self.saved(path))")
        Output.error("backup:  generation \(backup.generation), \(backup.entryCount) entries, saved \(Self.saved(backupPath))")
        if !yes {
            guard SecretReader.isInteractive else {
                throw CLIFailure(.usage, "restoring replaces the vault: add --yes to confirm when stdin is not a terminal")
            }
            guard SecretInput.confirm("Put the backup in place of \(Output.visible(path))? The current version becomes the backup.") else {
                Output.error("nothing was restored")
                return
            }
        }
        // The restored version becomes this device's current one: the user chose it.
        try vault.run { try unlocked.vault.restoreBackup() }
        Output.error("restored \(Output.visible(path)) from its backup (generation \(backup.generation)); "
                     + "the replaced version is now \(Output.visible(backupPath)): `coffer restore` again undoes this")
    }

    /// The file's modification time, or "?".
    static func saved(_ path: String) -> String {
        guard let date = FileVersion(of: path, followingLinks: false)?.modificationDate else { return "?" }
        return date.ISO8601Format()
    }
}

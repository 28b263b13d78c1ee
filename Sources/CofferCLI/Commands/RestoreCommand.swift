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

            KEY SLOTS are never restored: the vault keeps the passwords and key files that \
            open it now, and a credential removed or changed since the backup was made stays \
            revoked. --dry-run and the confirmation say how the backup's slots differ (by \
            kind); a backup whose slots differ is written anew under the vault's slots (the \
            current version still becomes VAULT.bak). A backup sealed under an earlier vault \
            key (made before a password change or `coffer rekey`) is refused (exit 65).

            The restored file is older than the vault this device saw last; `restore` accepts it \
            as the current version (see "Rolled-back files" in the README), so later saves work \
            without --accept-rollback. Copies of the vault elsewhere still hold the newer edits \
            and bring them back if merged (`coffer sync`, `coffer merge`).

            EARLIER VERSIONS: each save also keeps the version it replaces on this device, \
            in its state folder ($XDG_STATE_HOME/coffer/versions, never beside the vault, so \
            no sync service copies them): the last 10, for 30 days. --list prints them, \
            newest first: number (1 is the version VAULT.bak holds), when it was replaced, \
            generation and size. --version N restores version N as `restore` restores the \
            backup (checked first; the current version becomes VAULT.bak and version 1), and \
            --dry-run with it prints what that would change. A change of password or key \
            file removes every kept version: none opens with a credential that was replaced.

            EXAMPLES:
              coffer restore vault.coffer
              printf '%s\\n' "$MASTER" | coffer restore vault.coffer --yes
              coffer restore vault.coffer --dry-run
              coffer restore vault.coffer --list
              coffer restore vault.coffer --version 3 --dry-run
            """)

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Restore without asking (needed when stdin is not a terminal).")
    var yes = false

    @Flag(name: .customLong("dry-run"), help: "Print what restoring would bring back, remove or revert; change nothing.")
    var dryRun = false

    @Flag(help: "List the earlier versions kept on this device, newest first.")
    var list = false

    @Option(help: ArgumentHelp("Restore earlier version N (see --list) instead of the backup.", valueName: "n"))
    var version: Int?

    func validate() throws {
        if list && (version != nil || dryRun || yes) { throw ValidationError("--list cannot be used with --version, --dry-run or --yes") }
        if let version, version < 1 { throw ValidationError("--version must be 1 or more (see --list)") }
    }

    func run() throws {
        if list || version != nil { return try runVersions() }
        let path = vault.vault
        let backupPath = path + ".bak"
        let (current, backup) = try vault.run { (try Vault.info(at: path), try Vault.info(at: backupPath)) }
        guard current.vaultID == backup.vaultID else {
            throw CLIFailure(.vaultUnreadable, "\(Output.visible(backupPath)) holds another vault; nothing was restored")
        }
        // The credentials (or a cached unlock) are needed: the backup is checked with the
        // vault's keys before it replaces anything.
        let unlocked = try vault.unlock()
        let changes = try vault.run { try Self.previewing { try unlocked.vault.backupChanges() } }
        if dryRun {
            Self.printChanges(changes)
            Output.error("the backup holds \(changes.backupItemCount) items (generation \(backup.generation)); "
                         + (changes.isEmpty ? "restoring would change no item; " : "") + "nothing was restored")
            return
        }
        Output.error("current: generation \(current.generation), \(current.entryCount) entries, saved \(Self.saved(path))")
        Output.error("backup:  generation \(backup.generation), \(backup.entryCount) entries, saved \(Self.saved(backupPath))")
        Output.error(Self.slotNote(changes.keySlots, of: "the backup"))
        guard try confirmed("Put the backup in place of \(Output.visible(path))? The current version becomes the backup.") else { return }
        // The restored version becomes this device's current one: the user chose it.
        try vault.run { try unlocked.vault.restoreBackup() }
        Output.error("restored \(Output.visible(path)) from its backup (generation \(backup.generation)); "
                     + "the replaced version is now \(Output.visible(backupPath)): `coffer restore` again undoes this")
    }

    /// `--list` and `--version N`: the earlier versions kept on this device.
    private func runVersions() throws {
        let path = vault.vault
        let unlocked = try vault.unlock()
        let versions = try vault.run { try unlocked.vault.undoVersions() }
        if list {
            guard !versions.isEmpty else {
                return Output.error("no earlier versions of \(Output.visible(path)) are kept on this device yet (each save keeps one)")
            }
            for version in versions {
                Output.line("\(version.number)  replaced \(version.replaced.ISO8601Format())  generation \(version.generation)  \(version.size) bytes")
            }
            return
        }
        guard let number = version else { return }
        guard let chosen = versions.first(where: { $0.number == number }) else {
            throw CLIFailure(.noMatch, "no version \(number) of \(Output.visible(path)) is kept on this device "
                             + (versions.isEmpty ? "(none is)" : "(1 to \(versions.count); see --list)"))
        }
        let changes = try vault.run { try Self.previewing { try unlocked.vault.undoVersionChanges(number) } }
        if dryRun {
            Self.printChanges(changes)
            Output.error("version \(number) holds \(changes.backupItemCount) items (generation \(chosen.generation)); "
                         + (changes.isEmpty ? "restoring it would change no item; " : "") + "nothing was restored")
            return
        }
        Output.error(Self.slotNote(changes.keySlots, of: "version \(number)"))
        guard try confirmed("Put version \(number) (replaced \(chosen.replaced.ISO8601Format())) in place of \(Output.visible(path))?") else { return }
        try vault.run { try unlocked.vault.restoreUndoVersion(number) }
        Output.error("restored version \(number) of \(Output.visible(path)) (generation \(chosen.generation)); "
                     + "the replaced version is now \(Output.visible(path)).bak and version 1: `coffer restore` again undoes this")
    }

    /// `--dry-run`'s lines: one item a line, what restoring would do with it; then, on
    /// stderr, what happens to the key slots.
    static func printChanges(_ changes: BackupChanges) {
        for (verb, items) in [("restore", changes.restored), ("remove ", changes.removed), ("revert ", changes.changed)] {
            for item in items { Output.line("\(verb) \(Output.visible(item.candidateDescription))") }
        }
        Output.error(slotNote(changes.keySlots, of: "it"))
    }

    /// The line about key slots for `--dry-run` and the confirmation: they are not restored.
    static func slotNote(_ slots: KeySlotChange, of version: String) -> String {
        guard !slots.added.isEmpty || !slots.removed.isEmpty else {
            return "key slots: \(version) has the vault's; key slots are not restored"
        }
        return "key slots are not restored: \(version) has \(SlotChangeOutput.kinds(slots.added)) the vault does not "
            + "(not brought back) and lacks \(SlotChangeOutput.kinds(slots.removed)) the vault has (kept); "
            + "the vault keeps the credentials that open it now"
    }

    /// `body`'s preview of a restore; a version sealed under another vault key is refused
    /// (exit 65) with a message that says its slots stay out too.
    static func previewing(_ body: () throws -> BackupChanges) throws -> BackupChanges {
        do {
            return try body()
        } catch let error as CofferError where error.kind == .otherKeyEpoch {
            throw CofferError(.otherKeyEpoch, detail: (error.detail ?? "the version") + "; nothing was restored (a restore never "
                              + "brings back an earlier key or its key slots: every credential revoked since stays revoked)")
        }
    }

    /// True with --yes, or when the question on a terminal is answered yes ("nothing was
    /// restored" otherwise); a usage error (64) on a pipe without --yes.
    private func confirmed(_ question: String) throws -> Bool {
        guard !yes else { return true }
        guard SecretReader.isInteractive else {
            throw CLIFailure(.usage, "restoring replaces the vault: add --yes to confirm when stdin is not a terminal")
        }
        guard SecretInput.confirm(question) else {
            Output.error("nothing was restored")
            return false
        }
        return true
    }

    /// The file's modification time, or "?".
    static func saved(_ path: String) -> String {
        guard let date = FileVersion(of: path, followingLinks: false)?.modificationDate else { return "?" }
        return date.ISO8601Format()
    }
}

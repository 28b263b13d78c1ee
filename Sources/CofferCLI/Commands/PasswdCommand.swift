import ArgumentParser
import Coffer

/// `coffer passwd VAULT`
struct PasswdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change the master password.",
        discussion: """
            Unlocks with the current password (and --key-file if the vault needs it), then \
            asks for the new one twice (a mismatch asks again, up to 3 tries); on a pipe, the \
            new password is the line after the current one. Its strength estimate is shown on \
            stderr, with a warning below a good score (3 of 4); on a terminal you are asked \
            whether to keep a weak one. When the vault was opened with the password and a key file, that \
            slot gets the new password and keeps the key file; otherwise the password slot \
            changes. Items are not re-encrypted. A vault without a password slot is exit 64.

            The backup beside the vault (VAULT.bak) is replaced by a copy of the new version, \
            so no file there opens with the old password. A copy made elsewhere before the \
            change (a sync history, a backup disk, a copy someone took) still opens with the \
            old password, and the vault key it unwraps is unchanged: it also decrypts items \
            saved later, in any copy of the vault that person gets. To revoke an old password \
            for copies, run `coffer rekey` after the change: what is saved from then on is \
            sealed under a new key.

            EXAMPLES:
              coffer passwd vault.coffer
              printf 'old\\nnew\\n' | coffer passwd vault.coffer
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let keyFile = unlocked.usedSlot == .passwordAndKeyFile ? unlocked.keyFile : nil
        let kind: KeySlotKind = keyFile == nil ? .password : .passwordAndKeyFile
        guard unlocked.vault.slots.contains(kind) else {
            throw CLIFailure(.usage, "\(vault.vault) has no password slot to change")
        }
        let newPassword = try SecretReader.newMasterPassword(for: vault.vault, what: "the new master password")
        try vault.run {
            try withProgressHint("deriving the key…") {
                try unlocked.vault.changePassword(to: newPassword, keyFile: keyFile)
            }
        }
        // The old slot is gone, and with it what `coffer unlock` kept; say so at once.
        CachedUnlocking.forget(vault.vault)
        Output.error("changed the master password of \(vault.vault) (\(kind) slot)")
    }
}

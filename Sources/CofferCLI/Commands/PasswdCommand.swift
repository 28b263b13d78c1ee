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
            whether to keep a weak one.

            Every slot the current password opens gets the new one: the password slots, and \
            the password+key-file slots whose password it is, which keep their key file (it \
            is not needed for the change, and stays required where it was). The message \
            lists the slots changed. A vault without a password slot is exit 64.

            By default the vault key is rotated in the same save (as `coffer rekey` does): \
            every entry is sealed again under a new key, so a copy made before the change (a \
            sync history, a backup disk, a copy someone took), which still opens with the old \
            password, reads nothing saved afterwards. --no-rekey skips it (faster on a large \
            vault; the old password and an old copy then still read what is saved later). \
            Sync every device before: a copy made before a rekey is not merged (exit 65). \
            The backup beside the vault (VAULT.bak) is replaced by a copy of the new version, \
            and the kept undo versions are dropped, so no file there opens with the old password.

            EXAMPLES:
              coffer passwd vault.coffer
              printf 'old\\nnew\\n' | coffer passwd vault.coffer
              coffer passwd vault.coffer --key-file /media/usb/vault.key --no-rekey
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup var rekey: RekeyArguments

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        guard let oldPassword = unlocked.password,
              unlocked.vault.slots.contains(where: { $0 == .password || $0 == .passwordAndKeyFile }) else {
            throw CLIFailure(.usage, "\(vault.vault) has no password slot to change")
        }
        let keyFile = unlocked.usedSlot == .passwordAndKeyFile ? unlocked.keyFile : nil
        let newPassword = try SecretReader.newMasterPassword(for: vault.vault, what: "the new master password")
        let change = try vault.run {
            try withProgressHint(rekey.rotatingKey ? "deriving the keys and sealing every entry under a new key…" : "deriving the keys…") {
                if let opened = unlocked.opened {
                    return try opened.changePassword(to: newPassword, keyFile: keyFile, rotatingKey: rekey.rotatingKey)
                }
                return try unlocked.vault.changePassword(from: oldPassword, to: newPassword, keyFile: keyFile, rotatingKey: rekey.rotatingKey)
            }
        }
        // The old slots are gone, and with them what `coffer unlock` kept; say so at once.
        CachedUnlocking.forget(vault.vault)
        let kinds = change.changed.map { "\($0)" }.joined(separator: ", ")
        Output.error("changed the master password of \(vault.vault) in \(Output.plural(change.changed.count, "slot")) (\(kinds))")
        RekeyArguments.report(change.rotation, vault: vault.vault)
    }
}

import ArgumentParser
import Coffer

/// `coffer rekey VAULT`
struct RekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Replace the vault's key: copies and keys from before open nothing written after.",
        discussion: """
            Draws a new random vault key, seals every entry again with it and saves, in one \
            atomic replace. Every password, key file and raw key of the vault keeps working \
            (each format-2 slot is given the new key without its credential). What it \
            protects against: a copy of the file made before (a sync history, a backup disk), \
            its old password, or a key recovered from it, opens nothing saved after the \
            rekey. `coffer passwd`, `coffer remove-keyfile` and `coffer add-keyfile --required` \
            already do this in the same save (unless given --no-rekey); run it after one of \
            them given --no-rekey, or whenever a key may have leaked.

            Format-1 key slots (of a vault made by an older Coffer) cannot be given the new \
            key: they are removed and listed on stderr (the one you unlock with is converted \
            first and stays); add them again with `coffer passwd` or `coffer add-keyfile`. \
            The backup beside the vault (VAULT.bak) is replaced by a copy of the new version \
            (or removed without backups), so no file there opens with the old key. The old \
            key is kept in the file, sealed under the new one (SPEC.md §4.9), but this version \
            does not yet merge a copy made before the rekey (`coffer sync`, `coffer merge` and \
            `coffer merge-driver` refuse it with a message and exit 65, leaving it in place; \
            an old copy refuses the rekeyed file the same way): sync every device first, \
            rekey, then let the devices take the new file. Takes about as long as one save plus decrypting and encrypting \
            every entry.

            EXAMPLES:
              coffer rekey vault.coffer
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let rotation = try vault.run {
            try withProgressHint("sealing every entry under a new key…") { try unlocked.vault.rotateKey() }
        }
        // A cached unlock of a slot the rekey converted or removed opens nothing now.
        CachedUnlocking.forget(vault.vault)
        RekeyArguments.report(rotation, vault: vault.vault)
    }
}

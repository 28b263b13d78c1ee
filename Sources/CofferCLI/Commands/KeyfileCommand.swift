import ArgumentParser
import Coffer

/// `coffer keyfile add|remove VAULT PATH`: the earlier, nested spelling of
/// `add-keyfile` and `remove-keyfile`, kept (hidden) for scripts that use it.
struct KeyfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyfile",
        abstract: "Add or remove key-file slots (now add-keyfile and remove-keyfile).",
        discussion: """
            The same as `coffer add-keyfile` and `coffer remove-keyfile`, spelled as before.

            EXAMPLES:
              coffer add-keyfile vault.coffer /media/usb/vault.key
              coffer remove-keyfile vault.coffer /media/usb/vault.key
            """,
        shouldDisplay: false,
        subcommands: [Add.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: AddKeyfileCommand.configuration.abstract, discussion: AddKeyfileCommand.configuration.discussion)
        @OptionGroup var command: AddKeyfileCommand
        func run() throws { try command.run() }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: RemoveKeyfileCommand.configuration.abstract, discussion: RemoveKeyfileCommand.configuration.discussion)
        @OptionGroup var command: RemoveKeyfileCommand
        func run() throws { try command.run() }
    }
}

/// `coffer add-keyfile VAULT PATH`
struct AddKeyfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-keyfile",
        abstract: "Add a slot that needs the master password and the key file at PATH (--alone: the file alone).",
        discussion: """
            By default the key file is a second factor: the new slot opens with the master \
            password just entered and the file together, as in KeePassXC. With --alone, the \
            slot opens with the file and no password (for unattended `sync` or `merge-driver`); \
            anyone holding the file can then open the vault. The message says which kind of \
            slot was added.

            With --required, the key file becomes a required second factor: the password + \
            key-file slot is added and every slot the password alone opens is removed, in one \
            save that rotates the vault key (as `coffer rekey`; --no-rekey skips it), so the \
            password alone no longer opens the vault, nor reads what is saved afterwards in \
            a copy made before. `coffer info` shows what opens the vault.

            A missing PATH is created with 64 random bytes, mode 0600. Any existing file \
            works too, but a generated one has full strength.

            EXAMPLES:
              coffer add-keyfile vault.coffer /media/usb/vault.key
              coffer add-keyfile vault.coffer /media/usb/vault.key --required
              coffer add-keyfile vault.coffer ~/.config/coffer/vault.key --alone
              coffer add-keyfile vault.coffer ~/vault.key --key-file /media/usb/old.key
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: "The key file for the new slot.", completion: .file())
    var path: String

    @Flag(name: .customLong("alone"),
          help: "The key file alone opens the new slot, without the master password.")
    var alone = false

    @Flag(name: .customLong("required"),
          help: "Make the key file a required second factor: also remove every slot the password alone opens (and rotate the vault key).")
    var required = false

    @OptionGroup var rekey: RekeyArguments

    func validate() throws {
        if alone && required { throw ValidationError("--alone and --required exclude each other") }
    }

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        // A second factor needs the master password that opened the vault; a vault opened
        // by a key file alone has none to pair it with.
        let password = unlocked.password
        guard alone || password != nil else {
            throw CLIFailure(.usage, "\(vault.vault) was opened without a master password; "
                             + "add --alone for a slot the key file opens alone")
        }
        let (file, generated) = try KeyFileSupport.loadOrGenerate(path)
        let credential: VaultCredential
        if !alone, let password { credential = .passwordAndKeyFile(password, file) } else { credential = .keyFile(file) }
        var change: KeySlotChange?
        do {
            try vault.run {
                try withProgressHint("deriving the key…") {
                    if required, let password {
                        change = try unlocked.vault.requireKeyFile(file, password: password, rotatingKey: rekey.rotatingKey)
                    } else {
                        try unlocked.vault.addKeySlot(credential)
                    }
                }
            }
        } catch {
            if generated { FileChecks.remove(path) }
            throw error
        }
        let opens = alone ? "opens with the key file alone" : "needs the master password and the key file"
        Output.error("added a \(credential.slotKind) slot to \(vault.vault) for \(path): it \(opens)")
        if let change {
            CachedUnlocking.forget(vault.vault)
            Output.error("removed \(Output.plural(change.removed.count, "password slot")): the password alone no longer opens \(vault.vault)")
            RekeyArguments.report(change.rotation, vault: vault.vault)
        }
    }
}

/// `coffer remove-keyfile VAULT PATH`
struct RemoveKeyfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-keyfile",
        abstract: "Remove the slot(s) that the key file at PATH opens.",
        discussion: """
            Removes the key-file slots this file opens, and the password-and-key-file \
            slots it opens with the master password just entered. The last slot cannot be \
            removed (exit 64); a file that opens no slot is exit 77. By default the vault \
            key is rotated in the same save (as `coffer rekey`), so whoever kept the file and \
            a copy of the vault reads nothing saved afterwards; --no-rekey skips it.

            EXAMPLES:
              coffer remove-keyfile vault.coffer ~/vault.key
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: "The key file whose slots to remove.", completion: .file())
    var path: String

    @OptionGroup var rekey: RekeyArguments

    func run() throws {
        let file = try mappingErrors(vault: nil) { try KeyFile(contentsOf: path) }
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let change = try vault.run {
            try withProgressHint("checking the key slots…") {
                try unlocked.vault.removeKeySlots(openedBy: file, password: unlocked.password, rotatingKey: rekey.rotatingKey)
            }
        }
        CachedUnlocking.forget(vault.vault)
        let kinds = change.removed.map { "\($0)" }.joined(separator: ", ")
        Output.error("removed \(Output.plural(change.removed.count, "slot")) (\(kinds)) of key file \(path) from \(vault.vault)")
        RekeyArguments.report(change.rotation, vault: vault.vault)
    }
}

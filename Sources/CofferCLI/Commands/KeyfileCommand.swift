import ArgumentParser
import Coffer

/// `coffer keyfile add|remove VAULT PATH`
struct KeyfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyfile",
        abstract: "Add or remove key-file slots.",
        discussion: """
            A key-file slot opens the vault with the key file alone: keep the file on a \
            removable drive or in a password-protected place. The vault is unlocked as usual \
            (master password, or --key-file for another key file).

            EXAMPLES:
              coffer keyfile add vault.coffer /media/usb/vault.key
              coffer keyfile remove vault.coffer /media/usb/vault.key
            """,
        subcommands: [Add.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a slot that the key file at PATH opens on its own; PATH is generated if missing.",
            discussion: """
                A missing PATH is created with 64 random bytes, mode 0600. Any existing file \
                works too, but a generated one has full strength.

                EXAMPLES:
                  coffer keyfile add vault.coffer ~/vault.key
                  coffer keyfile add vault.coffer ~/vault.key --key-file /media/usb/old.key
                """)

        @OptionGroup var vault: VaultArguments

        @Argument(help: "The key file for the new slot.", completion: .file())
        var path: String

        func run() throws {
            let unlocked = try vault.unlock()
            let (file, generated) = try KeyFileSupport.loadOrGenerate(path)
            do {
                try vault.run {
                    try withProgressHint("deriving the key…") { try unlocked.vault.addKeySlot(.keyFile(file)) }
                }
            } catch {
                if generated { FileChecks.remove(path) }
                throw error
            }
            Output.error("added a key-file slot to \(vault.vault) for \(path)")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the slot(s) that the key file at PATH opens.",
            discussion: """
                Removes the key-file slots this file opens, and the password-and-key-file \
                slots it opens with the master password just entered. The last slot cannot be \
                removed (exit 64); a file that opens no slot is exit 77.

                EXAMPLES:
                  coffer keyfile remove vault.coffer ~/vault.key
                """)

        @OptionGroup var vault: VaultArguments

        @Argument(help: "The key file whose slots to remove.", completion: .file())
        var path: String

        func run() throws {
            let file = try mappingErrors(vault: nil) { try KeyFile(contentsOf: path) }
            let unlocked = try vault.unlock()
            _ = try vault.run {
                try withProgressHint("checking the key slots…") {
                    try unlocked.vault.removeKeySlots(openedBy: file, password: unlocked.password)
                }
            }
            Output.error("removed the slot(s) of key file \(path) from \(vault.vault)")
        }
    }
}

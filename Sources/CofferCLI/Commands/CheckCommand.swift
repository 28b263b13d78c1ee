import ArgumentParser
import Coffer

/// `coffer check VAULT`
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify the whole file: the header, the manifest and every entry.",
        discussion: """
            Unlocks the vault, then decrypts and authenticates every entry against the \
            manifest. Prints one line and exits 0 when all is well; a corrupted or tampered \
            file is exit 65. Other commands check an entry when they use it (SPEC.md §10), \
            so `get` of one item still works when another entry is damaged; `check` finds \
            damage anywhere.

            EXAMPLES:
              coffer check vault.coffer
            """)

    @OptionGroup var vault: VaultArguments

    func run() throws {
        let unlocked = try vault.unlock()
        let count = try vault.run { () throws -> Int in
            try withProgressHint("checking…") { try unlocked.vault.verifyAll() }
            return try unlocked.vault.items().count
        }
        Output.line("\(vault.vault): OK (header, manifest and \(count) \(count == 1 ? "entry" : "entries") verified)")
    }
}

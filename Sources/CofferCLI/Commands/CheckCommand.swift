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
            file is exit 65. A damaged entry is named by its id, one line each on stdout, and \
            the message says the ways out (`export --salvage`, `repair`, `restore`, `merge`). \
            Other commands check an entry when they use it (SPEC.md §10), so `get` of one item \
            still works, and `list` and `search` show the rest, when another entry is damaged; \
            `check` finds damage anywhere.

            EXAMPLES:
              coffer check vault.coffer
            """)

    @OptionGroup var vault: VaultArguments

    func run() throws {
        let unlocked = try vault.unlock()
        let (count, damaged) = try vault.run { () throws -> (Int, [DamagedItem]) in
            let damaged = try withProgressHint("checking…") { try unlocked.vault.damagedItems() }
            return (try unlocked.vault.readableItems().items.count, damaged)
        }
        guard damaged.isEmpty else {
            for entry in damaged { Output.line("\(vault.vault): damaged: \(entry) (id \(entry.id.hex))") }
            throw CLIFailure(.vaultUnreadable, "\(vault.vault): \(DamagedEntries.named(damaged)); "
                             + "\(count) item\(count == 1 ? "" : "s") read and verified; \(DamagedEntries.wayOut(vault.vault))")
        }
        Output.line("\(vault.vault): OK (header, manifest and \(count) \(count == 1 ? "entry" : "entries") verified)")
    }
}

import ArgumentParser
import Coffer

/// `coffer search VAULT TEXT [--json]`
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find items whose attributes contain TEXT (ignoring case and accents; secrets are not searched or shown).",
        discussion: """
            Searches labels, services, accounts, servers, URLs, tags, comments and non-secret \
            field values, ignoring case and diacritics (`unicode` finds `Ünïcödé`). From 3 \
            characters, TEXT's letters in order with gaps in a name (label, service, server, \
            account) match too (`gthub` finds `github`), listed after the items that contain \
            TEXT. Output as in `coffer list` (a damaged entry is named and the rest searched, exit \
            65); no match is exit 1.

            EXAMPLES:
              coffer search vault.coffer bank
              coffer search vault.coffer github --json
            """)

    @OptionGroup var vault: VaultArguments

    @Argument(help: "The text to look for.")
    var text: String

    @Flag(help: "Print JSON (the shape of `coffer list --json`).")
    var json = false

    func run() throws {
        let unlocked = try vault.unlock()
        let found = try vault.run { try unlocked.vault.readableItems(matching: ItemQuery(text: text)) }
        let items = found.items
        try printItems(items, json: json)
        if !found.damaged.isEmpty { throw DamagedEntries.failure(found.damaged, vault: vault.vault, shown: "the others were searched") }
        if items.isEmpty { throw CLIFailure(.noMatch, "no item matched \"\(text)\"") }
    }
}

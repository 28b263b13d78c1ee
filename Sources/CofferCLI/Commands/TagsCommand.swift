import ArgumentParser
import Coffer

/// `coffer tags VAULT [--json]`
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List the vault's tags with how many items carry each.",
        discussion: """
            Tags that differ only in case are one tag (`list --tag work` finds `Work` too), \
            shown as most items spell it. One line per tag: the count, then the tag. No tag \
            is exit 0 with no output.

            JSON shape:
              [{"tag": str, "count": int}]

            EXAMPLES:
              coffer tags vault.coffer
              coffer tags vault.coffer --json
            """)

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        let unlocked = try vault.unlock()
        let tags = try vault.run { try unlocked.vault.tags() }
        if json {
            try JSONValue.array(tags.map { .object([("tag", .string($0.tag)), ("count", .int(Int64($0.count)))]) }).print()
            return
        }
        let width = String(tags.map(\.count).max() ?? 0).count
        for entry in tags {
            let count = String(entry.count)
            Output.line(String(repeating: " ", count: width - count.count) + count + "  " + entry.tag)
        }
    }
}

import ArgumentParser
import Coffer

/// `coffer tags VAULT [--json]`
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tags",
        abstract: "List the vault's tags as a tree, with how many items each holds.",
        discussion: """
            Tags are folders separated by `/` (KeePassXC's groups import as `Work/Email`): \
            `list --tag Work` lists the items tagged Work or a tag under it, such as \
            Work/Email. Tags that differ only in case are one tag (`list --tag work` finds \
            `Work` too), shown as most items spell it. One line per tag, each folder before \
            the tags under it, indented by two spaces per level: the number of items \
            `list --tag` lists for it, then its last name. No tag is exit 0 with no output.

            JSON shape (in the same order; "count": the items carrying the tag itself,
            "total": those carrying it or a tag under it):
              [{"tag": str, "count": int, "total": int}]

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
            try JSONValue.array(tags.map {
                .object([("tag", .string($0.tag)), ("count", .int(Int64($0.count))), ("total", .int(Int64($0.total)))])
            }).print()
            return
        }
        let width = String(tags.map(\.total).max() ?? 0).count
        for entry in tags {
            let count = String(entry.total)
            let indent = String(repeating: "  ", count: entry.path.count - 1)
            Output.line(String(repeating: " ", count: width - count.count) + count + "  " + indent + (entry.path.last.map(String.init) ?? entry.tag))
        }
    }
}

import ArgumentParser
import Coffer

/// `coffer list VAULT [--service S] [--tag T] [--json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List items (never their secrets).",
        discussion: """
            Prints NAME, ACCOUNT, KIND and TAGS columns (a * marks favorites), or JSON. \
            With a filter that matches nothing, exit 1.

            JSON shape: an array of
              {"id": str, "kind": "generic-password"|"internet-password"|"secure-note",
               "label": str|null, "service": str|null, "account": str|null, "server": str|null,
               "protocol": str|null, "port": int|null, "path": str|null, "urls": [str],
               "tags": [str], "favorite": bool, "comment": str|null,
               "fields": [{"name": str, "value": str}], "created": str, "modified": str}
            with dates in ISO 8601 (UTC, milliseconds). Secrets are never included.

            EXAMPLES:
              coffer list vault.coffer
              coffer list vault.coffer --tag work --json
            """)

    @OptionGroup var vault: VaultArguments

    @Option(help: "Only items of this service.")
    var service: String?

    @Option(help: ArgumentHelp("Only internet passwords of this server (host).", valueName: "host"))
    var server: String?

    @Option(help: "Only items with this tag.")
    var tag: String?

    @Option(help: ArgumentHelp("Only items of this kind: generic-password, internet-password or secure-note.", valueName: "kind"))
    var kind: String?

    @Flag(help: "Only favorites.")
    var favorites = false

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        if let kind, ItemKind(rawValue: kind) == nil {
            throw ValidationError("--kind must be generic-password, internet-password or secure-note")
        }
    }

    func run() throws {
        let query = ItemQuery(kind: kind.flatMap(ItemKind.init(rawValue:)), service: service, server: server,
                              tag: tag, isFavorite: favorites ? true : nil)
        let unlocked = try vault.unlock()
        let items = try vault.run { try unlocked.vault.items(matching: query) }
        try printItems(items, json: json)
        if items.isEmpty && query != .all {
            throw CLIFailure(.noMatch, "no item matched")
        }
    }
}

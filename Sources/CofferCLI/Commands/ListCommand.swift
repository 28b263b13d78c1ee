import ArgumentParser
import Coffer
import Foundation

/// `coffer list VAULT [--service S] [--tag T] [--conflicts] [--json]`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List items (never their secrets).",
        discussion: """
            Prints NAME, ACCOUNT, KIND and TAGS columns (a * marks favorites), or JSON. NAME \
            is the item's label when it has one, followed by its service or address in \
            parentheses, else the service, address or note title. The list reads in order of \
            the label (else service, else server), then account: case and accents ignored, \
            numbers in names compared as numbers ("item 2" before "item 10"). \
            With a filter that matches nothing, exit 1. A damaged entry (SPEC.md §10) does not \
            stop the listing: the readable items are listed, the damaged ones named on stderr, \
            and the exit is 65 (see `coffer repair`).

            --expired lists only the items whose expiry date (`add`/`edit --expires`) has \
            passed; none is exit 1. `coffer audit` also names those expiring within 30 days.

            --conflicts lists only the items with values that lost a concurrent edit on \
            another device (kept by `coffer sync`, `merge` or the git merge driver); see them \
            with `coffer history` and mark them reviewed with `coffer resolve`. None is exit 1.

            JSON shape: an array of
              {"id": str, "kind": "generic-password"|"internet-password"|"secure-note",
               "label": str|null, "service": str|null, "account": str|null, "server": str|null,
               "protocol": str|null, "port": int|null, "path": str|null, "urls": [str],
               "tags": [str], "favorite": bool, "comment": str|null,
               "fields": [{"name": str, "value": str}], "created": str, "modified": str,
               "expires": str|null}
            with dates in ISO 8601 (UTC, milliseconds). Secrets are never included.

            EXAMPLES:
              coffer list vault.coffer
              coffer list vault.coffer --tag work --json
              coffer list vault.coffer --conflicts
              coffer list vault.coffer --expired
            """)

    @OptionGroup var vault: VaultArguments

    @Option(help: "Only items of this service.")
    var service: String?

    @Option(help: ArgumentHelp("Only internet passwords of this server (host).", valueName: "host"))
    var server: String?

    @Option(help: "Only items with this tag or a tag under it (`Work` lists `Work/Email` too).")
    var tag: String?

    @Option(help: ArgumentHelp("Only items of this kind: generic-password (generic), internet-password (internet, login) or secure-note (note).", valueName: "kind"))
    var kind: String?

    @Flag(help: "Only favorites.")
    var favorites = false

    @Flag(help: "Only items whose expiry date has passed.")
    var expired = false

    @Flag(help: "Only items with conflicting edits from another device (see `coffer history`).")
    var conflicts = false

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        if let kind, ItemKind(option: kind) == nil {
            throw ValidationError("--kind must be generic-password (or generic), internet-password (or internet, login) or secure-note (or note)")
        }
    }

    func run() throws {
        let query = ItemQuery(kind: kind.flatMap(ItemKind.init(option:)), service: service, server: server,
                              tag: tag, isFavorite: favorites ? true : nil)
        let unlocked = try vault.unlock()
        let now = Date()
        // Rows read from the overviews' bytes (``ItemListing``): no item decoded per row, and
        // no copy of the rows unless a filter drops some.
        let (listing, flagged) = try vault.run { () throws -> (ItemListing, Set<ItemID>?) in
            (try unlocked.vault.listing(matching: query), conflicts ? Set(try unlocked.vault.itemsWithConflicts().map(\.id)) : nil)
        }
        let damaged = listing.damaged
        let items: ItemListing?
        if expired || flagged != nil {
            items = try listing.filtered { row in
                try (flagged?.contains(row.id) ?? true) && (!expired || row.item().attributes.isExpired(at: now))
            }
        } else {
            items = nil
        }
        if let items { try printListing(items, json: json) } else { try printListing(listing, json: json) }
        let listedCount = items?.count ?? listing.count
        // Printed: the rows are not freed, since the process exits next (ProcessIO.keepUntilExit).
        ProcessIO.keepUntilExit(listing)
        if let items { ProcessIO.keepUntilExit(items) }
        if !damaged.isEmpty { throw DamagedEntries.failure(damaged, vault: vault.vault, shown: "the others are listed") }
        if listedCount == 0 && (query != .all || conflicts || expired) {
            throw CLIFailure(.noMatch, conflicts ? "no item matched with conflicting edits" : expired ? "no item has expired" : "no item matched")
        }
        // An empty vault is no failure, but silence looks like one.
        if listedCount == 0 && !json { Output.error("coffer: \(vault.vault) holds no items yet; add one with `coffer add` or `coffer import`") }
    }
}

import ArgumentParser
import Coffer
import Foundation

/// Picks one item: a positional NAME, or one of `--service`, `--server`, `--title`,
/// `--id` (and `--label`, see ``LabeledItemSelector``); narrowed by `--account`. The
/// library resolves it (``Vault/item(named:)``).
///
/// `edit` takes this one: its `--label` sets a new label (NAME matches labels there).
struct ItemSelector: ParsableArguments {
    @Argument(help: ArgumentHelp("The item: its id (or first 8+ digits), label, service, server (host or pasted URL) or note title.",
                                 valueName: "name"))
    var name: String?

    @Option(help: "The service of a generic password, e.g. github.com (case and accents are ignored).")
    var service: String?

    @Option(help: ArgumentHelp("The server of an internet password: a URL or a host.", valueName: "url"))
    var server: String?

    @Option(help: "The title of a secure note.")
    var title: String?

    @Option(help: ArgumentHelp("The item's id, or its first 8+ hex digits (as `list --json` and error messages show it).", valueName: "id"))
    var id: String?

    @Option(help: "The account; needed when several items share the service or server.")
    var account: String?

    // No validate(): ArgumentParser validates option groups before it reports an unknown
    // option, so a check here would hide "unknown option" behind it. ``itemName()`` checks.

    /// The name given, as the library takes it; a usage error (64) unless exactly one was given.
    /// `label` is `--label` where the command offers it (`offersLabel`).
    func itemName(label: String? = nil, offersLabel: Bool = false) throws -> ItemName {
        var keys: [ItemName.Key] = []
        if let name { keys.append(.anything(name)) }
        if let service { keys.append(.service(service)) }
        if let server {
            _ = try ServerAddress(option: server)   // a usage error for text that is no address
            keys.append(.server(server))
        }
        if let title { keys.append(.title(title)) }
        if let label { keys.append(.label(label)) }
        if let id {
            guard id.count >= ItemName.shortIDLength, id.count <= 32, id.allSatisfy({ $0.isHexDigit }) else {
                throw CLIFailure(.usage, "--id must be 8 to 32 hexadecimal digits")
            }
            keys.append(.id(id))
        }
        guard keys.count == 1, let key = keys.first else {
            throw CLIFailure(.usage, "name the item with exactly one of NAME, --service, --server, --title\(offersLabel ? ", --label" : "") or --id")
        }
        return ItemName(key, account: account)
    }

    /// The one matching item. None -> exit 1; several -> exit 64, listing them by label and short id.
    func resolve(in vault: Vault, label: String? = nil, offersLabel: Bool = false) throws -> Item {
        let name = try itemName(label: label, offersLabel: offersLabel)
        // None is "no match" (1) with the name given; several is the library's
        // ambiguousItem, listing them (64).
        // (Not `catch CofferError.itemNotFound` around `item(named:)`: Swift 6.3 crashes
        // compiling that typed-throws pattern here.)
        let found = try vault.items(named: name)
        guard let first = found.first else { throw CLIFailure(.noMatch, "no item matched \(name)") }
        return found.count == 1 ? first : try vault.item(named: name)
    }
}

/// ``ItemSelector`` plus `--label`: for every item command but `edit`.
struct LabeledItemSelector: ParsableArguments {
    @OptionGroup var selector: ItemSelector

    @Option(help: "The item's label (display name), of any kind; case and accents are ignored.")
    var label: String?

    func itemName() throws -> ItemName { try selector.itemName(label: label, offersLabel: true) }

    func resolve(in vault: Vault) throws -> Item { try selector.resolve(in: vault, label: label, offersLabel: true) }
}

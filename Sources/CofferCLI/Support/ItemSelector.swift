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

    /// The one matching item (``Vault/match(_:)``). None -> exit 1, with the closest items
    /// ("did you mean"); several -> exit 64, listing them with the ways to pick one. An
    /// approximate match (`gith` for `github.com`) says on stderr which item it took; with
    /// `exactOnly` (a change nobody is asked to confirm) it is a usage error (64) instead.
    func resolve(in vault: Vault, label: String? = nil, offersLabel: Bool = false, exactOnly: Bool = false) throws -> Item {
        let name = try itemName(label: label, offersLabel: offersLabel)
        // The suggestions come with a miss, from the same reading of every item.
        let match = try vault.match(name, suggesting: 3)
        guard let first = match.items.first else {
            var message = "no item matched \(name)"
            if !match.suggestions.isEmpty {
                message += "; did you mean " + match.suggestions.map { "\($0.candidateDescription)" }.joined(separator: ", or ") + "?"
            }
            throw CLIFailure(.noMatch, message)
        }
        guard match.items.count == 1 else { throw Self.ambiguity(match.items, name: name) }
        if match.isApproximate {
            guard !exactOnly else {
                throw CLIFailure(.usage, "\(name) only approximately names \(first.candidateDescription): "
                                 + "name it exactly (its id prefix \(first.shortID)), or run without --yes on a terminal to be asked")
            }
            Output.error("coffer: taking \(first.candidateDescription) for \(name)")
        }
        return first
    }

    /// Several items match: each with its kind and short id, and the ways to pick one that
    /// tell them apart (the account when theirs differ, the id prefix always, the kind and
    /// address when those differ).
    static func ambiguity(_ items: [Item], name: ItemName) -> CLIFailure {
        let listed = items.map { "[\($0.shortID)] \($0.candidateDescription.replacingOccurrences(of: " [\($0.shortID)]", with: "")), \($0.kind.rawValue)" }
        var ways: [String] = []
        if name.account == nil, Set(items.map { $0.account ?? "" }).count > 1 { ways.append("--account") }
        ways.append("its id prefix (" + items.map(\.shortID).joined(separator: ", ") + ")")
        let addresses = items.map(address)
        if Set(addresses).count == addresses.count { ways.append("its kind and address (" + addresses.joined(separator: ", ") + ")") }
        return CLIFailure(.usage, "\(items.count) items match \(name): " + listed.joined(separator: "; ")
                          + "; pick one by " + ways.joined(separator: ", or "))
    }

    /// The selector that names an item by its kind and address: `--service S`,
    /// `--server URL` (with its path), `--title T`.
    static func address(_ item: Item) -> String {
        switch item.kind {
        case .genericPassword: return "--service \(item.service ?? "?")"
        case .internetPassword: return "--server \(item.displayName)"
        case .secureNote: return "--title \(item.label ?? "?")"
        }
    }
}

/// ``ItemSelector`` plus `--label`: for every item command but `edit`.
struct LabeledItemSelector: ParsableArguments {
    @OptionGroup var selector: ItemSelector

    @Option(help: "The item's label (display name), of any kind; case and accents are ignored.")
    var label: String?

    func itemName() throws -> ItemName { try selector.itemName(label: label, offersLabel: true) }

    /// For a command whose own argument follows NAME (`attach VAULT NAME FILE`): with an
    /// option naming the item (`--service S FILE`), the one positional given is that
    /// argument, not NAME. Returns the selector and the argument; none is a usage error (64).
    func withTrailingArgument(_ argument: String?, named what: String) throws -> (LabeledItemSelector, String) {
        if let argument { return (self, argument) }
        var selector = self
        let optionGiven = [self.selector.service, self.selector.server, self.selector.title, self.selector.id, label].contains { $0 != nil }
        guard optionGiven, let positional = self.selector.name else {
            throw CLIFailure(.usage, "name the item, then \(what)")
        }
        selector.selector.name = nil
        return (selector, positional)
    }

    func resolve(in vault: Vault, exactOnly: Bool = false) throws -> Item {
        try selector.resolve(in: vault, label: label, offersLabel: true, exactOnly: exactOnly)
    }
}

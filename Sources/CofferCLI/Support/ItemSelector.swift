import ArgumentParser
import Coffer
import Foundation

/// Picks one item: `--service`, `--server`, `--title` or `--id`, narrowed by `--account`.
struct ItemSelector: ParsableArguments {
    @Option(help: "The service of a generic password, e.g. github.com.")
    var service: String?

    @Option(help: ArgumentHelp("The server of an internet password: a URL or a host.", valueName: "url"))
    var server: String?

    @Option(help: "The title of a secure note.")
    var title: String?

    @Option(help: ArgumentHelp("The item's id, as `list --json` shows it.", valueName: "id"))
    var id: String?

    @Option(help: "The account; needed when several items share the service or server.")
    var account: String?

    func validate() throws {
        let given = [service, server, title, id].compactMap { $0 }
        guard given.count == 1 else {
            throw ValidationError("name the item with exactly one of --service, --server, --title or --id")
        }
        if let id, ItemID(hex: id) == nil { throw ValidationError("--id must be 32 hexadecimal digits") }
    }

    /// A short, non-secret description of the selection for messages.
    var summary: String {
        var text: String
        if let service { text = "service \(service)" }
        else if let server { text = "server \(server)" }
        else if let title { text = "note \"\(title)\"" }
        else { text = "id \(id ?? "")" }
        if let account { text += ", account \(account)" }
        return text
    }

    func query() throws -> ItemQuery {
        var query = ItemQuery(account: account)
        if let service {
            query.kind = .genericPassword
            query.service = service
        } else if let server {
            let address = try ServerAddress(option: server)
            query.kind = .internetPassword
            query.server = address.host
            query.protocol = address.scheme
            query.port = address.port
            query.path = address.path
        } else if let title {
            query.kind = .secureNote
            query.label = title
        }
        return query
    }

    /// The one matching item. None -> exit 1; several -> exit 64, asking for --account.
    func resolve(in vault: Vault) throws -> Item {
        if let id, let itemID = ItemID(hex: id) {
            do {
                let item = try vault.item(itemID)
                if let account, item.account != account { throw CLIFailure(.noMatch, "no item matched \(summary)") }
                return item
            } catch CofferError.itemNotFound {
                throw CLIFailure(.noMatch, "no item matched \(summary)")
            }
        }
        let found = try vault.items(matching: try query())
        guard let first = found.first else { throw CLIFailure(.noMatch, "no item matched \(summary)") }
        guard found.count == 1 else {
            let accounts = found.map { $0.account ?? "" }
            let hint = account == nil && Set(accounts).count == accounts.count
                ? "add --account (one of: \(accounts.map { $0.isEmpty ? "\"\"" : $0 }.joined(separator: ", ")))"
                : "use --id (see list --json)"
            throw CLIFailure(.usage, "\(found.count) items match \(summary); \(hint)")
        }
        return first
    }
}

import ArgumentParser
import Coffer
import Foundation

extension ServerAddress {
    /// `--server` as given: a URL such as `https://example.com:8443/login`, or a bare host.
    init(option text: String) throws {
        do {
            try self.init(parsing: text, bareText: .host)
        } catch .portOutOfRange {
            throw CLIFailure(.usage, "the port in \(text) is out of range")
        } catch .noHost {
            throw CLIFailure(.usage, "--server needs a URL such as https://example.com/login or a host name, got \(text)")
        }
    }

    /// The text of `--server` when it is a URL: kept in the item's `urls`.
    static func link(_ text: String) -> String? { text.contains("://") ? text : nil }
}

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

/// `--field NAME=VALUE` (non-secret custom fields).
func parseFieldAssignments(_ assignments: [String]) throws -> [CustomField] {
    try assignments.map { text in
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw CLIFailure(.usage, "--field needs NAME=VALUE, got \(text)")
        }
        return CustomField(name: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
    }
}

/// Reads each `--secret-field NAME` value: prompted on a terminal, else the next line of stdin.
func readSecretFields(_ names: [String]) throws -> [SecretField] {
    try names.map { name in
        guard !name.isEmpty else { throw CLIFailure(.usage, "--secret-field needs a name") }
        let value = try SecretReader.next(prompt: "Value of secret field \(name): ", what: "the value of secret field \(name)")
        return SecretField(name: name, value: value)
    }
}

/// An item in messages: its kind, name and account ("generic-password github.com (octocat)").
func itemPhrase(_ item: Item) -> String {
    "\(item.kind.rawValue) \(item.displayName)\(item.account.map { " (\($0))" } ?? "")"
}

/// The documented JSON object of an item in `list` and `search`: attributes only,
/// as the library writes it (``ItemJSON/writeAttributes(of:to:)``).
func itemJSON(_ item: Item) -> JSONValue { .item(item) }

/// Prints items as aligned columns (NAME, ACCOUNT, KIND, TAGS), or as JSON.
func printItems(_ items: [Item], json: Bool) throws {
    if json {
        try JSONValue.array(items.map(itemJSON)).print()
        return
    }
    let header = ["NAME", "ACCOUNT", "KIND", "TAGS"]
    guard !items.isEmpty else { return }
    let rows = items.map { item in
        let a = item.attributes
        // Names are shown with control characters escaped: a name may hold ESC sequences.
        return [Output.visible(a.isFavorite ? "* " + item.displayName : item.displayName),
                Output.visible(a.account ?? ""),
                a.kind.rawValue,
                Output.visible(a.tags.isEmpty ? "" : a.tags.map { "#" + $0 }.joined(separator: " "))]
    }
    // Widths in characters, as a terminal shows them; ASCII cells (the usual case) are
    // measured by their byte count, which is the same and far cheaper.
    func width(_ cell: String) -> Int { cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count }
    var widths = header.map(\.count)
    var cellWidths = [Int]()
    cellWidths.reserveCapacity(rows.count * header.count)
    for row in rows {
        for (index, cell) in row.enumerated() {
            let cellWidth = width(cell)
            cellWidths.append(cellWidth)
            widths[index] = max(widths[index], cellWidth)
        }
    }
    // Rows are built as bytes and written 64 KiB at a time: listing 100,000 items spent
    // most of its time here when each cell went through Foundation's padding and
    // trimming (bridged through NSString) and each row was its own write.
    var out: [UInt8] = []
    out.reserveCapacity(1 << 16)
    func append(_ row: [String], widthsOf: (Int) -> Int) throws {
        let lineStart = out.count
        for (index, cell) in row.enumerated() {
            if index > 0 { out.append(0x20); out.append(0x20) }
            out.append(contentsOf: cell.utf8)
            if index < row.count - 1 {
                out.append(contentsOf: repeatElement(UInt8(0x20), count: max(0, widths[index] - widthsOf(index))))
            }
        }
        // Trailing blanks (padding before an empty last cell) go; leading blanks, or
        // anything not ASCII at either end, take the general trim.
        while out.count > lineStart, out[out.count - 1] == 0x20 || out[out.count - 1] == 0x09 { out.removeLast() }
        if out.count > lineStart, out[lineStart] == 0x20 || out[lineStart] == 0x09 || out[lineStart] >= 0x80 || out[out.count - 1] >= 0x80 {
            let line = String(decoding: out[lineStart...], as: UTF8.self)
            out.removeSubrange(lineStart...)
            out.append(contentsOf: trimmingSpaces(line).utf8)
        }
        out.append(0x0A)
        if out.count >= 1 << 16 { try flush() }
    }
    func flush() throws {
        try out.withUnsafeBytes { try Output.bytes($0) }
        out.removeAll(keepingCapacity: true)
    }
    try append(header) { header[$0].count }
    for (rowIndex, row) in rows.enumerated() {
        try append(row) { cellWidths[rowIndex * header.count + $0] }
    }
    try flush()
}

/// `text` without leading and trailing spaces and tabs (what `.whitespaces` trims:
/// Unicode category Zs and U+0009).
private func trimmingSpaces(_ text: String) -> String {
    func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
    if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return text }
    return String(scalars[first...last])
}

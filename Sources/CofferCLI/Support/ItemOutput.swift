import Coffer
import Foundation

/// The documented JSON object of an item in `list` and `search`: attributes only,
/// as the library writes it (``ItemJSON/writeAttributes(of:to:)``).
func itemJSON(_ item: Item) -> JSONValue { .item(item) }

/// The members that name an item in `get --json` and `history --json`.
func itemIdentityMembers(_ item: Item) -> [(String, JSONValue)] {
    [("id", .string(item.id.hex)), ("kind", .string(item.kind.rawValue)), ("label", .optional(item.label)),
     ("service", .optional(item.service)), ("account", .optional(item.account)), ("server", .optional(item.server))]
}

/// Prints items as aligned columns (NAME, ACCOUNT, KIND, TAGS), or as JSON.
func printItems(_ items: [Item], json: Bool) throws {
    if json {
        try JSONValue.array(items.map(itemJSON)).print()
        return
    }
    try printTable(items.lazy.map { item in
        let a = item.attributes
        return tableRow(name: a.listedName, account: a.account, kind: a.kind, tags: a.tags, isFavorite: a.isFavorite)
    })
}

/// ``printItems(_:json:)`` for a listing read from the overviews (``ItemListing``): the
/// table's cells come from each row's bytes, and JSON is written row by row, each item
/// decoded only while it is written (the same bytes as the array of items would give).
func printListing(_ rows: some Collection<ListedItem>, json: Bool) throws {
    if json {
        let out = WipingBuffer(capacity: 1 << 16)
        defer { out.removeAll() }
        out.append(UInt8(ascii: "["))
        for (index, row) in rows.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            try JSONValue.item(try row.item()).write(to: out)
            if out.count >= 1 << 16 {
                try Output.bytes(out.bytes)
                out.removeAll()
            }
        }
        out.append(UInt8(ascii: "]"))
        out.append(10)
        try Output.bytes(out.bytes)
        return
    }
    try printTable(rows.lazy.map { row in
        tableRow(name: row.listedName, account: row.account, kind: row.kind, tags: row.tags, isFavorite: row.isFavorite)
    })
}

/// One row of the listing table. The label you gave first, then the service or address
/// that `get` takes (``ItemAttributes/listedName``). Control characters are escaped: a
/// name may hold ESC sequences.
private func tableRow(name: String, account: String?, kind: ItemKind, tags: [String], isFavorite: Bool) -> [String] {
    [Output.visible(isFavorite ? "* " + name : name),
     Output.visible(account ?? ""),
     kind.rawValue,
     Output.visible(tags.isEmpty ? "" : tags.map { "#" + $0 }.joined(separator: " "))]
}

/// Prints rows of cells as aligned columns under NAME, ACCOUNT, KIND, TAGS (nothing for no rows).
///
/// Each row's cells are made once, as the rows are read, and kept as bytes in one buffer
/// until the widths are known: 100,000 rows kept as arrays of strings took 25 MB.
private func printTable(_ rows: some Sequence<[String]>) throws {
    let header = ["NAME", "ACCOUNT", "KIND", "TAGS"]
    // Widths in characters, as a terminal shows them; ASCII cells (the usual case) are
    // measured by their byte count, which is the same and far cheaper.
    func width(_ cell: String) -> Int {
        let ascii = cell.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? cell.utf8.allSatisfy { $0 < 0x80 }
        return ascii ? cell.utf8.count : cell.count
    }
    var widths = header.map(\.count)
    var text: [UInt8] = []
    // Per cell: its length in bytes and its width (one item's field: far below 4 GiB).
    var cellLengths: [UInt32] = [], cellWidths: [UInt32] = []
    let expected = rows.underestimatedCount
    cellLengths.reserveCapacity(expected * header.count)
    cellWidths.reserveCapacity(expected * header.count)
    for (rowIndex, row) in rows.enumerated() {
        // Room for every row at the size of the first thousand (doubling as it grows left up to
        // half of a large table's buffer unused).
        if rowIndex == 1024, expected > rowIndex { text.reserveCapacity(text.count / rowIndex * expected * 9 / 8) }
        for (index, cell) in row.enumerated() {
            let start = text.count
            if cell.utf8.withContiguousStorageIfAvailable({ text.append(contentsOf: $0) }) == nil { text.append(contentsOf: cell.utf8) }
            let cellWidth = width(cell)
            cellLengths.append(UInt32(text.count - start))
            cellWidths.append(UInt32(truncatingIfNeeded: cellWidth))
            widths[index] = max(widths[index], cellWidth)
        }
    }
    guard !cellLengths.isEmpty else { return }
    // Rows are built as bytes and written 64 KiB at a time: listing 100,000 items spent
    // most of its time here when each cell went through Foundation's padding and
    // trimming (bridged through NSString) and each row was its own write.
    var out: [UInt8] = []
    out.reserveCapacity(1 << 16)
    func append(cells: Int, _ cell: (Int) -> (bytes: ArraySlice<UInt8>, width: Int)) throws {
        let lineStart = out.count
        for index in 0..<cells {
            if index > 0 { out.append(0x20); out.append(0x20) }
            let (bytes, cellWidth) = cell(index)
            out.append(contentsOf: bytes)
            if index < cells - 1 {
                out.append(contentsOf: repeatElement(UInt8(0x20), count: max(0, widths[index] - cellWidth)))
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
    try append(cells: header.count) { (ArraySlice(header[$0].utf8), header[$0].count) }
    var start = 0
    for row in 0..<(cellLengths.count / header.count) {
        try append(cells: header.count) { index in
            let cell = row * header.count + index
            let end = start + Int(cellLengths[cell])
            defer { start = end }
            return (text[start..<end], Int(cellWidths[cell]))
        }
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

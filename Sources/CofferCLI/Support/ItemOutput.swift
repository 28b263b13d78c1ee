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
func printListing<Rows: RandomAccessCollection>(_ rows: Rows, json: Bool) throws where Rows.Element == ListedItem, Rows.Index == Int {
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

/// The cells of some rows as the table keeps them until the widths are known: their bytes
/// back to back, each cell's length in bytes and its width, and each column's widest cell.
/// 100,000 rows kept as arrays of strings took 25 MB.
private struct TableCells {
    var text: [UInt8] = []
    // Per cell (one item's field: far below 4 GiB).
    var lengths: [UInt32] = [], widths: [UInt32] = []
    var columns: [Int]

    init(columns: Int, rows: Int) {
        self.columns = Array(repeating: 0, count: columns)
        lengths.reserveCapacity(rows * columns)
        widths.reserveCapacity(rows * columns)
    }

    // Widths in characters, as a terminal shows them; ASCII cells (the usual case) are
    // measured by their byte count, which is the same and far cheaper.
    private static func width(_ cell: String) -> Int {
        let ascii = cell.utf8.withContiguousStorageIfAvailable { !$0.contains { $0 >= 0x80 } } ?? cell.utf8.allSatisfy { $0 < 0x80 }
        return ascii ? cell.utf8.count : cell.count
    }

    /// Rows `range` of `rows`.
    init<Rows: RandomAccessCollection>(_ rows: Rows, _ range: Range<Int>, columns: Int) where Rows.Element == [String], Rows.Index == Int {
        self.init(columns: columns, rows: range.count)
        for rowIndex in range {
            // Room for every row at the size of the first thousand (doubling as it grows left up to
            // half of a large table's buffer unused).
            let done = rowIndex - range.lowerBound
            if done == 1024, range.count > done { text.reserveCapacity(text.count / done * range.count * 9 / 8) }
            for (index, cell) in rows[rowIndex].enumerated() {
                let start = text.count
                if cell.utf8.withContiguousStorageIfAvailable({ text.append(contentsOf: $0) }) == nil { text.append(contentsOf: cell.utf8) }
                let cellWidth = Self.width(cell)
                lengths.append(UInt32(text.count - start))
                widths.append(UInt32(truncatingIfNeeded: cellWidth))
                self.columns[index] = max(self.columns[index], cellWidth)
            }
        }
    }
}

/// The cells of `rows`, a range of rows per core for a large table (making a row's cells,
/// its strings and their escapes, was most of a 100,000-row listing's time after its order).
/// @unchecked: each range writes only its own slot, read once every range is done.
private final class TableCellRanges<Rows: RandomAccessCollection>: @unchecked Sendable where Rows.Element == [String], Rows.Index == Int {
    private let rows: Rows
    private let columns: Int
    private let ranges: [Range<Int>]
    private let slots: UnsafeMutableBufferPointer<TableCells?>

    init(_ rows: Rows, columns: Int) {
        self.rows = rows
        self.columns = columns
        // Below this many rows a second thread costs more than it saves.
        let count = rows.count, chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, count / 4_096))
        ranges = (0..<chunks).map { (count * $0 / chunks)..<(count * ($0 + 1) / chunks) }
        slots = .allocate(capacity: chunks)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    /// Every range's cells, in order.
    func make() -> [TableCells] {
        if ranges.count == 1 { return [TableCells(rows, ranges[0], columns: columns)] }
        DispatchQueue.concurrentPerform(iterations: ranges.count) { chunk in
            slots[chunk] = TableCells(rows, ranges[chunk], columns: columns)
        }
        return slots.compactMap { $0 }
    }
}

/// Prints rows of cells as aligned columns under NAME, ACCOUNT, KIND, TAGS (nothing for no rows).
private func printTable<Rows: RandomAccessCollection>(_ rows: Rows) throws where Rows.Element == [String], Rows.Index == Int {
    let header = ["NAME", "ACCOUNT", "KIND", "TAGS"]
    let parts = TableCellRanges(rows, columns: header.count).make()
    var widths = header.map(\.count)
    for part in parts { widths = zip(widths, part.columns).map { max($0, $1) } }
    guard parts.contains(where: { !$0.lengths.isEmpty }) else { return }
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
    for part in parts {
        var start = 0
        for row in 0..<(part.lengths.count / header.count) {
            try append(cells: header.count) { index in
                let cell = row * header.count + index
                let end = start + Int(part.lengths[cell])
                defer { start = end }
                return (part.text[start..<end], Int(part.widths[cell]))
            }
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

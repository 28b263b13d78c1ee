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
    try printTable(count: items.count) { index, cells in
        let a = items[index].attributes
        var name = a.listedName
        name.withUTF8 { name in
            cells.appendRow(name: UnsafeRawBufferPointer(name), isFavorite: a.isFavorite, kind: a.kind) { body in
                guard var account = a.account else { return body(nil) }
                account.withUTF8 { body(UnsafeRawBufferPointer($0)) }
            } tags: { body in
                for var tag in a.tags { tag.withUTF8 { body(UnsafeRawBufferPointer($0)) } }
            }
        }
    }
}

/// ``printItems(_:json:)`` for a listing read from the overviews (``ItemListing``): the
/// table's cells come from each row's bytes, and JSON is written row by row, each item
/// decoded only while it is written (the same bytes as the array of items would give).
func printListing(_ rows: ItemListing, json: Bool) throws {
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
    // Each cell's bytes straight from the row's overview, read where the row is
    // (``ItemListing/withRowText(at:_:)``): a string per cell, its escape and its row array
    // were most of the table's time, and a copy of each row retained its overview, an atomic
    // write to memory that reading order reaches cold, so each row's miss waited for the last
    // (100,000 rows: 17 ms, 7 ms without the copies and with the overviews asked for ahead).
    try printTable(count: rows.count) { index, cells in
        rows.withRowText(at: index) { name, account, isFavorite, kind, tags in
            cells.appendRow(name: name, isFavorite: isFavorite, kind: kind, account: { $0(account) }, tags: tags)
        }
    }
}

/// The cells of some rows as the table keeps them until the widths are known: their bytes
/// back to back, each cell's length in bytes and its width, and each column's widest cell.
/// 100,000 rows kept as arrays of strings took 25 MB.
private struct TableCells {
    var text: [UInt8] = []
    // Per cell (one item's field: far below 4 GiB).
    var lengths: [UInt32] = [], widths: [UInt32] = []
    var columns: [Int]
    /// Where the cell being written starts in `text`, and its column.
    private var cellStart = 0, column = 0
    // Room for every row at the size of the first thousand (doubling as it grows left up to
    // half of a large table's buffer unused).
    private var rowsStarted = 0
    private let expectedRows: Int

    init(columns: Int, rows: Int) {
        self.columns = Array(repeating: 0, count: columns)
        expectedRows = rows
        lengths.reserveCapacity(rows * columns)
        widths.reserveCapacity(rows * columns)
    }

    /// Ends the cell begun after the previous one: its length, and its width in characters
    /// as a terminal shows them; an ASCII cell (the usual case) is measured by its byte
    /// count, which is the same and far cheaper.
    mutating func endCell() {
        let length = text.count - cellStart
        let width = text.withUnsafeBytes { all in
            let cell = UnsafeRawBufferPointer(rebasing: all[cellStart...])
            return isASCII(cell) ? length : String(decoding: cell, as: UTF8.self).count
        }
        lengths.append(UInt32(length))
        widths.append(UInt32(truncatingIfNeeded: width))
        if width > columns[column] { columns[column] = width }
        column = column + 1 == columns.count ? 0 : column + 1
        cellStart = text.count
    }

    /// Appends one row of the listing table (NAME, ACCOUNT, KIND, TAGS): the name you gave
    /// first, then the service or address that `get` takes (``ItemAttributes/listedName``),
    /// `* ` before a favorite's, the tags as `#tag`. Control characters are escaped
    /// (``Output/appendVisible(_:to:)``): a name may hold ESC sequences.
    mutating func appendRow(name: UnsafeRawBufferPointer, isFavorite: Bool, kind: ItemKind,
                            account: ((UnsafeRawBufferPointer?) -> Void) -> Void,
                            tags: ((UnsafeRawBufferPointer) -> Void) -> Void) {
        if rowsStarted == 1024 { text.reserveCapacity(text.count / rowsStarted * expectedRows * 9 / 8) }
        rowsStarted += 1
        if isFavorite { text.append(contentsOf: "* ".utf8) }
        Output.appendVisible(name, to: &text)
        endCell()
        account { if let account = $0 { Output.appendVisible(account, to: &text) } }
        endCell()
        var kindName = kind.rawValue
        kindName.withUTF8 { text.append(contentsOf: $0) }
        endCell()
        var first = true
        tags { tag in
            text.append(contentsOf: first ? "#".utf8 : " #".utf8)
            first = false
            Output.appendVisible(tag, to: &text)
        }
        endCell()
    }
}

/// The cells of `count` rows, each written by `row`, a range of rows per core for a large
/// table (making a row's cells, their escapes and widths, was most of a 100,000-row
/// listing's time after its order).
/// @unchecked: each range writes only its own slot, read once every range is done.
private final class TableCellRanges: @unchecked Sendable {
    private let row: @Sendable (Int, inout TableCells) -> Void
    private let columns: Int
    private let ranges: [Range<Int>]
    private let slots: UnsafeMutableBufferPointer<TableCells?>

    init(count: Int, columns: Int, row: @escaping @Sendable (Int, inout TableCells) -> Void) {
        self.row = row
        self.columns = columns
        // Below this many rows a second thread costs more than it saves.
        let chunks = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8, count / 4_096))
        ranges = (0..<chunks).map { (count * $0 / chunks)..<(count * ($0 + 1) / chunks) }
        slots = .allocate(capacity: chunks)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    private func cells(_ range: Range<Int>) -> TableCells {
        var cells = TableCells(columns: columns, rows: range.count)
        for index in range { row(index, &cells) }
        return cells
    }

    /// Every range's cells, in order.
    func make() -> [TableCells] {
        if ranges.count == 1 { return [cells(ranges[0])] }
        DispatchQueue.concurrentPerform(iterations: ranges.count) { chunk in
            slots[chunk] = cells(ranges[chunk])
        }
        return slots.compactMap { $0 }
    }
}

/// Prints `count` rows as aligned columns under NAME, ACCOUNT, KIND, TAGS (nothing for no
/// rows), each row's cells written by `row` (``TableCells/appendRow(name:isFavorite:kind:account:tags:)``).
private func printTable(count: Int, row: @escaping @Sendable (Int, inout TableCells) -> Void) throws {
    let header = ["NAME", "ACCOUNT", "KIND", "TAGS"]
    let parts = TableCellRanges(count: count, columns: header.count, row: row).make()
    var widths = header.map(\.count)
    for part in parts { widths = zip(widths, part.columns).map { max($0, $1) } }
    guard parts.contains(where: { !$0.lengths.isEmpty }) else { return }
    var writer = TableWriter(widths: widths)
    let headerText = Array(header.joined().utf8), headerLengths = header.map { UInt32($0.utf8.count) }
    try headerText.withUnsafeBytes { text in
        try headerLengths.withUnsafeBufferPointer { try writer.line(text, lengths: $0, widths: $0) }
    }
    for part in parts {
        try part.text.withUnsafeBytes { text in
            try part.lengths.withUnsafeBufferPointer { lengths in
                try part.widths.withUnsafeBufferPointer { widths in
                    var start = 0
                    for first in stride(from: 0, to: lengths.count, by: header.count) {
                        let cells = first..<(first + header.count)
                        var length = 0
                        for cell in cells { length += Int(lengths[cell]) }
                        try writer.line(UnsafeRawBufferPointer(rebasing: text[start..<(start + length)]),
                                        lengths: UnsafeBufferPointer(rebasing: lengths[cells]), widths: UnsafeBufferPointer(rebasing: widths[cells]))
                        start += length
                    }
                }
            }
        }
    }
    try writer.flush()
}

/// The table's lines as bytes, written 64 KiB at a time: listing 100,000 items spent most
/// of its time here when each cell went through Foundation's padding and trimming
/// (bridged through NSString) and each row was its own write. A type of its own: a
/// buffer captured by nested functions is checked for exclusive access at every use.
struct TableWriter {
    /// The lines not written yet.
    private(set) var out: [UInt8] = []
    private let widths: [Int]

    init(widths: [Int]) {
        self.widths = widths
        out.reserveCapacity(1 << 16)
    }

    /// One line: `cells` back to back (their `lengths` in bytes, their `widths` in
    /// characters), each padded to its column's width but the last, two spaces apart, without
    /// blanks at either end. The line is made in a buffer on the stack and appended at once
    /// (appended cell by cell and padding by padding it cost 1,200 instructions a row).
    mutating func line(_ cells: UnsafeRawBufferPointer, lengths: UnsafeBufferPointer<UInt32>, widths cellWidths: UnsafeBufferPointer<UInt32>) throws {
        var capacity = 0
        for index in 0..<lengths.count {
            capacity += 2 + Int(lengths[index]) + max(0, padding(index, cellWidths))
        }
        withUnsafeTemporaryAllocation(byteCount: capacity, alignment: 1) { line in
            var at = 0, start = 0
            for index in 0..<lengths.count {
                if index > 0 {
                    line[at] = 0x20
                    line[at + 1] = 0x20
                    at += 2
                }
                let length = Int(lengths[index])
                if length > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: line[at..<(at + length)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: cells[start..<(start + length)]))
                }
                at += length
                start += length
                let pad = padding(index, cellWidths)
                if pad > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: line[at..<(at + pad)]).initializeMemory(as: UInt8.self, repeating: 0x20)
                    at += pad
                }
            }
            // Trailing blanks (padding before an empty last cell) go; leading blanks, or
            // anything not ASCII at either end, take the general trim.
            while at > 0, line[at - 1] == 0x20 || line[at - 1] == 0x09 { at -= 1 }
            let bytes = UnsafeRawBufferPointer(rebasing: line[..<at])
            if at > 0, bytes[0] == 0x20 || bytes[0] == 0x09 || bytes[0] >= 0x80 || bytes[at - 1] >= 0x80 {
                out.append(contentsOf: trimmingSpaces(String(decoding: bytes, as: UTF8.self)).utf8)
            } else {
                out.append(contentsOf: bytes)
            }
        }
        out.append(0x0A)
        if out.count >= 1 << 16 { try flush() }
    }

    /// The spaces after cell `index` to its column's width (none after the last column).
    private func padding(_ index: Int, _ cellWidths: UnsafeBufferPointer<UInt32>) -> Int {
        index < widths.count - 1 ? widths[index] - Int(cellWidths[index]) : 0
    }

    mutating func flush() throws {
        try out.withUnsafeBytes { try Output.bytes($0) }
        out.removeAll(keepingCapacity: true)
    }
}

/// Whether `bytes` are all ASCII, 8 at a time: every cell of a large table is measured.
private func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    var high: UInt64 = 0
    while index + 8 <= bytes.count {
        high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
    }
    while index < bytes.count {
        high |= UInt64(bytes[index])
        index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
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

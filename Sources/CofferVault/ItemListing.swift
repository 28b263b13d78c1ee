import CofferCrypto
import CofferFormat
import Foundation

/// A listing read straight from the items' overviews (``Vault/listing(matching:locale:)``):
/// each row reads its name, account, kind and tags from the overview's bytes as it is
/// printed, and decodes the whole item only when asked (``ListedItem/item()``). A large
/// vault's `coffer list` so builds no ``Item`` per row, nor an array of them.
///
/// Rows are in reading order (``Swift/Sequence/sortedForReading(locale:)``), the same
/// order and the same items as `readableItems(matching:).items.sortedForReading()`.
///
/// ```swift
/// let listing = try vault.listing()
/// for row in listing { print(row.listedName, row.account ?? "") }
/// if !listing.damaged.isEmpty { print("\(listing.damaged.count) damaged entries") }
/// ```
public struct ItemListing: RandomAccessCollection, Sendable {
    let rows: [ListedItem]
    /// The damaged records (SPEC.md §10): nothing is read from them.
    public let damaged: [DamagedItem]

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> ListedItem { rows[position] }
}

/// One row of an ``ItemListing``: the item's id and revision, and what a listing shows,
/// read from its overview field list (SPEC.md §7.2) without decoding the item.
///
/// ```swift
/// for row in try vault.listing() where row.isFavorite { print("*", row.listedName) }
/// ```
public struct ListedItem: Sendable {
    public let id: ItemID
    public let revision: UInt64
    private let source: Source

    // The field ranges in the row itself, not in a box: a table reads its rows in reading
    // order, far from the order they were made in, and a box was one more cache miss a row
    // (a 100,000-row listing 6-13 ms slower, 14-27 ms more CPU, for 1.5 MB less). Rows are
    // moved, not copied, into that order (``DisplayOrder/readingRows(of:locale:)``).
    private enum Source: Sendable {
        /// A checked overview list and where its fields are.
        case overview([UInt8], OverviewFields)
        /// An item decoded already (a listing with pending changes, or a list of unusual shape).
        indirect case item(Item)
    }

    /// A row from a checked overview list; nil when its bytes are not in the usual shape
    /// (the caller then lists decoded items).
    init?(id: ItemID, revision: UInt64, overview: [UInt8]) {
        guard let fields = overview.withUnsafeBytes({ OverviewFields($0) }), ItemKind(code: fields.kind) != nil else { return nil }
        self.id = id
        self.revision = revision
        source = .overview(overview, fields)
    }

    init(item: Item) {
        id = item.id
        revision = item.revision
        source = .item(item)
    }

    private func text(_ field: (OverviewFields) -> Range<Int>?, _ attribute: (ItemAttributes) -> String?) -> String? {
        switch source {
        case .overview(let list, let fields):
            guard let range = field(fields) else { return nil }
            return list.withUnsafeBytes { OverviewFields.string(range, in: $0) }
        case .item(let item): return attribute(item.attributes)
        }
    }

    public var kind: ItemKind {
        switch source {
        case .overview(_, let fields): return ItemKind(code: fields.kind) ?? .genericPassword
        case .item(let item): return item.attributes.kind
        }
    }

    public var label: String? { text(\.label, \.label) }
    public var service: String? { text(\.service, \.service) }
    public var server: String? { text(\.server, \.server) }
    public var account: String? { text(\.account, \.account) }

    public var isFavorite: Bool {
        switch source {
        case .overview(_, let fields): return fields.isFavorite
        case .item(let item): return item.attributes.isFavorite
        }
    }

    public var tags: [String] {
        switch source {
        case .overview(let list, let fields): return list.withUnsafeBytes { raw in fields.tags.map { OverviewFields.string($0, in: raw) } }
        case .item(let item): return item.attributes.tags
        }
    }

    /// ``ItemAttributes/sortName``: the label, else the service, else the server.
    var sortName: String? { ItemAttributes.sortName(label: label, service: service, server: server) }

    /// `body` with the UTF-8 of ``sortName`` and of ``account`` (empty when absent): read in
    /// place from the overview, so that ordering a listing makes no string per row.
    func withSortKeyUTF8<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        switch source {
        case .overview(let list, let fields):
            return list.withUnsafeBytes { raw in
                func bytes(_ range: Range<Int>?) -> UnsafeRawBufferPointer {
                    range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
                }
                return body(bytes(ItemAttributes.sortName(label: fields.label, service: fields.service, server: fields.server)), bytes(fields.account))
            }
        case .item(let item):
            var name = item.attributes.sortName ?? "", account = item.attributes.account ?? ""
            return name.withUTF8 { name in account.withUTF8 { account in body(UnsafeRawBufferPointer(name), UnsafeRawBufferPointer(account)) } }
        }
    }

    /// ``ItemAttributes/listedName``: the label, with the service or address after it when they differ.
    public var listedName: String { withListedNameUTF8 { String(decoding: $0, as: UTF8.self) } }

    /// Calls `body` with the UTF-8 of ``listedName``: in place in the overview when it is one
    /// field (a service without a label, the usual row), else composed in a buffer; the
    /// bytes are valid only inside `body`. A large listing's table so makes no string per row.
    ///
    /// ```swift
    /// let width = row.withListedNameUTF8 { $0.count }   // bytes, not characters
    /// ```
    public func withListedNameUTF8<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch source {
        case .overview(let list, let fields):
            return list.withUnsafeBytes { raw in
                func text(_ range: Range<Int>?) -> UnsafeRawBufferPointer? { range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } }
                if let field = ItemNameText.listedNameField(kind: kind, label: text(fields.label), service: text(fields.service)) {
                    return body(field)
                }
                var name: [UInt8] = []
                ItemNameText.appendListedName(kind: kind, label: text(fields.label), service: text(fields.service), server: text(fields.server),
                                              protocol: text(fields.protocol), port: fields.port, path: text(fields.path), to: &name)
                return name.withUnsafeBytes(body)
            }
        case .item(let item):
            var name = item.attributes.listedName
            return name.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Calls `body` with the UTF-8 of ``account`` (nil when absent), in place in the overview;
    /// the bytes are valid only inside `body`.
    ///
    /// ```swift
    /// let hasAccount = row.withAccountUTF8 { $0 != nil }
    /// ```
    public func withAccountUTF8<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        switch source {
        case .overview(let list, let fields):
            return list.withUnsafeBytes { raw in body(fields.account.map { UnsafeRawBufferPointer(rebasing: raw[$0]) }) }
        case .item(let item):
            guard var account = item.attributes.account else { return body(nil) }
            return account.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Calls `body` with the UTF-8 of each of ``tags``, in order, in place in the overview;
    /// the bytes are valid only inside `body`.
    ///
    /// ```swift
    /// var count = 0
    /// row.forEachTagUTF8 { _ in count += 1 }
    /// ```
    public func forEachTagUTF8(_ body: (UnsafeRawBufferPointer) -> Void) {
        switch source {
        case .overview(let list, let fields):
            list.withUnsafeBytes { raw in
                for range in fields.tags { body(UnsafeRawBufferPointer(rebasing: raw[range])) }
            }
        case .item(let item):
            for var tag in item.attributes.tags { tag.withUTF8 { body(UnsafeRawBufferPointer($0)) } }
        }
    }

    /// The whole item, decoded from its overview (no secret is decrypted).
    public func item() throws(CofferError) -> Item {
        switch source {
        case .overview(let list, _):
            return Item(id: id, revision: revision, attributes: try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(list) })
        case .item(let item): return item
        }
    }
}

extension Vault {
    /// The items matching `query` as a listing read from their overviews (``ItemListing``),
    /// in reading order for `locale`, with the damaged records named apart: what
    /// `readableItems(matching:)` lists, sorted for reading, without an ``Item`` per row.
    ///
    /// ```swift
    /// for row in try vault.listing(matching: ItemQuery(tag: "work")) { print(row.listedName) }
    /// ```
    public func listing(matching query: ItemQuery = .all, locale: Locale = .current) throws(CofferError) -> ItemListing {
        try read(openingEveryOverview: true) { (tx) throws(CofferError) in try tx.listing(matching: query, locale: locale) }
    }
}

extension DisplayOrder {
    /// `rows`, in stable order, put in reading order (as ``Swift/Sequence/sortedForReading(locale:)``
    /// puts items): ties keep the stable order. Returned as they are when already in order.
    static func readingOrder(_ rows: [ListedItem], locale: Locale) -> [ListedItem] {
        guard rows.count > 1 else { return rows }
        // Each range of rows folded on a core of its own, then one buffer.
        var parts = ParallelWork.mapRanges(count: rows.count) { range -> ReadingKeys in
            var keys = ReadingKeys(capacity: range.count)
            for index in range { rows[index].withSortKeyUTF8 { keys.append(nameUTF8: $0, accountUTF8: $1, locale: locale) } }
            return keys
        }
        let keys = ReadingKeys(merging: &parts)
        let tie = { (a: Int, b: Int) in a < b }
        if keys.isInOrder(tie: tie) { return rows }
        return keys.order(tie: tie).map { rows[$0] }
    }

    /// The rows of `entries` (checked overviews, in any order) in reading order, ties in the
    /// stable order: what ``sort(overviews:id:list:)`` then ``readingOrder(_:locale:)`` give,
    /// with each overview read once. A range of entries per core makes its rows, their
    /// reading keys and their sorted run; the runs are merged into the rows' one order. Nil
    /// when a list is not in the usual shape.
    static func readingRows(of entries: [SnapshotEntry], locale: Locale) -> [ListedItem]? {
        // Sorted where made (the keys are in that core's cache), and moved straight from the
        // ranges into the result: the ranges' rows and keys are never copied into one
        // buffer, and no row is retained again (a copy of each, then rows copied by index
        // in reading order, a cache miss per row on its box, took a 100,000-row listing 20 ms).
        let made = ParallelWork.mapRanges(count: entries.count) { range -> ReadingRun? in
            let run = ReadingRun(capacity: range.count)
            for index in range {
                let entry = entries[index]
                guard let row = ListedItem(id: entry.record.id, revision: entry.record.revision, overview: entry.overview) else {
                    run.discard()
                    return nil
                }
                row.withSortKeyUTF8 { run.keys.append(nameUTF8: $0, accountUTF8: $1, locale: locale) }
                run.append(row)
            }
            run.order = run.keys.sorted(0..<run.count) { precedes(run[$0], run[$1]) }
            return run
        }
        let runs = made.compactMap { $0 }
        guard runs.count == made.count else {
            for run in runs { run.discard() }
            return nil
        }
        return [ListedItem](unsafeUninitializedCapacity: entries.count) { buffer, count in
            guard let base = buffer.baseAddress else {   // no entries
                for run in runs { run.discard() }
                return
            }
            ReadingKeys.merge(runs.map(\.order), less: { x, a, y, b in
                if let order = ReadingKeys.byPrefix(a, b) { return order }
                return runs[x].keys.precedes(a.index, runs[y].keys, b.index) ?? precedes(runs[x][a.index], runs[y][b.index])
            }) { position, run, index in
                runs[run].move(index, to: base + position)
            }
            count = entries.count
            for run in runs { run.release() }
        }
    }

    /// One core's rows for ``readingRows(of:locale:)``, their reading keys and their order:
    /// rows made in place, then each moved out once by the merge.
    /// @unchecked: made on one thread, then read and moved on the merging thread only.
    private final class ReadingRun: @unchecked Sendable {
        private let rows: UnsafeMutablePointer<ListedItem>
        private(set) var count = 0
        var keys: ReadingKeys
        var order: [ReadingKeys.Keyed] = []

        init(capacity: Int) {
            rows = .allocate(capacity: max(1, capacity))
            keys = ReadingKeys(capacity: capacity)
        }

        func append(_ row: ListedItem) {
            (rows + count).initialize(to: row)
            count += 1
        }

        subscript(index: Int) -> ListedItem { rows[index] }

        /// Moves row `index` to `target` (uninitialized); each row is moved once, then ``release()``.
        func move(_ index: Int, to target: UnsafeMutablePointer<ListedItem>) {
            target.moveInitialize(from: rows + index, count: 1)
        }

        /// The storage let go after every row was moved out.
        func release() { rows.deallocate() }

        /// The rows let go unmoved (a list not in the usual shape).
        func discard() {
            rows.deinitialize(count: count)
            rows.deallocate()
        }
    }

    /// The stable order of two rows (code points of the NFC name and account, then the id),
    /// for ties in the reading order; items compare through it too (``precedes(_:_:)``).
    static func precedes(_ a: ListedItem, _ b: ListedItem) -> Bool {
        func comparable(_ utf8: UnsafeRawBufferPointer) -> [UInt8] {
            utf8.allSatisfy { $0 < 0x80 } ? Array(utf8) : Array(comparableBytes(String(decoding: utf8, as: UTF8.self)))
        }
        let x = a.withSortKeyUTF8 { (comparable($0), comparable($1)) }, y = b.withSortKeyUTF8 { (comparable($0), comparable($1)) }
        if x.0 != y.0 { return x.0.lexicographicallyPrecedes(y.0) }
        if x.1 != y.1 { return x.1.lexicographicallyPrecedes(y.1) }
        return a.id < b.id
    }
}

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

    /// How many rows ahead ``withRowText(at:_:)`` asks for a row's overview.
    private static let readAhead = 8

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> ListedItem { rows[position] }

    /// Calls `body` with what a table shows of the row at `position`, read where the row is:
    /// the UTF-8 of its ``ListedItem/listedName`` and ``ListedItem/account``, whether it is a
    /// favorite, its kind, and a function that gives each tag's UTF-8 in order. The bytes are
    /// valid only inside `body`. `position` must be a valid index, as for the subscript.
    ///
    /// A table of every row reads them through this rather than through a copy of each row:
    /// a copy retains the row's overview, an atomic write to memory that reading order reaches
    /// far from where it was made, so that each row's cache miss waited for the one before.
    ///
    /// ```swift
    /// let width = listing.withRowText(at: 0) { name, account, _, _, _ in name.count + (account?.count ?? 0) }
    /// ```
    public func withRowText<R>(at position: Int, _ body: (_ name: UnsafeRawBufferPointer, _ account: UnsafeRawBufferPointer?, _ isFavorite: Bool,
                                                     _ kind: ItemKind, _ tags: ((UnsafeRawBufferPointer) -> Void) -> Void) -> R) -> R {
        // As the subscript does: a position out of the listing is a programming error.
        precondition(rows.indices.contains(position), "row \(position) is not in the listing of \(rows.count)")
        return rows.withUnsafeBufferPointer { rows in
            // Stored properties read through the pointer, never the row as a value (a copy).
            let row = rows.baseAddress.unsafelyUnwrapped + position
            // A table asks for its rows in order: the overview of a row a few ahead is asked
            // of memory now, so that its miss overlaps this row's work.
            if position + Self.readAhead < rows.count, let ahead = rows[position + Self.readAhead].start {
                MemoryPrefetch.lines(at: ahead, count: 2)
            }
            guard let start = row.pointee.start else {
                let item = row.pointee
                return item.withListedNameUTF8 { name in
                    item.withAccountUTF8 { account in body(name, account, item.isFavorite, item.kind) { item.forEachTagUTF8($0) } }
                }
            }
            let list = UnsafeRawBufferPointer(start: start, count: Int(row.pointee.length))
            let kind = ItemKind(code: row.pointee.fields.kind) ?? .genericPassword
            return ListedItem.withListedNameUTF8(in: list, row.pointee.fields, kind: kind) { name in
                body(name, row.pointee.fields.account.map { UnsafeRawBufferPointer(rebasing: list[$0]) }, row.pointee.fields.isFavorite, kind) { each in
                    for range in row.pointee.fields.tags { each(UnsafeRawBufferPointer(rebasing: list[range])) }
                }
            }
        }
    }

    /// The rows for which `isIncluded` is true, in the same order, as a listing with the
    /// same ``damaged`` records.
    ///
    /// ```swift
    /// let favorites = try vault.listing().filtered(\.isFavorite)
    /// ```
    public func filtered(_ isIncluded: (ListedItem) throws -> Bool) rethrows -> ItemListing {
        ItemListing(rows: try rows.filter(isIncluded), damaged: damaged)
    }
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
    /// What holds the row's text: its checked overview list, or an item decoded already.
    private let owner: Owner
    // Where the overview list's bytes are, and where its fields are, in the row itself: a
    // table reads its rows in reading order, far from the order they were made in, and reads
    // them by these stored properties through a pointer (``ItemListing/withRowText(at:_:)``),
    // with no copy of the row, so no retain of its list. The list is a `let` held by `owner`,
    // never changed, so its bytes stay where they are while a row holds it. Nil for a
    // decoded item. (A box for these was one more miss a row; rows are moved, not copied,
    // into reading order, ``DisplayOrder/readingRows(of:locale:)``.)
    nonisolated(unsafe) fileprivate let start: UnsafeRawPointer?
    fileprivate let length: UInt32
    fileprivate let fields: OverviewFields

    private enum Owner: Sendable {
        /// A checked overview list.
        case overview([UInt8])
        /// An item decoded already (a listing with pending changes, or a list of unusual shape).
        case item(DecodedItem)
    }

    private final class DecodedItem: Sendable {
        let item: Item
        init(_ item: Item) { self.item = item }
    }

    /// A row from a checked overview list; nil when its bytes are not in the usual shape
    /// (the caller then lists decoded items).
    init?(id: ItemID, revision: UInt64, overview: [UInt8]) {
        guard let row = Self.reading(id: id, revision: revision, overview: overview, sortKey: { _, _ in }) else { return nil }
        self = row
    }

    /// A row from a checked overview list, and `sortKey` called with the UTF-8 of its
    /// ``sortName`` and ``account`` (empty when absent) as they lie in the list; nil, and
    /// `sortKey` not called, when the list is not in the usual shape. The ordering of a
    /// large listing makes its rows and their keys so, in one pass over each list (the key
    /// read through the row just made retained and released the list three times: a
    /// 100,000-row listing's rows took 6 ms more).
    static func reading(id: ItemID, revision: UInt64, overview: [UInt8],
                        sortKey: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void) -> ListedItem? {
        guard overview.count < Int(UInt32.max) else { return nil }
        return overview.withUnsafeBytes { list -> ListedItem? in
            guard let start = list.baseAddress, let fields = OverviewFields(list), ItemKind(code: fields.kind) != nil else { return nil }
            Self.withSortKeyUTF8(in: list, fields, sortKey)
            return ListedItem(id: id, revision: revision, owner: .overview(overview), start: start, length: UInt32(list.count), fields: fields)
        }
    }

    private init(id: ItemID, revision: UInt64, owner: Owner, start: UnsafeRawPointer?, length: UInt32, fields: OverviewFields) {
        self.id = id
        self.revision = revision
        self.owner = owner
        self.start = start
        self.length = length
        self.fields = fields
    }

    init(item: Item) {
        id = item.id
        revision = item.revision
        owner = .item(DecodedItem(item))
        start = nil
        length = 0
        fields = .none
    }

    /// The decoded item, for a row that is one; nil for a row read from its overview, told
    /// by `start` alone: `owner` is read only for a decoded item (reading it out of its enum
    /// retains the list, an atomic on memory far from the one being read).
    private var decoded: Item? { start == nil ? decodedItem() : nil }

    @inline(never)
    private func decodedItem() -> Item? {
        guard case .item(let box) = owner else { return nil }
        return box.item
    }

    /// `body` with the overview list's bytes (a row read from one): `self`, which holds the
    /// list, outlives the call, so the list is not retained for it.
    private func withList<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        body(UnsafeRawBufferPointer(start: start, count: Int(length)))
    }

    private func text(_ field: (OverviewFields) -> Range<Int>?, _ attribute: (ItemAttributes) -> String?) -> String? {
        if let decoded { return attribute(decoded.attributes) }
        guard let range = field(fields) else { return nil }
        return withList { OverviewFields.string(range, in: $0) }
    }

    public var kind: ItemKind {
        if let decoded { return decoded.attributes.kind }
        return ItemKind(code: fields.kind) ?? .genericPassword
    }

    public var label: String? { text(\.label, \.label) }
    public var service: String? { text(\.service, \.service) }
    public var server: String? { text(\.server, \.server) }
    public var account: String? { text(\.account, \.account) }

    public var isFavorite: Bool { decoded?.attributes.isFavorite ?? fields.isFavorite }

    public var tags: [String] {
        if let decoded { return decoded.attributes.tags }
        return withList { raw in fields.tags.map { OverviewFields.string($0, in: raw) } }
    }

    /// ``ItemAttributes/sortName``: the label, else the service, else the server.
    var sortName: String? { ItemAttributes.sortName(label: label, service: service, server: server) }

    /// `body` with the UTF-8 of ``sortName`` and of ``account`` (empty when absent): read in
    /// place from the overview, so that ordering a listing makes no string per row.
    func withSortKeyUTF8<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        if let decoded {
            var name = decoded.attributes.sortName ?? "", account = decoded.attributes.account ?? ""
            return name.withUTF8 { name in account.withUTF8 { account in body(UnsafeRawBufferPointer(name), UnsafeRawBufferPointer(account)) } }
        }
        return withList { Self.withSortKeyUTF8(in: $0, fields, body) }
    }

    /// `body` with the UTF-8 of the sort name and account of the overview list `list`, its
    /// fields at `fields` (empty when absent).
    private static func withSortKeyUTF8<R>(in list: UnsafeRawBufferPointer, _ fields: OverviewFields,
                                           _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        func bytes(_ range: Range<Int>?) -> UnsafeRawBufferPointer {
            range.map { UnsafeRawBufferPointer(rebasing: list[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return body(bytes(ItemAttributes.sortName(label: fields.label, service: fields.service, server: fields.server)), bytes(fields.account))
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
        if let decoded {
            var name = decoded.attributes.listedName
            return name.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
        return withList { Self.withListedNameUTF8(in: $0, fields, kind: kind, body) }
    }

    /// `body` with the UTF-8 of the listed name of the overview list `list`, its fields at `fields`.
    fileprivate static func withListedNameUTF8<R>(in list: UnsafeRawBufferPointer, _ fields: OverviewFields, kind: ItemKind,
                                                  _ body: (UnsafeRawBufferPointer) -> R) -> R {
        func text(_ range: Range<Int>?) -> UnsafeRawBufferPointer? { range.map { UnsafeRawBufferPointer(rebasing: list[$0]) } }
        if let field = ItemNameText.listedNameField(kind: kind, label: text(fields.label), service: text(fields.service)) {
            return body(field)
        }
        var name: [UInt8] = []
        ItemNameText.appendListedName(kind: kind, label: text(fields.label), service: text(fields.service), server: text(fields.server),
                                      protocol: text(fields.protocol), port: fields.port, path: text(fields.path), to: &name)
        return name.withUnsafeBytes(body)
    }

    /// Calls `body` with the UTF-8 of ``account`` (nil when absent), in place in the overview;
    /// the bytes are valid only inside `body`.
    ///
    /// ```swift
    /// let hasAccount = row.withAccountUTF8 { $0 != nil }
    /// ```
    public func withAccountUTF8<R>(_ body: (UnsafeRawBufferPointer?) -> R) -> R {
        if let decoded {
            guard var account = decoded.attributes.account else { return body(nil) }
            return account.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
        return withList { raw in body(fields.account.map { UnsafeRawBufferPointer(rebasing: raw[$0]) }) }
    }

    /// Calls `body` with the UTF-8 of each of ``tags``, in order, in place in the overview;
    /// the bytes are valid only inside `body`.
    ///
    /// ```swift
    /// var count = 0
    /// row.forEachTagUTF8 { _ in count += 1 }
    /// ```
    public func forEachTagUTF8(_ body: (UnsafeRawBufferPointer) -> Void) {
        if let decoded {
            for var tag in decoded.attributes.tags { tag.withUTF8 { body(UnsafeRawBufferPointer($0)) } }
            return
        }
        withList { raw in
            for range in fields.tags { body(UnsafeRawBufferPointer(rebasing: raw[range])) }
        }
    }

    /// The whole item, decoded from its overview (no secret is decrypted).
    public func item() throws(CofferError) -> Item {
        switch owner {
        case .item(let box): return box.item
        case .overview(let list):
            return Item(id: id, revision: revision, attributes: try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(list) })
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
                guard let row = ListedItem.reading(id: entry.record.id, revision: entry.record.revision, overview: entry.overview,
                                                   sortKey: { run.keys.append(nameUTF8: $0, accountUTF8: $1, locale: locale) }) else {
                    run.discard()
                    return nil
                }
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

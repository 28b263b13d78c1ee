import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// The order of listed items: by label (else service, else server), then account,
/// then id. Texts compare by Unicode code points after canonical composition (NFC), so
/// canonically equivalent spellings sort together; for ASCII that is byte order.
///
/// Not `String`'s `<`: it is not a strict weak order (Swift 6.3 finds "e\u{301}" and
/// "\u{e9}a" neither equal nor ordered either way), which makes a sort's result
/// depend on the input order.
///
/// This is the library's stable order, the same in every locale. What a person reads
/// (`coffer list`) is ``Swift/Sequence/sortedForReading(locale:)`` below: case, accents
/// and numbers as people expect, falling back to this order on ties.
package enum DisplayOrder {
    /// Sorts `items` into display order.
    ///
    /// Keys are compared as UTF-8 bytes in one buffer: sorting structs of strings with a
    /// closure retains and releases every string at every comparison, which dominated
    /// listing a large vault.
    static func sort(_ items: inout [Item]) {
        guard items.count > 1 else { return }
        var keys = SortKeys(capacity: items.count)
        // By index, through `attributes`: iterating items, or reading them through
        // dynamic member lookup, copies every item (reference counting each string).
        for index in items.indices {
            let start = keys.text.count
            if let key = primaryKey(items[index].attributes) { keys.appendText(key) }
            let middle = keys.text.count
            if let account = items[index].attributes.account { keys.appendText(account) }
            keys.append(start, middle, id: items[index].id)
        }
        permute(&items, to: keys.order())
    }

    /// Sorts overview field lists (SPEC.md §7.2) into the order their items take,
    /// reading the keys from the bytes: a listing then decodes items straight into
    /// place. Returns false, leaving `entries` as they were, when a list is not in the
    /// usual shape; the caller then sorts the decoded items.
    static func sort<Entry>(overviews entries: inout [Entry], id: (Entry) -> ItemID, list: (Entry) -> [UInt8]) -> Bool {
        guard entries.count > 1 else { return true }
        // The keys of each range of entries on a core of its own, then one buffer.
        let reading = entries
        var parts = ParallelWork.mapRanges(count: reading.count) { range -> SortKeys? in
            var keys = SortKeys(capacity: range.count)
            for index in range {
                let readable = list(reading[index]).withUnsafeBytes { raw -> Bool in
                    guard let fields = OverviewFields(raw) else { return false }
                    let start = keys.text.count
                    // ItemAttributes.sortName, read from the bytes.
                    if let key = ItemAttributes.sortName(label: fields.label, service: fields.service, server: fields.server) { keys.appendText(UnsafeRawBufferPointer(rebasing: raw[key])) }
                    let middle = keys.text.count
                    if let account = fields.account { keys.appendText(UnsafeRawBufferPointer(rebasing: raw[account])) }
                    keys.append(start, middle, id: id(reading[index]))
                    return true
                }
                guard readable else { return nil }
            }
            return keys
        }
        var ranges = parts.compactMap { $0 }
        guard ranges.count == parts.count else { return false }
        parts = []   // the ranges' buffers are let go one by one as they are merged
        let keys = SortKeys(merging: &ranges)
        permute(&entries, to: keys.order())
        return true
    }

    /// `text` as the bytes this order compares: UTF-8 of its NFC form (ASCII as it is).
    /// Byte order of these is code point order.
    package static func comparableBytes(_ text: String) -> String.UTF8View {
        text.utf8.allSatisfy { $0 < 0x80 } ? text.utf8 : text.precomposedStringWithCanonicalMapping.utf8
    }

    /// Every item's primary key and account, back to back in one buffer, in NFC.
    private struct SortKeys {
        var text: [UInt8] = []
        /// Per item: where its primary key starts, where it ends (= where its account starts), where the account ends.
        var bounds: [(Int, Int, Int)] = []
        var ids: [ItemID] = []

        init(capacity: Int) {
            // Room for most names and accounts: a range's buffer that grew on a worker
            // thread was copied there and its old one kept by that thread's heap.
            text.reserveCapacity(capacity * 96)
            bounds.reserveCapacity(capacity)
            ids.reserveCapacity(capacity)
        }

        mutating func appendText(_ string: String) {
            text.append(contentsOf: DisplayOrder.comparableBytes(string))
        }

        /// Checked UTF-8 (an overview's text field).
        mutating func appendText(_ utf8: UnsafeRawBufferPointer) {
            if utf8.allSatisfy({ $0 < 0x80 }) {
                text.append(contentsOf: utf8)
            } else {
                appendText(String(decoding: utf8, as: UTF8.self))
            }
        }

        mutating func append(_ start: Int, _ middle: Int, id: ItemID) {
            bounds.append((start, middle, text.count))
            ids.append(id)
        }

        /// The keys of consecutive ranges of items, in one buffer of their exact size; each
        /// range's own buffer is let go once copied (a listing's peak memory holds them once).
        init(merging parts: inout [SortKeys]) {
            text.reserveCapacity(parts.reduce(0) { $0 + $1.text.count })
            bounds.reserveCapacity(parts.reduce(0) { $0 + $1.bounds.count })
            ids.reserveCapacity(bounds.capacity)
            for index in parts.indices {
                let shift = text.count
                text += parts[index].text
                bounds += parts[index].bounds.lazy.map { ($0.0 + shift, $0.1 + shift, $0.2 + shift) }
                ids += parts[index].ids
                parts[index] = SortKeys(capacity: 0)
            }
        }

        /// Indices in display order: UTF-8 byte order of the NFC keys is code point order.
        func order() -> [Int] {
            // Each key's first 8 bytes as a big-endian integer decide most comparisons
            // without touching the text; equal prefixes fall back to the full keys.
            var keyed: [(prefix: UInt64, index: Int)] = []
            keyed.reserveCapacity(ids.count)
            text.withUnsafeBufferPointer { text in
                for (index, bound) in bounds.enumerated() { keyed.append((DisplayOrder.prefix(text, bound.0..<bound.1), index)) }
            }
            text.withUnsafeBufferPointer { text in
                bounds.withUnsafeBufferPointer { bounds in
                    ids.withUnsafeBufferPointer { ids in
                        func compare(_ a: Range<Int>, _ b: Range<Int>) -> Int { DisplayOrder.compare(text, a, b) }
                        keyed.sort { a, b in
                            if a.prefix != b.prefix { return a.prefix < b.prefix }
                            let (i, j) = (a.index, b.index)
                            let (ia, im, ie) = bounds[i], (ja, jm, je) = bounds[j]
                            let byPrimary = compare(ia..<im, ja..<jm)
                            if byPrimary != 0 { return byPrimary < 0 }
                            let byAccount = compare(im..<ie, jm..<je)
                            if byAccount != 0 { return byAccount < 0 }
                            return ids[i] < ids[j]
                        }
                    }
                }
            }
            return keyed.map(\.index)
        }
    }

    /// Puts `items[order[k]]` at `k` for every `k`, in place, by following cycles:
    /// no second array of a large vault's items, and no reference counting.
    private static func permute<T>(_ items: inout [T], to order: [Int]) {
        var placed = [Bool](repeating: false, count: order.count)
        items.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for start in order.indices where !placed[start] {
                let first = (base + start).move()
                var slot = start
                while true {
                    placed[slot] = true
                    let source = order[slot]
                    if source == start {
                        (base + slot).initialize(to: first)
                        break
                    }
                    (base + slot).moveInitialize(from: base + source, count: 1)
                    slot = source
                }
            }
        }
    }

    private static func primaryKey(_ attributes: ItemAttributes) -> String? {
        attributes.sortName
    }
}

/// The order people read a listing in: by the name shown first (the label, else the
/// service, else the server: ``ItemAttributes/sortName``), then the account, ignoring
/// case, accents and width as `locale` folds them, with runs of digits compared as
/// numbers ("item 2" before "item 10"). Ties fall back to the stable order of
/// ``Vault/items(matching:)`` (code points, then the id), so the result never depends on
/// the input order.
///
/// ```swift
/// let listed = try vault.items().sortedForReading()
/// // alpha, Beta, gamma 2, gamma 10, Zeta
/// ```
extension Sequence where Element == Item {
    public func sortedForReading(locale: Locale = .current) -> [Item] {
        let items = Array(self)
        guard items.count > 1 else { return items }
        // Every key in one buffer, compared in place, and no other copy of the items: a key
        // array per name, a lowercased copy of each, and a second sorted copy of the items
        // cost a large vault's listing more than the rest of its sorting.
        var keys = DisplayOrder.ReadingKeys(capacity: items.count)
        for index in items.indices {
            keys.append(name: items[index].attributes.sortName ?? "", account: items[index].attributes.account ?? "", locale: locale)
        }
        let tie = { (a: Int, b: Int) in DisplayOrder.precedes(items[a], items[b]) }
        // Usually (lowercase names, numbers of one width) the listing's own order already is
        // the reading order: then the items are returned as they are, neither sorted nor copied.
        if keys.isInOrder(tie: tie) { return items }
        return keys.order(tie: tie).map { items[$0] }
    }
}

extension DisplayOrder {
    /// Appends to `key` the reading key of `text`, a byte string whose order is the reading
    /// order of `text`: the text folded (case, diacritics, width) for `locale`, in UTF-8
    /// (whose byte order is code point order), with each run of ASCII digits replaced by a
    /// marker below every letter, its length without leading zeros (two bytes, big-endian),
    /// then its digits: a longer number is a larger one.
    static func appendReadingKey(_ text: String, locale: Locale, to key: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendReadingKey(utf8: UnsafeRawBufferPointer($0), locale: locale, to: &key) }
    }

    /// ``appendReadingKey(_:locale:to:)`` of checked UTF-8 (an overview's text field, read in
    /// place: a listing makes no string of every name and account to order them).
    static func appendReadingKey(utf8 text: UnsafeRawBufferPointer, locale: Locale, to key: inout [UInt8]) {
        // Search's folding (SearchFolding). ASCII (the usual name) folds here byte by byte,
        // without a lowercased copy: listing a large vault folds every name.
        if ASCIIBytes.all(text) {
            appendKeyBytes(text, foldingASCII: true, to: &key)
            return
        }
        var folded = SearchFolding.fold(String(decoding: text, as: UTF8.self), locale: locale)
        folded.withUTF8 { appendKeyBytes(UnsafeRawBufferPointer($0), foldingASCII: false, to: &key) }
    }

    /// Appends folded `bytes` to `key`, each run of ASCII digits as a number (see above): the
    /// key is written in one pass into a buffer on the stack, then appended at once (a listing
    /// of 100,000 rows folds every name and account; appending run by run, then folding the
    /// bytes in place, cost 2,500 instructions a row).
    private static func appendKeyBytes(_ bytes: UnsafeRawBufferPointer, foldingASCII: Bool, to key: inout [UInt8]) {
        guard let text = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > 0 else { return }
        let count = bytes.count
        // A run of digits grows by 3 bytes at most (the marker and its length); runs are
        // apart, so there are at most (count + 1) / 2 of them.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count + 3 * ((count + 1) / 2)) { buffer in
            guard let out = buffer.baseAddress else { return }
            var at = 0, index = 0
            while index < count {
                // Eight ASCII bytes at a time up to the next digit (a listing folds every name
                // and account: byte by byte this loop was 25 instructions a byte).
                if foldingASCII, index + 8 <= count {
                    let block = UnsafeRawPointer(text + index).loadUnaligned(as: UInt64.self)
                    let digits = Self.asciiBytes(in: block, from: 0x30, through: 0x39)
                    let folded = block | Self.asciiBytes(in: block, from: 0x41, through: 0x5A) >> 2
                    UnsafeMutableRawPointer(out + at).storeBytes(of: folded, as: UInt64.self)
                    // Little-endian: the first digit is the lowest set bit's byte.
                    let plain = digits == 0 ? 8 : digits.trailingZeroBitCount / 8
                    at += plain
                    index += plain
                    if plain == 8 { continue }
                }
                let byte = text[index]
                guard byte >= 0x30 && byte <= 0x39 else {
                    out[at] = foldingASCII ? SearchFolding.foldASCII(byte) : byte
                    at += 1
                    index += 1
                    continue
                }
                var end = index + 1
                while end < count, text[end] >= 0x30 && text[end] <= 0x39 { end += 1 }
                var first = index
                while first < end, text[first] == 0x30 { first += 1 }   // leading zeros do not count
                let digits = min(end - first, Int(UInt16.max))
                out[at] = 0x2F   // '/', below the digits and letters: numbers start low, as '0' would
                out[at + 1] = UInt8(digits >> 8)
                out[at + 2] = UInt8(digits & 0xFF)
                (out + at + 3).update(from: text + first, count: digits)
                at += 3 + digits
                index = end
            }
            key.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<at]))
        }
    }

    /// The high bit of each byte of `block` (7-bit ASCII bytes only) that lies in
    /// `low...high`: adding `0x80 - low` sets a byte's high bit when it is at least `low`,
    /// adding `0x7F - high` when it is above `high`, and neither carries into the next byte.
    @inline(__always)
    private static func asciiBytes(in block: UInt64, from low: UInt8, through high: UInt8) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let atLeastLow = block &+ ones &* UInt64(0x80 - low)
        let aboveHigh = block &+ ones &* UInt64(0x7F - high)
        return atLeastLow & ~aboveHigh & 0x8080_8080_8080_8080
    }

    /// The stable order of two items (code points of name and account, then id): what
    /// ``sort(_:)`` gives, for ties in the reading order; the rows' comparison, one owner.
    static func precedes(_ a: Item, _ b: Item) -> Bool {
        precedes(ListedItem(item: a), ListedItem(item: b))
    }

    /// A key's first 8 bytes in `buffer` (its range `key`) as a big-endian integer, zeros past
    /// its end: where two keys' prefixes differ, the keys differ there and in the same
    /// direction, so sorts compare these first and the keys only on equal prefixes.
    /// `skipping` leaves out the key's first bytes (8: its second 8 bytes).
    static func prefix(_ buffer: UnsafeBufferPointer<UInt8>, _ key: Range<Int>, skipping: Int = 0) -> UInt64 {
        var prefix: UInt64 = 0
        let first = key.lowerBound + skipping
        for offset in 0..<8 { prefix = prefix << 8 | (first + offset < key.upperBound ? UInt64(buffer[first + offset]) : 0) }
        return prefix
    }

    /// The byte order of two keys in `buffer` (-1, 0 or 1), a shorter key before a longer one it begins.
    static func compare(_ buffer: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ b: Range<Int>) -> Int {
        compare(buffer, a, buffer, b)
    }

    /// The byte order of key `a` in `first` and key `b` in `second` (-1, 0 or 1).
    static func compare(_ first: UnsafeBufferPointer<UInt8>, _ a: Range<Int>, _ second: UnsafeBufferPointer<UInt8>, _ b: Range<Int>) -> Int {
        let common = min(a.count, b.count)
        if common > 0, let x = first.baseAddress, let y = second.baseAddress {
            let order = memcmp(x + a.lowerBound, y + b.lowerBound, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The reading keys of many items, (name, account) each, in one buffer.
    struct ReadingKeys {
        private var bytes: [UInt8] = []
        /// Per item: where its name key starts, where its account key starts, where it ends.
        private var bounds: [(start: Int, middle: Int, end: Int)] = []

        init(capacity: Int) {
            bytes.reserveCapacity(capacity * 96)   // as SortKeys
            bounds.reserveCapacity(capacity)
        }

        mutating func append(name: String, account: String, locale: Locale) {
            let start = bytes.count
            DisplayOrder.appendReadingKey(name, locale: locale, to: &bytes)
            let middle = bytes.count
            DisplayOrder.appendReadingKey(account, locale: locale, to: &bytes)
            bounds.append((start, middle, bytes.count))
        }

        /// The same, of checked UTF-8 read in place.
        mutating func append(nameUTF8 name: UnsafeRawBufferPointer, accountUTF8 account: UnsafeRawBufferPointer, locale: Locale) {
            let start = bytes.count
            DisplayOrder.appendReadingKey(utf8: name, locale: locale, to: &bytes)
            let middle = bytes.count
            DisplayOrder.appendReadingKey(utf8: account, locale: locale, to: &bytes)
            bounds.append((start, middle, bytes.count))
        }

        /// The keys of consecutive ranges of items, in one buffer of their exact size; each
        /// range's own buffer is let go once copied.
        init(merging parts: inout [ReadingKeys]) {
            bytes.reserveCapacity(parts.reduce(0) { $0 + $1.bytes.count })
            bounds.reserveCapacity(parts.reduce(0) { $0 + $1.bounds.count })
            for index in parts.indices {
                let shift = bytes.count
                bytes += parts[index].bytes
                bounds += parts[index].bounds.lazy.map { ($0.start + shift, $0.middle + shift, $0.end + shift) }
                parts[index] = ReadingKeys(capacity: 0)
            }
        }

        /// An item's name key's first 16 bytes (``DisplayOrder/prefix(_:_:skipping:)``, two
        /// words) and its index: what a sort moves, so that most comparisons read neither the
        /// keys nor the items. (With 8 bytes, names of one first word, "abacus-c…", tied
        /// often, and each tie read two keys at random places: the merge's cache misses.)
        typealias Keyed = (prefix: UInt64, next: UInt64, index: Int)

        /// Whether `a` precedes `b` by their prefixes; nil when these are the same.
        @inline(__always)
        static func byPrefix(_ a: Keyed, _ b: Keyed) -> Bool? {
            a.prefix != b.prefix ? a.prefix < b.prefix : a.next != b.next ? a.next < b.next : nil
        }

        /// The item indices in reading order: by name key, then account key, then `tie`,
        /// which must be a total order of the items (the rows' stable order ends with their
        /// ids) and safe to call from several threads at once.
        func order(tie: (Int, Int) -> Bool) -> [Int] {
            // A range of items sorted on each core, then the sorted runs merged: the order
            // is total, so this is the one order a single sort gives (a 100,000-row
            // listing's sort was its longest step on one core).
            let runs = ParallelWork.mapRanges(count: bounds.count) { range in sorted(range, tie: tie) }
            return [Int](unsafeUninitializedCapacity: bounds.count) { order, count in
                Self.merge(runs, less: { _, a, _, b in
                    Self.byPrefix(a, b) ?? bytes.withUnsafeBufferPointer { precedes(a.index, b.index, in: $0, tie: tie) }
                }) { position, _, item in order[position] = item }
                count = bounds.count
            }
        }

        /// The items of `range` in reading order (`tie` as in ``order(tie:)``), with their
        /// prefixes: one core's run, for ``merge(_:less:emit:)``.
        func sorted(_ range: Range<Int>, tie: (Int, Int) -> Bool) -> [Keyed] {
            bytes.withUnsafeBufferPointer { buffer in
                // Each name key's first 16 bytes as big-endian integers (zeros past its end)
                // decide most comparisons without reading the keys, as in SortKeys: where they
                // differ, the keys differ there and in the same direction.
                var run = range.map { index -> Keyed in
                    let name = bounds[index].start..<bounds[index].middle
                    return (DisplayOrder.prefix(buffer, name), DisplayOrder.prefix(buffer, name, skipping: 8), index)
                }
                run.sort { a, b in Self.byPrefix(a, b) ?? precedes(a.index, b.index, in: buffer, tie: tie) }
                return run
            }
        }

        /// Whether item `a` here comes before item `b` of `other` by their keys (name, then
        /// account); nil when both keys are the same. The keys of two runs made apart.
        func precedes(_ a: Int, _ other: ReadingKeys, _ b: Int) -> Bool? {
            bytes.withUnsafeBufferPointer { mine in
                other.bytes.withUnsafeBufferPointer { theirs in Self.keyOrder(bounds[a], in: mine, other.bounds[b], in: theirs) }
            }
        }

        /// Whether the item of bounds `x` in `first` comes before that of `y` in `second` by
        /// their keys (name, then account); nil when both keys are the same.
        private static func keyOrder(_ x: (start: Int, middle: Int, end: Int), in first: UnsafeBufferPointer<UInt8>,
                                     _ y: (start: Int, middle: Int, end: Int), in second: UnsafeBufferPointer<UInt8>) -> Bool? {
            let name = DisplayOrder.compare(first, x.start..<x.middle, second, y.start..<y.middle)
            if name != 0 { return name < 0 }
            let account = DisplayOrder.compare(first, x.middle..<x.end, second, y.middle..<y.end)
            return account == 0 ? nil : account < 0
        }

        /// Sorted `runs` (a few, one per core) as one sorted sequence: `emit(position, run,
        /// index)` for each item, `position` its place in that sequence. `less(runA, a, runB,
        /// b)` orders an item of one run against one of another (or of the same) and must be
        /// total, so the merge is the one order a single sort gives. Two runs (two cores) are
        /// merged a part of the sequence per core, so both closures must be safe to call from
        /// several threads at once (`emit` for distinct positions).
        static func merge(_ runs: [[Keyed]], less: (Int, Keyed, Int, Keyed) -> Bool, emit: (Int, Int, Int) -> Void) {
            if runs.count == 1 {
                for (position, item) in runs[0].enumerated() { emit(position, 0, item.index) }
                return
            }
            if runs.count == 2 {
                let first = runs[0], second = runs[1]
                // How many of the first `k` items of the sequence come from the first run (the
                // rest from the second): a binary search (the "merge path"), so each core
                // merges its own part without the others' (a 100,000-row listing's merge, on
                // one core, was 8-13 ms of moving rows from far apart).
                func split(_ k: Int) -> Int {
                    var low = max(0, k - second.count), high = min(k, first.count)
                    while low < high {
                        let middle = (low + high) / 2
                        if less(0, first[middle], 1, second[k - middle - 1]) { low = middle + 1 } else { high = middle }
                    }
                    return low
                }
                ParallelWork.forEachRange(count: first.count + second.count) { part in
                    var i = split(part.lowerBound), j = part.lowerBound - i
                    let endI = split(part.upperBound), endJ = part.upperBound - endI
                    var position = part.lowerBound
                    while i < endI && j < endJ {
                        if less(1, second[j], 0, first[i]) {
                            emit(position, 1, second[j].index)
                            j += 1
                        } else {
                            emit(position, 0, first[i].index)
                            i += 1
                        }
                        position += 1
                    }
                    while i < endI { emit(position, 0, first[i].index); i += 1; position += 1 }
                    while j < endJ { emit(position, 1, second[j].index); j += 1; position += 1 }
                }
                return
            }
            var heads = runs.map(\.startIndex)
            var position = 0
            while true {
                var next: Int?
                for run in runs.indices where heads[run] < runs[run].endIndex {
                    if let best = next, !less(run, runs[run][heads[run]], best, runs[best][heads[best]]) { continue }
                    next = run
                }
                guard let run = next else { return }
                emit(position, run, runs[run][heads[run]].index)
                heads[run] += 1
                position += 1
            }
        }

        /// Whether the items already are in reading order (one pass, no sort).
        func isInOrder(tie: (Int, Int) -> Bool) -> Bool {
            bytes.withUnsafeBufferPointer { buffer in
                bounds.indices.dropFirst().allSatisfy { !precedes($0, $0 - 1, in: buffer, tie: tie) }
            }
        }

        private func precedes(_ a: Int, _ b: Int, in buffer: UnsafeBufferPointer<UInt8>, tie: (Int, Int) -> Bool) -> Bool {
            Self.keyOrder(bounds[a], in: buffer, bounds[b], in: buffer) ?? tie(a, b)
        }
    }
}

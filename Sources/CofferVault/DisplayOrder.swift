import CofferCrypto
import CofferFormat
import CofferStore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        var keys = SortKeys(capacity: entries.count)
        for index in entries.indices {
            let readable = list(entries[index]).withUnsafeBytes { raw -> Bool in
                guard let fields = OverviewFields(raw) else { return false }
                let start = keys.text.count
                // ItemAttributes.sortName, read from the bytes.
                if let key = fields.label ?? fields.service ?? fields.server { keys.appendText(UnsafeRawBufferPointer(rebasing: raw[key])) }
                let middle = keys.text.count
                if let account = fields.account { keys.appendText(UnsafeRawBufferPointer(rebasing: raw[account])) }
                keys.append(start, middle, id: id(entries[index]))
                return true
            }
            guard readable else { return false }
        }
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

        /// Indices in display order: UTF-8 byte order of the NFC keys is code point order.
        func order() -> [Int] {
            // Each key's first 8 bytes as a big-endian integer decide most comparisons
            // without touching the text; equal prefixes fall back to the full keys.
            var keyed: [(prefix: UInt64, index: Int)] = []
            keyed.reserveCapacity(ids.count)
            text.withUnsafeBufferPointer { text in
                for (index, bound) in bounds.enumerated() {
                    var prefix: UInt64 = 0
                    for offset in 0..<8 {
                        let byte = bound.0 + offset < bound.1 ? UInt64(text[bound.0 + offset]) : 0
                        prefix = prefix << 8 | byte
                    }
                    keyed.append((prefix, index))
                }
            }
            text.withUnsafeBufferPointer { text in
                bounds.withUnsafeBufferPointer { bounds in
                    ids.withUnsafeBufferPointer { ids in
                        let base = text.baseAddress
                        func compare(_ a: Range<Int>, _ b: Range<Int>) -> Int {
                            let common = min(a.count, b.count)
                            let order = common == 0 ? 0 : (base.map { memcmp($0 + a.lowerBound, $0 + b.lowerBound, common) } ?? 0)
                            if order != 0 { return order < 0 ? -1 : 1 }
                            return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
                        }
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
        var stable = Array(self)
        DisplayOrder.sort(&stable)
        let keys = stable.map { item in
            (DisplayOrder.readingKey(item.attributes.sortName ?? "", locale: locale),
             DisplayOrder.readingKey(item.attributes.account ?? "", locale: locale))
        }
        let order = stable.indices.sorted { a, b in
            if keys[a].0 != keys[b].0 { return keys[a].0.lexicographicallyPrecedes(keys[b].0) }
            if keys[a].1 != keys[b].1 { return keys[a].1.lexicographicallyPrecedes(keys[b].1) }
            return a < b
        }
        return order.map { stable[$0] }
    }
}

extension DisplayOrder {
    /// A key whose lexicographic order is the reading order of `text`: the text folded
    /// (case, diacritics, width) for `locale`, as Unicode scalars, with each run of ASCII
    /// digits replaced by a marker below every letter, its length without leading zeros,
    /// then its digits: a longer number is a larger one.
    static func readingKey(_ text: String, locale: Locale) -> [UInt32] {
        // ASCII (the usual name) folds by lowercasing, without Foundation's tables: listing
        // a large vault folds every name.
        let folded = text.utf8.allSatisfy({ $0 < 0x80 }) ? text.lowercased()
            : text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: locale)
        var key: [UInt32] = []
        key.reserveCapacity(folded.unicodeScalars.count + 2)
        var digits: [UInt32] = []
        func flushDigits() {
            guard !digits.isEmpty else { return }
            let significant = digits.drop { $0 == 0x30 }
            key.append(0x2F)   // '/', below the digits and letters: numbers start low, as '0' would
            key.append(UInt32(significant.count))
            key.append(contentsOf: significant)
            digits.removeAll(keepingCapacity: true)
        }
        for scalar in folded.unicodeScalars {
            if scalar.value >= 0x30 && scalar.value <= 0x39 {
                digits.append(scalar.value)
            } else {
                flushDigits()
                key.append(scalar.value)
            }
        }
        flushDigits()
        return key
    }
}

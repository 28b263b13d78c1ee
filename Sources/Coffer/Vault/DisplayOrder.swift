#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The order of listed items: by label (else service, else server), then account,
/// then id.
enum DisplayOrder {
    /// Sorts `items` into display order.
    ///
    /// Sorting structs of strings with a closure retains and releases every string at
    /// every comparison, which dominated listing a large vault. For ASCII keys (byte
    /// order is then `String`'s order) this compares UTF-8 bytes in one buffer instead.
    static func sort(_ items: inout [Item]) {
        guard items.count > 1 else { return }
        var text: [UInt8] = []
        // Per item: where its primary key starts, where it ends (= where its account starts), where the account ends.
        var bounds: [(Int, Int, Int)] = []
        bounds.reserveCapacity(items.count)
        var ids: [ItemID] = []
        ids.reserveCapacity(items.count)
        var isASCII = true
        // By index, through `attributes`: iterating items, or reading them through
        // dynamic member lookup, copies every item (reference counting each string).
        for index in items.indices {
            let start = text.count
            if let key = primaryKey(items[index].attributes) { text.append(contentsOf: key.utf8) }
            let middle = text.count
            if let account = items[index].attributes.account { text.append(contentsOf: account.utf8) }
            bounds.append((start, middle, text.count))
            ids.append(items[index].id)
        }
        for byte in text where byte >= 0x80 { isASCII = false; break }
        guard isASCII else { return items.sort(by: inOrder) }

        var order = Array(0..<items.count)
        text.withUnsafeBufferPointer { text in
            bounds.withUnsafeBufferPointer { bounds in
                ids.withUnsafeBufferPointer { ids in
                    let base = text.baseAddress!
                    func compare(_ a: Range<Int>, _ b: Range<Int>) -> Int {
                        let common = min(a.count, b.count)
                        let order = common == 0 ? 0 : memcmp(base + a.lowerBound, base + b.lowerBound, common)
                        if order != 0 { return order < 0 ? -1 : 1 }
                        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
                    }
                    order.sort { i, j in
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
        permute(&items, to: order)
    }

    /// Puts `items[order[k]]` at `k` for every `k`, in place, by following cycles:
    /// no second array of a large vault's items, and no reference counting.
    private static func permute(_ items: inout [Item], to order: [Int]) {
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

    /// The same order on any strings (Unicode canonical order, as `String` compares).
    static func inOrder(_ a: Item, _ b: Item) -> Bool {
        let ka = (primaryKey(a.attributes) ?? "", a.attributes.account ?? "")
        let kb = (primaryKey(b.attributes) ?? "", b.attributes.account ?? "")
        if ka != kb { return ka < kb }
        return a.id < b.id
    }

    private static func primaryKey(_ attributes: ItemAttributes) -> String? {
        attributes.label ?? attributes.service ?? attributes.server
    }
}

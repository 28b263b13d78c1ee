import CofferCrypto

/// When and where one edit was made (SPEC.md §17.1): the replica that made it and the
/// hybrid logical time it was given. Two edits compare by time, then by replica, so every
/// pair of distinct stamps has a winner that every device agrees on.
package struct Stamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    package var replica: UInt64
    package var time: UInt64

    package init(replica: UInt64, time: UInt64) {
        self.replica = replica
        self.time = time
    }

    package static func < (a: Stamp, b: Stamp) -> Bool { (a.time, a.replica) < (b.time, b.replica) }

    /// The wall-clock part of the time, for display only (milliseconds since 1970).
    package var milliseconds: Int64 { Int64(clamping: time >> HybridTime.counterBits) }

    package var description: String { "\(String(replica, radix: 16))@\(time)" }
}

/// A version vector: for each replica, the newest time of its edits that a state has seen
/// (SPEC.md §17.1). A state has seen an edit exactly when its vector covers the edit's stamp.
package struct VersionVector: Hashable, Sendable {
    package private(set) var times: [UInt64: UInt64]

    package init(_ times: [UInt64: UInt64] = [:]) {
        self.times = times.filter { $0.value > 0 }
    }

    package var isEmpty: Bool { times.isEmpty }
    package var count: Int { times.count }

    package subscript(replica: UInt64) -> UInt64 { times[replica] ?? 0 }

    /// Whether the edit stamped `stamp` is among those this vector has seen.
    package func covers(_ stamp: Stamp) -> Bool { self[stamp.replica] >= stamp.time }

    /// Whether every edit `other` has seen, this one has seen too.
    package func dominates(_ other: VersionVector) -> Bool {
        other.times.allSatisfy { self[$0.key] >= $0.value }
    }

    /// The pointwise maximum: what either has seen.
    package func merged(with other: VersionVector) -> VersionVector {
        var out = self
        out.formMerge(with: other)
        return out
    }

    package mutating func formMerge(with other: VersionVector) {
        for (replica, time) in other.times where time > self[replica] { times[replica] = time }
    }

    /// Records that this state has seen `stamp`.
    package mutating func include(_ stamp: Stamp) {
        if stamp.time > self[stamp.replica] { times[stamp.replica] = stamp.time }
    }

    /// The entries above `floor`'s (all of them when `floor` is nil): what this vector has
    /// seen that `floor` has not. A confirmation vector is kept reduced by the item's deletion
    /// vector (SPEC.md §17.5): entries the deletion covers can never decide anything again.
    package func above(_ floor: VersionVector?) -> VersionVector {
        guard let floor else { return self }
        return VersionVector(times.filter { $0.value > floor[$0.key] })
    }

    /// The largest time of any replica (0 when empty).
    package var maxTime: UInt64 { times.values.max() ?? 0 }

    /// The vector bounded to `limit` entries (SPEC.md §17.9): the replicas in `keeping`, then
    /// the newest others by (time, replica), as many as fit; the others are dropped. The same
    /// entries always give the same result, and compacting a join of compacted vectors gives
    /// what compacting the join of the originals gives, whatever the order of joins.
    package func compacted(limit: Int, keeping kept: Set<UInt64> = []) -> VersionVector {
        guard times.count > limit else { return self }
        let keptCount = kept.count { times[$0] != nil }
        var dropping = times.count - max(limit, keptCount)
        guard dropping > 0 else { return self }
        var out = self
        // The oldest others, by (time, replica): usually one or two, so found one at a time.
        var others = times.filter { !kept.contains($0.key) }.map { Stamp(replica: $0.key, time: $0.value) }
        if dropping * 8 > others.count {
            others.sort()
            for stamp in others.prefix(dropping) { out.times[stamp.replica] = nil }
            return out
        }
        while dropping > 0, let oldest = others.indices.min(by: { others[$0] < others[$1] }) {
            out.times[others[oldest].replica] = nil
            others.swapAt(oldest, others.count - 1)
            others.removeLast()
            dropping -= 1
        }
        return out
    }

    /// Entries in ascending replica order, as encoded.
    package var sorted: [(replica: UInt64, time: UInt64)] {
        times.keys.sorted().map { (replica: $0, time: times[$0] ?? 0) }
    }
}

/// Hybrid logical time (SPEC.md §17.1): milliseconds since 1970 in the high 48 bits and a
/// counter in the low 16, never below one more than any time already seen. A wrong wall
/// clock can only change which of two concurrent edits is shown first; it cannot make an
/// edit look as if it had seen another.
package enum HybridTime {
    package static let counterBits: UInt64 = 16

    /// The next time after `seen` (the largest time the writer knows of).
    package static func next(after seen: UInt64, nowMilliseconds: Int64) -> UInt64 {
        let wall = UInt64(clamping: max(0, nowMilliseconds)) << counterBits
        return seen == .max ? .max : max(wall, seen + 1)
    }
}

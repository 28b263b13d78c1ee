import CofferCrypto

/// A header with extensions (format 1's ``VaultHeader`` or format 2's ``VaultHeaderV2``):
/// the replica extensions below read and write their values the same way in both.
package protocol ReplicaExtensionHolder {
    var extensions: [HeaderExtension] { get set }
    /// The largest extension value of the header's format (SPEC.md §9).
    static var maxExtensionLength: Int { get }
}

extension VaultHeader: ReplicaExtensionHolder {
    package static var maxExtensionLength: Int { FormatV1.maxExtensionLength }
}

extension VaultHeader {
    /// A removed slot: its identity and when it was removed (SPEC.md §17.4).
    package typealias RemovedSlot = RemovedKeySlot
}

/// A removed slot: its identity (``KeySlotRecord/identity``) and when it was removed.
package struct RemovedKeySlot: Hashable, Sendable {
    package let identity: [UInt8]
    package let time: UInt64

    package init(identity: [UInt8], time: UInt64) {
        self.identity = identity
        self.time = time
    }

    /// The order on disk: by time, then identity.
    static func precedes(_ a: RemovedKeySlot, _ b: RemovedKeySlot) -> Bool {
        a.time < b.time || (a.time == b.time && a.identity.lexicographicallyPrecedes(b.identity))
    }
}

/// The two header extensions that let replicas of one vault merge (SPEC.md §17.4): the
/// vault's version vector, and the key slots removed so far. Both are critical (type
/// 0x8000 and up): a reader that cannot merge must not write such a vault back.
enum ReplicaExtension {
    /// `n × (replica u64, time u64)`, replicas ascending: every edit the file has seen.
    static let clock: UInt16 = 0x8010
    /// `n × (slot id 16 bytes, time u64)`, ascending by (time, id): slots removed for good.
    static let removedSlots: UInt16 = 0x8011
    static let known: Set<UInt16> = [clock, removedSlots]
}

extension ReplicaExtensionHolder {
    /// Largest number of replicas a vault's clock names (format 2: 16,384 × 16 bytes =
    /// 256 KiB; format 1: 1,024 × 16 bytes = 16 KiB).
    package static var maxClockReplicas: Int { maxExtensionLength / 16 }
    /// Removed slots remembered; the oldest are forgotten first (format 1: 682 × 24 bytes ≤ 16 KiB).
    package static var maxRemovedSlots: Int { maxExtensionLength / 24 }

    /// Every edit this file has seen, over all items and key slots (empty before clocks).
    package var clock: VersionVector {
        get {
            guard let value = extensions.first(where: { $0.type == ReplicaExtension.clock })?.value else { return VersionVector() }
            return (try? Self.parseClock(value)) ?? VersionVector()
        }
        set {
            // Bounded by §17.4's rule (the newest entries), never by dropping the lowest ids:
            // what a device remembers is compacted alike, so no file looks rolled back for it.
            let clock = newValue.compacted(limit: Self.maxClockReplicas)
            var w = ByteWriter(capacity: clock.count * 16)
            for entry in clock.sorted { w.u64(entry.replica); w.u64(entry.time) }
            setExtension(ReplicaExtension.clock, w.bytes)
        }
    }

    /// Key slots removed from this vault, oldest first.
    package var removedSlots: [RemovedKeySlot] {
        get {
            guard let value = extensions.first(where: { $0.type == ReplicaExtension.removedSlots })?.value else { return [] }
            return (try? Self.parseRemovedSlots(value)) ?? []
        }
        set {
            let ordered = Set(newValue).sorted(by: RemovedKeySlot.precedes)
            var w = ByteWriter(capacity: ordered.count * 24)
            for slot in ordered.suffix(Self.maxRemovedSlots) { w.bytes(slot.identity); w.u64(slot.time) }
            setExtension(ReplicaExtension.removedSlots, ordered.isEmpty ? nil : w.bytes)
        }
    }

    private mutating func setExtension(_ type: UInt16, _ value: [UInt8]?) {
        if let index = extensions.firstIndex(where: { $0.type == type }) {
            if let value { extensions[index] = HeaderExtension(type: type, value: value) } else { extensions.remove(at: index) }
        } else if let value {
            extensions.append(HeaderExtension(type: type, value: value))
        }
    }

    /// Checks a known critical extension's value (SPEC.md §17.4) while the header is parsed.
    static func validateReplicaExtension(type: UInt16, value: [UInt8]) throws(FormatError) {
        switch type {
        case ReplicaExtension.clock: _ = try parseClock(value)
        default: _ = try parseRemovedSlots(value)
        }
    }

    private static func parseClock(_ value: [UInt8]) throws(FormatError) -> VersionVector {
        guard value.count % 16 == 0, !value.isEmpty else { throw .malformed("header: vault clock of \(value.count) bytes") }
        var times: [UInt64: UInt64] = Dictionary(minimumCapacity: value.count / 16)
        var last: UInt64 = 0
        try value.withBytes { (raw) throws(FormatError) in
            var reader = ByteReader(raw)
            while !reader.isAtEnd {
                let replica = try reader.u64("vault clock"), time = try reader.u64("vault clock")
                guard replica > last, time >= 1 else { throw .malformed("header: vault clock entries (replicas ascending, non-zero; times at least 1)") }
                last = replica
                times[replica] = time
            }
        }
        return VersionVector(times)
    }

    private static func parseRemovedSlots(_ value: [UInt8]) throws(FormatError) -> [RemovedKeySlot] {
        guard value.count % 24 == 0, !value.isEmpty else { throw .malformed("header: removed slots of \(value.count) bytes") }
        var out: [RemovedKeySlot] = []
        try value.withBytes { (raw) throws(FormatError) in
            var reader = ByteReader(raw)
            while !reader.isAtEnd {
                let identity = try reader.bytes(16, "removed slot"), time = try reader.u64("removed slot")
                let slot = RemovedKeySlot(identity: identity, time: time)
                if let previous = out.last, !RemovedKeySlot.precedes(previous, slot) {
                    throw .malformed("header: removed slots not in ascending order")
                }
                out.append(slot)
            }
        }
        return out
    }
}

extension KeySlotRecord {
    /// What names a slot across replicas (SPEC.md §17.4): the first 16 bytes of
    /// BLAKE2b-256(type ‖ body). A slot's bytes never change once written (a new password is
    /// a new slot), so equal identities are the same slot.
    package var identity: [UInt8] {
        ((try? BLAKE2b.hash([kind.code] + body)) ?? []).prefix(16).map { $0 }
    }
}

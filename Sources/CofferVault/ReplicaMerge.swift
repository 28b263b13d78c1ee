import CofferCrypto
import CofferFormat
import Foundation

/// The join of two replicas of one vault (SPEC.md §17): key slots, the vault clock and
/// every item, by rules that give the same result whatever the order of merges.
enum ReplicaMerge {
    /// What a merge changed in `ours`, counted by item.
    struct Outcome {
        var snapshot: VaultSnapshot
        var report: MergeReport
        /// Whether the result differs from `ours` at all (header or any record): a merge
        /// that changes nothing is not saved (no new generation, the backup stays).
        var changed: Bool
    }

    /// `ours` joined with `theirs` (both verified, same vault) item by item, by `sealer`.
    /// The result keeps `ours`'s file identity; its generation is the larger of the two.
    /// Every record taken from `theirs` as it is has its secret part opened first: a copy
    /// that fails any check adds nothing.
    /// `header`, when given, is the result's header as a merge across a rotation makes it
    /// (SPEC.md §17.8, EpochMerge.swift); both snapshots are then sealed under `sealer`'s key.
    static func merge(_ ours: VaultSnapshot, _ theirs: VaultSnapshot, sealer: ItemSealer,
                      header fixed: VaultHeaderV2? = nil) throws(CofferError) -> Outcome {
        var result = ours
        var report = MergeReport()
        if let fixed {
            result.header = fixed
            report.keySlots = KeySlotChange(from: ours.header.slots, to: fixed.slots)
        } else {
            result.header = try mergedHeader(ours.header, theirs.header, report: &report)
        }
        // The epoch start (SPEC.md §17.4): the later of two format-2 files' (a format-1 vault
        // upgraded on two devices has two); a file read as format 1 has none yet.
        switch (ours.sourceVersion == FormatV2.version, theirs.sourceVersion == FormatV2.version) {
        case (_, let theirsV2) where fixed != nil:
            // Across a rotation the header is made whole (its epoch and start): the next save
            // must not take a file read as format 1 for an upgrade and give it a new start.
            if theirsV2 { result.sourceVersion = FormatV2.version }
        case (true, true): result.header.epochStart = max(ours.header.epochStart, theirs.header.epochStart)
        case (false, true):
            result.header.epochStart = theirs.header.epochStart
            result.sourceVersion = FormatV2.version
        default: break
        }
        result.generation = max(ours.generation, theirs.generation)
        var changed: [(ItemID, SealedItem)] = []
        var both: [(ItemID, SnapshotEntry, SnapshotEntry)] = []
        for (id, entry) in theirs.entries.lazy.map({ ($0.key, $0.value) }) + theirs.tombstones.map({ ($0.key, $0.value) }) {
            // A record of ours whose overview did not open (``VaultSnapshot/damaged``) is
            // replaced by theirs, as if we never had it: merging another copy is how a damaged
            // item comes back. (One whose secret part alone is damaged: `coffer repair`.)
            guard let mine = ours.entries[id] ?? ours.tombstones[id] else {
                try sealer.check(entry.record, overview: entry.overview)
                changed.append((id, SealedItem(record: entry.record, overview: entry.overview)))
                continue
            }
            if mine.record.identity != entry.record.identity {
                both.append((id, mine, entry))
            } else if !Self.isSameRecord(mine, entry) {
                throw .malformed("entry \(id.hex): two different records under one nonce")
            }
        }
        // In id order: a merge that seals draws nonces, and the same inputs give the same file.
        for (id, mine, entry) in both.sorted(by: { $0.0 < $1.0 }) {
            let merged = try sealer.merge(try ItemVersion(record: mine.record, overview: mine.overview),
                                          try ItemVersion(record: entry.record, overview: entry.overview))
            // A record taken as it is from the copy: its secret part opened first (SPEC.md §17.5).
            if merged.record.identity == entry.record.identity { try sealer.check(entry.record, overview: entry.overview) }
            if merged.record.identity != mine.record.identity { changed.append((id, merged)) }
        }
        for (id, sealed) in changed {
            let wasLive = result.entries[id] != nil
            let existed = wasLive || result.tombstones[id] != nil
            let change = try Changeset.Change(sealed)
            let wasDamaged = result.damaged.removeValue(forKey: id) != nil
            result.applyChecked(id, change)
            switch change {
            case .tombstone:
                if wasLive { report.deleted += 1 } else if !existed { report.tombstones += 1 }
            case .put:
                if wasDamaged || wasLive { report.updated += 1 } else if !existed { report.added += 1 } else { report.restored += 1 }
            }
            if ItemClockCodec.hasSiblings(sealed.overview) { report.conflicted.append(id) }
        }
        return Outcome(snapshot: result, report: report, changed: !changed.isEmpty || result.header != ours.header)
    }

    /// Whether merging `theirs` into `ours` would change `ours` (``merge(_:_:sealer:)``'s
    /// `changed`), decided from headers, record identities and clocks alone: nothing is sealed.
    static func adds(_ theirs: VaultSnapshot, to ours: VaultSnapshot) throws(CofferError) -> Bool {
        var report = MergeReport()
        guard (try? mergedHeader(ours.header, theirs.header, report: &report)) == ours.header else { return true }
        for (id, entry) in theirs.entries.lazy.map({ ($0.key, $0.value) }) + theirs.tombstones.map({ ($0.key, $0.value) }) {
            guard let mine = ours.entries[id] ?? ours.tombstones[id] else { return true }
            // Two different records under one nonce: the merge refuses them.
            guard mine.record.identity != entry.record.identity else {
                if Self.isSameRecord(mine, entry) { continue }
                return true
            }
            let a = try ItemVersion(record: mine.record, overview: mine.overview)
            let b = try ItemVersion(record: entry.record, overview: entry.overview)
            // The merge keeps ours only when ours is the join (dates included).
            guard ItemSealer.joinChoice(a, b) == .first else { return true }
        }
        return false
    }

    /// Whether two records of one nonce are one record (SPEC.md §17.5, step 1): the same
    /// row and overview, and the same bytes when both are in memory. A writer draws a new
    /// nonce for every seal, so two different records under one come from a faulty or forged
    /// copy; taking either for the other made each side keep its own, and the merge did not
    /// commute (found by the merge fuzz target's kept inputs).
    static func isSameRecord(_ mine: SnapshotEntry, _ theirs: SnapshotEntry) -> Bool {
        mine.record.isSameRecord(as: theirs.record) && mine.overview == theirs.overview
    }

    /// Key slots: every slot either side has, except those either side removed; the
    /// vault clock and the removed slots: the union; other extensions: ours, then theirs'
    /// of types we lack.
    static func mergedHeader(_ ours: VaultHeaderV2, _ theirs: VaultHeaderV2, report: inout MergeReport) throws(CofferError) -> VaultHeaderV2 {
        if ours == theirs { return ours }
        var header = ours
        let removed = Set(ours.removedSlots).union(theirs.removedSlots)
        let gone = Set(removed.map(\.identity))
        var seen = Set<[UInt8]>()
        var slots: [KeySlotV2] = []
        for slot in ours.slots + theirs.slots {
            let identity = slot.identity
            guard !gone.contains(identity), seen.insert(identity).inserted else { continue }
            slots.append(slot)
        }
        report.keySlots = KeySlotChange(from: ours.slots, to: slots)
        guard !slots.isEmpty else { throw .slotUnavailable("the replicas removed every key slot between them") }
        // A vault remembers so many removals (the newest; SPEC.md §17.4). A merge that would
        // forget some would let a copy that still holds such a slot bring it back at the next
        // merge, and its key open the vault again (found by the merge fuzz target): refused.
        guard removed.count <= VaultHeaderV2.maxRemovedSlots else {
            throw .slotUnavailable("the replicas removed \(removed.count) key slots between them, more than the \(VaultHeaderV2.maxRemovedSlots) a vault remembers")
        }
        guard slots.count <= FormatV1.maxSlots else {
            throw .slotUnavailable("the merged vault would have \(slots.count) key slots, more than \(FormatV1.maxSlots); remove some on one replica first")
        }
        header.slots = slots
        header.removedSlots = Array(removed)
        header.clock = ours.clock.merged(with: theirs.clock)
        for ext in theirs.extensions where !header.extensions.contains(where: { $0.type == ext.type }) {
            header.extensions.append(ext)
        }
        return header
    }
}

/// What merging another replica into a vault did (``Vault/merge(contentsOf:)-(String)``).
public struct MergeReport: Sendable, Equatable, Codable {
    /// Items the other replica had and this one did not.
    public var added = 0
    /// Items changed by the merge.
    public var updated = 0
    /// Items the other replica had deleted.
    public var deleted = 0
    /// Deleted items brought back by an edit the deletion had not seen.
    public var restored = 0
    /// Deletions learnt of items this replica never had.
    public var tombstones = 0
    /// Key slots the merge added and removed, by kind (``slotsAdded``, ``slotsRemoved``).
    public var keySlots = KeySlotChange.none
    /// Items left with values that lost a concurrent edit (see ``Vault/conflicts(for:)``).
    public var conflicted: [ItemID] = []
    /// What came from, and was held back of, a copy under another vault key (SPEC.md §17.8).
    public var earlierKey = EarlierKeyReport()

    public init() {}

    /// Whether the merge changed nothing.
    public var isEmpty: Bool {
        added == 0 && updated == 0 && deleted == 0 && restored == 0 && tombstones == 0 && slotsAdded == 0 && slotsRemoved == 0
    }
}

import CofferCrypto
import CofferFormat
import CofferStore

/// Staged changes of one transaction.
struct Changeset: Sendable {
    enum Change: Sendable {
        /// A new or edited item, and its attributes (for unique keys).
        case put(SealedItem, ItemAttributes)
        /// A deleted item: its tombstone (SPEC.md §17.5).
        case tombstone(SealedItem)
    }

    /// In the order they were made, one per item (a later change replaces an earlier one).
    private(set) var entries: [ItemID: Change] = [:]
    private(set) var order: [ItemID] = []
    /// Each changed item as the transaction first read it (nil: added by it), so that the
    /// change can be made again on a version another writer saved meanwhile.
    private(set) var bases: [ItemID: ItemVersion?] = [:]
    /// Items whose conflicts the transaction resolved.
    var resolved: Set<ItemID> = []
    /// Items whose password history the transaction cleared (replayed as a clear).
    var historyCleared: Set<ItemID> = []
    /// A replacement header, when key slots changed.
    var header: VaultHeaderV2?
    /// The header the transaction read (the base of `header`'s slot changes).
    var baseHeader: VaultHeaderV2?
    /// The stamp of this transaction's edits (SPEC.md §17.1), drawn at its first write.
    var stamp: Stamp?
    /// The file the transaction's snapshot was read from.
    var basedOn: FileIdentity?

    var isEmpty: Bool { entries.isEmpty && header == nil }

    mutating func record(_ id: ItemID, _ change: Change, base: ItemVersion?) {
        if entries.updateValue(change, forKey: id) == nil {
            order.append(id)
            bases[id] = .some(base)
        }
    }

    /// The same changes sealed again under `new` (a file rekeyed while the transaction ran,
    /// SPEC.md §17.8): every staged record and base with a fresh nonce, and the slots of a
    /// replacement header wrapped for `new` from their public parts.
    func resealed(vaultID: [UInt8], from old: EpochKeys, to new: EpochKeys, entropy: EntropySource) throws(CofferError) -> Changeset {
        func move(_ record: RecordV2) throws(CofferError) -> RecordV2 {
            let nonce = try entropy.bytes(FormatV1.nonceLength)
            return try formatCall { () throws(FormatError) in try record.resealed(vaultID: vaultID, from: old, to: new, nonce: nonce) }
        }
        var out = self
        // In id order: the nonces are drawn in that order.
        for (id, change) in entries.sorted(by: { $0.key < $1.key }) {
            switch change {
            case .put(let sealed, let attributes): out.entries[id] = .put(SealedItem(record: try move(sealed.record), overview: sealed.overview), attributes)
            case .tombstone(let sealed): out.entries[id] = .tombstone(SealedItem(record: try move(sealed.record), overview: sealed.overview))
            }
        }
        for (id, base) in bases.sorted(by: { $0.key < $1.key }) {
            guard let base else { continue }
            out.bases[id] = .some(try ItemVersion(record: try move(base.record), overview: base.overview))
        }
        if var changed = header {
            changed.slots = try changed.slots.map { (slot) throws(CofferError) -> KeySlotV2 in
                guard slot.isNewStyle else { return slot }
                return try formatCall { () throws(FormatError) in try slot.restanza(vaultID: vaultID, epoch: new, entropy: entropy) }
            }
            out.header = changed
        }
        return out
    }

    /// Applies every change to `snapshot`, checking unique keys (another writer's file).
    func apply(to snapshot: inout VaultSnapshot) throws(CofferError) {
        if let header { snapshot.header = header }
        for id in order {
            if let change = entries[id] { try snapshot.apply(id, change) }
        }
    }

    /// What each change sealed (an item or its tombstone), in the order they were made.
    var sealedItems: [(id: ItemID, item: SealedItem)] {
        order.compactMap { id in
            switch entries[id] {
            case .put(let item, _)?, .tombstone(let item)?: (id, item)
            case nil: nil
            }
        }
    }

    /// Applies every change to the snapshot the transaction was made on.
    func applyChecked(to snapshot: inout VaultSnapshot) {
        if let header { snapshot.header = header }
        for id in order {
            if let change = entries[id] { snapshot.applyChecked(id, change) }
        }
    }
}

extension Changeset.Change {
    /// The change that puts `sealed` in place: its tombstone when it is deleted, else the
    /// item with its attributes (decoded from its checked overview).
    init(_ sealed: SealedItem) throws(CofferError) {
        if try VaultSnapshot.isTombstone(sealed.overview) {
            self = .tombstone(sealed)
        } else {
            self = .put(sealed, try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(sealed.overview) })
        }
    }
}

/// A sealed record and its overview list (as checked and kept by the snapshot).
struct SealedItem: Sendable {
    let record: RecordV2
    let overview: [UInt8]
}

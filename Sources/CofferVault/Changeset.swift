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

    /// Applies every change to `snapshot`, checking unique keys (another writer's file).
    func apply(to snapshot: inout VaultSnapshot) throws(CofferError) {
        if let header { snapshot.header = header }
        for id in order {
            if let change = entries[id] { try snapshot.apply(id, change) }
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

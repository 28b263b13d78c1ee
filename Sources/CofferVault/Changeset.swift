import CofferCrypto
import CofferFormat
import CofferStore

/// Staged changes of one transaction.
struct Changeset: Sendable {
    enum Change: Sendable {
        case put(EntryRecord, ItemAttributes)
        case delete
    }

    /// In the order they were made, one per item (a later change replaces an earlier one).
    private(set) var entries: [ItemID: Change] = [:]
    private(set) var order: [ItemID] = []
    /// A replacement header, when key slots changed.
    var header: VaultHeader?
    /// The file the transaction's snapshot was read from.
    var basedOn: FileIdentity?

    var isEmpty: Bool { entries.isEmpty && header == nil }

    mutating func record(_ id: ItemID, _ change: Change) {
        if entries.updateValue(change, forKey: id) == nil { order.append(id) }
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

    /// Refuses changes to items that another writer changed since `base` was read.
    func checkNoConflict(base: VaultSnapshot, theirs: VaultSnapshot) throws(CofferError) {
        for id in order where base.record(id)?.revision != theirs.record(id)?.revision {
            throw .conflict("item \(id.hex) was changed by another writer")
        }
        if header != nil, base.header != theirs.header {
            throw .conflict("key slots were changed by another writer")
        }
    }
}

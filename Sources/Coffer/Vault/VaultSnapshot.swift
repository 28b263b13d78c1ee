/// What an open vault knows of its file: the version it last read or wrote,
/// with every overview decrypted and checked.
struct VaultSnapshot: Sendable {
    var header: VaultHeader
    var generation: UInt64
    var records: [ItemID: EntryRecord]
    /// Every item's overview as its field list (SPEC.md §7.2): a few hundred bytes per
    /// item instead of a struct of strings and arrays. ``attributes(_:)`` decodes one.
    var overviews: [ItemID: [UInt8]]
    var identity: FileIdentity
    /// Built on the first write, so opening and listing never pay for it. A reference,
    /// so that a transaction's copy of the snapshot builds it for the vault too.
    private var index = UniqueIndex()

    var vaultID: [UInt8] { header.vaultID }

    /// Decrypts every overview of a verified file, on all cores. Overviews of records
    /// that are byte for byte those of `previous` are reused instead of decrypted again.
    init(codec: VaultFileCodec, keys: VaultKeys, identity: FileIdentity, reusing previous: VaultSnapshot? = nil) throws(CofferError) {
        header = codec.header
        generation = codec.manifest.generation
        self.identity = identity
        let vaultID = codec.header.vaultID
        let opened = try ParallelWork.map(codec.records) { (record) throws(CofferError) -> [UInt8] in
            if let previous, let old = previous.records[record.id], old.body == record.body,
               let known = previous.overviews[record.id] {
                return known
            }
            return try record.openOverviewList(vaultID: vaultID, keys: keys)
        }
        records = Dictionary(minimumCapacity: codec.records.count)
        overviews = Dictionary(minimumCapacity: codec.records.count)
        for (record, overview) in zip(codec.records, opened) {
            records[record.id] = record
            overviews[record.id] = overview
        }
    }

    /// The attributes of item `id`, decoded from its (checked) overview.
    func attributes(_ id: ItemID) throws(CofferError) -> ItemAttributes? {
        guard let list = overviews[id] else { return nil }
        return try EntryCodec.decodeOverview(list)
    }

    /// The holder of `key`, building the index on first use.
    func owner(of key: UniquenessKey) -> ItemID? {
        index.build(from: overviews)
        return index.owners[key]
    }

    /// Forgets the decrypted overviews (``Vault/lock()``).
    mutating func forgetAttributes() {
        overviews = [:]
        index = UniqueIndex()
    }

    /// The records after `changes`, for encoding a save without changing this snapshot.
    func records(applying changes: Changeset) -> [EntryRecord] {
        var out: [EntryRecord] = []
        out.reserveCapacity(records.count + changes.order.count)
        for (id, record) in records where changes.entries[id] == nil { out.append(record) }
        for id in changes.order {
            if case .put(let record, _)? = changes.entries[id] { out.append(record) }
        }
        return out
    }

    /// Applies one change; a duplicate key throws ``CofferError/duplicateItem``.
    mutating func apply(_ id: ItemID, _ change: Changeset.Change) throws(CofferError) {
        if case .put(_, let newAttributes) = change, let key = newAttributes.uniquenessKey,
           let owner = owner(of: key), owner != id {
            throw .duplicateItem
        }
        applyChecked(id, change)
    }

    /// Applies one change already checked for duplicates (by the transaction that made it,
    /// against this same snapshot).
    mutating func applyChecked(_ id: ItemID, _ change: Changeset.Change) {
        // A copy of this snapshot keeps the index of its own attributes.
        if !isKnownUniquelyReferenced(&index) { index = index.copy() }
        if index.isBuilt {
            if let old = overviews[id], let oldKey = UniqueIndex.key(ofOverview: old), index.owners[oldKey] == id {
                index.owners[oldKey] = nil
            }
            if case .put(_, let newAttributes) = change, let key = newAttributes.uniquenessKey {
                index.owners[key] = id
            }
        }
        switch change {
        case .put(let record, let newAttributes):
            records[id] = record
            overviews[id] = EntryCodec.encodeOverview(newAttributes).publicBytes
        case .delete:
            records[id] = nil
            overviews[id] = nil
        }
    }
}

/// The item holding each unique key (``UniquenessKey``).
final class UniqueIndex: @unchecked Sendable {
    // @unchecked: used only under the vault's lock.
    var owners: [UniquenessKey: ItemID] = [:]
    private(set) var isBuilt = false

    func build(from overviews: [ItemID: [UInt8]]) {
        guard !isBuilt else { return }
        owners.reserveCapacity(overviews.count)
        for (id, list) in overviews {
            guard let key = Self.key(ofOverview: list) else { continue }
            // Two items with one key can only come from a faulty writer; keep the first, refuse new duplicates.
            if owners[key] == nil { owners[key] = id }
        }
        isBuilt = true
    }

    /// An overview's unique key (nil for a secure note), read from its bytes: decoding
    /// every item of a large vault to build the index would cost more.
    static func key(ofOverview list: [UInt8]) -> UniquenessKey? {
        let read = list.withUnsafeBytes { raw -> UniquenessKey?? in
            guard let f = OverviewFields(raw) else { return nil }
            func text(_ range: Range<Int>?) -> String { range.map { OverviewFields.string($0, in: raw) } ?? "" }
            switch ItemKind(code: f.kind) {
            case .genericPassword?: return .generic(service: text(f.service), account: text(f.account))
            case .internetPassword?:
                return .internet(server: text(f.server), protocol: text(f.protocol), port: f.port ?? 0,
                                 path: text(f.path), account: text(f.account))
            default: return .some(nil)
            }
        }
        if let read { return read }
        return (try? EntryCodec.decodeOverview(list))?.uniquenessKey
    }

    func copy() -> UniqueIndex {
        let copy = UniqueIndex()
        copy.owners = owners
        copy.isBuilt = isBuilt
        return copy
    }
}

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
        for id in order where base.records[id]?.revision != theirs.records[id]?.revision {
            throw .conflict("item \(id.hex) was changed by another writer")
        }
        if header != nil, base.header != theirs.header {
            throw .conflict("key slots were changed by another writer")
        }
    }
}

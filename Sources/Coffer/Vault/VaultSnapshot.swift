/// What an open vault knows of its file: the version it last read or wrote,
/// with every overview decrypted.
struct VaultSnapshot: Sendable {
    var header: VaultHeader
    var generation: UInt64
    var records: [ItemID: EntryRecord]
    var attributes: [ItemID: ItemAttributes]
    var identity: FileIdentity
    /// Built on the first write, so opening and listing never pay for it.
    private(set) var uniqueIndex: [UniquenessKey: ItemID]?

    var vaultID: [UInt8] { header.vaultID }

    /// Decrypts every overview of a verified file. Overviews of records that are byte
    /// for byte those of `previous` are reused instead of decrypted again.
    init(codec: VaultFileCodec, keys: VaultKeys, identity: FileIdentity, reusing previous: VaultSnapshot? = nil) throws(CofferError) {
        header = codec.header
        generation = codec.manifest.generation
        self.identity = identity
        records = Dictionary(minimumCapacity: codec.records.count)
        attributes = Dictionary(minimumCapacity: codec.records.count)
        for record in codec.records {
            records[record.id] = record
            if let previous, let old = previous.records[record.id], old.body == record.body,
               let known = previous.attributes[record.id] {
                attributes[record.id] = known
            } else {
                attributes[record.id] = try record.openOverview(vaultID: codec.header.vaultID, keys: keys)
            }
        }
    }

    mutating func buildIndexIfNeeded() throws(CofferError) {
        guard uniqueIndex == nil else { return }
        var index: [UniquenessKey: ItemID] = [:]
        for (id, a) in attributes {
            guard let key = a.uniquenessKey else { continue }
            // Two items with one key can only come from a faulty writer; keep the first, refuse new duplicates.
            if index[key] == nil { index[key] = id }
        }
        uniqueIndex = index
    }

    /// The item holding `key`, if any.
    func owner(of key: UniquenessKey) -> ItemID? { uniqueIndex?[key] }

    /// Applies one change; a duplicate key throws ``CofferError/duplicateItem``.
    mutating func apply(_ id: ItemID, _ change: Changeset.Change) throws(CofferError) {
        try buildIndexIfNeeded()
        if let old = attributes[id], let oldKey = old.uniquenessKey, uniqueIndex?[oldKey] == id {
            uniqueIndex?[oldKey] = nil
        }
        switch change {
        case .put(let record, let newAttributes):
            if let key = newAttributes.uniquenessKey {
                if let owner = uniqueIndex?[key], owner != id { throw .duplicateItem }
                uniqueIndex?[key] = id
            }
            records[id] = record
            attributes[id] = newAttributes
        case .delete:
            records[id] = nil
            attributes[id] = nil
        }
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

    var isEmpty: Bool { entries.isEmpty && header == nil }

    mutating func record(_ id: ItemID, _ change: Change) {
        if entries.updateValue(change, forKey: id) == nil { order.append(id) }
    }

    /// Applies every change to `snapshot`.
    func apply(to snapshot: inout VaultSnapshot) throws(CofferError) {
        if let header { snapshot.header = header }
        for id in order {
            if let change = entries[id] { try snapshot.apply(id, change) }
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

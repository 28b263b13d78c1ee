import CofferCrypto
import CofferFormat

/// One version of an item as a record holds it: the record, its checked overview list and
/// its clock (derived for an item written before clocks, SPEC.md §17.6). Enough to decide
/// §17.5's steps 1 and 2 without decrypting anything.
struct ItemVersion: Sendable {
    let record: EntryRecord
    let overview: [UInt8]
    /// Versions and deletion only, for a legacy item: its stamps need its parts (``stampedClock(for:)``).
    let clock: ItemClock
    /// Written before clocks: no clock fields in its overview.
    let isLegacy: Bool

    /// The record's digest is checked (SPEC.md §10, step 13): nothing is edited, merged or
    /// replayed from a record the manifest does not name.
    init(record: EntryRecord, overview: [UInt8]) throws(CofferError) {
        (clock, isLegacy) = try formatCall { () throws(FormatError) in
            try record.checkDigest()
            if let clock = try ItemClockCodec.decode(overview: overview) { return (clock, false) }
            return (ItemClock.legacy(digest: record.digest, revision: record.revision, registers: []), true)
        }
        self.record = record
        self.overview = overview
    }

    /// The clock with every register of `parts` (this version's) stamped: a legacy item's
    /// valued registers get the legacy stamp, a named field its clock's default stamp.
    func stampedClock(for parts: ItemParts) -> ItemClock {
        guard isLegacy else { return clock.resolved(present: parts.valuedRegisters) }
        return ItemClock.legacy(digest: record.digest, revision: record.revision, registers: parts.valuedRegisters)
    }

    var sealed: SealedItem { SealedItem(record: record, overview: overview) }
}

/// Where items meet the vault's keys: it opens a version into the state the merge rules
/// work on (``ItemState``), runs the rules (``ItemMerge``), and seals the result as a new
/// record. Used by transactions, by a transaction made again on a newer version, and by
/// the merge of replicas; format errors take their ``CofferError`` kind here.
struct ItemSealer {
    let vaultID: [UInt8]
    let keys: VaultKeys
    let entropy: EntropySource

    /// A new item written by one edit stamped `stamp`.
    ///
    /// Sealed straight from the encoders, with no decrypted copy of the secrets to cut into
    /// registers: adding many items (an import) costs one guarded buffer per item.
    func add(id: ItemID, attributes: ItemAttributes, secrets: ItemSecrets, stamp: Stamp) throws(CofferError) -> SealedItem {
        try formatCall { () throws(FormatError) in
            try EntryCodec.checkDates(attributes, secrets)
            var overview = EntryCodec.encodeOverview(attributes).publicBytes
            let present = try ItemParts.registers(ofOverview: overview).union(ItemParts.registers(of: secrets))
            overview += try ItemClockCodec.encode(ItemMerge.clock(ofNewItem: present, stamp: stamp), present: present)
            let record = try EntryRecord.seal(id: id, revision: 1, overview: overview, secrets: EntryCodec.encodeSecrets(secrets),
                                              vaultID: vaultID, keys: keys, entropy: entropy)
            return SealedItem(record: record, overview: overview)
        }
    }

    /// The join of two versions of one item (SPEC.md §17.5): one of them, record for
    /// record, when it has seen all the other has; else a new record at the higher revision + 1.
    func merge(_ a: ItemVersion, _ b: ItemVersion) throws(CofferError) -> SealedItem {
        if a.record.digest == b.record.digest { return a.sealed }
        switch ItemMerge.dominance(a.clock, b.clock) {
        case .first: return a.sealed
        case .second: return b.sealed
        case .both: return Self.keepsFirst(of: a, b) ? a.sealed : b.sealed
        case .neither:
            return try formatCall { () throws(FormatError) in
                try seal(try ItemMerge.joinConcurrent(try open(a), try open(b)), id: a.record.id,
                         revision: max(a.record.revision, b.record.revision) + 1)
            }
        }
    }

    /// Of two versions that have seen the same edits (sealed twice), the one every replica
    /// keeps: the higher revision, then the lower digest.
    static func keepsFirst(of a: ItemVersion, _ b: ItemVersion) -> Bool {
        if a.record.revision != b.record.revision { return a.record.revision > b.record.revision }
        return a.record.digest.bytes.lexicographicallyPrecedes(b.record.digest.bytes)
    }

    /// Checks that a record another replica holds opens as a reader would open it (its
    /// digest, then its secret part decrypted and parsed; its overview was checked when the
    /// replica was read), before the record is taken into this vault as it is.
    func check(_ record: EntryRecord) throws(CofferError) {
        try formatCall { () throws(FormatError) in
            try record.checkDigest()
            _ = try record.openSecretList(vaultID: vaultID, keys: keys)
        }
    }

    /// An edit of `version` (read and edited in one transaction) to `attributes` and `secrets`.
    func edit(_ version: ItemVersion, to attributes: ItemAttributes, secrets: ItemSecrets, stamp: Stamp,
              resolvingConflicts: Bool = false) throws(CofferError) -> SealedItem {
        try formatCall { () throws(FormatError) in
            try EntryCodec.checkDates(attributes, secrets)
            let new = try ItemParts(overview: EntryCodec.encodeOverview(attributes).publicBytes,
                                    secrets: EntryCodec.encodeSecrets(secrets).secureBytes())
            return try seal(try ItemMerge.edit(try open(version), madeOn: nil, to: new, stamp: stamp, resolvingConflicts: resolvingConflicts),
                            id: version.record.id, revision: version.record.revision + 1)
        }
    }

    /// A transaction's edit made again on `current`, a newer version than `base`, the one
    /// it was made on: `staged` is the record the transaction sealed, whose parts are the edit's result.
    func replay(_ staged: SealedItem, on current: ItemVersion, madeOn base: ItemVersion, stamp: Stamp,
                resolvingConflicts: Bool) throws(CofferError) -> SealedItem {
        let edit = try ItemVersion(record: staged.record, overview: staged.overview)
        return try formatCall { () throws(FormatError) in
            let new = try open(edit).parts
            let now = try open(current)
            let then = current.record.digest == base.record.digest ? nil : try open(base)
            return try seal(try ItemMerge.edit(now, madeOn: then, to: new, stamp: stamp, resolvingConflicts: resolvingConflicts),
                            id: current.record.id, revision: current.record.revision + 1)
        }
    }

    /// The tombstone of `current`; nil when another writer edited the item after `base`,
    /// the version the deletion was asked on (``ItemMerge/deletionStands(on:askedOn:)``).
    func delete(_ current: ItemVersion, askedOn base: ItemVersion, stamp: Stamp) throws(CofferError) -> SealedItem? {
        guard current.record.digest == base.record.digest || ItemMerge.deletionStands(on: current.clock, askedOn: base.clock) else {
            return nil
        }
        return try formatCall { () throws(FormatError) in
            try seal(ItemMerge.delete(try open(current), stamp: stamp), id: current.record.id, revision: current.record.revision + 1)
        }
    }

    /// An item's secrets as the API shows them (``ItemMerge/secretsView(_:losing:)``). An
    /// entry with merge fields is checked against them first (SPEC.md §17.3: a register with
    /// a value and no stamp, or a sibling without its value, is "malformed" for every reader).
    func secrets(of version: ItemVersion) throws(CofferError) -> ItemSecrets {
        try formatCall { () throws(FormatError) in
            guard !version.isLegacy else { return try version.record.openSecrets(vaultID: vaultID, keys: keys) }
            let list = try version.record.openSecretList(vaultID: vaultID, keys: keys)
            let parts = try ItemParts(overview: version.overview, secrets: list)
            try parts.checkConsistency(with: version.clock)
            let secrets = try list.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            guard ItemClockCodec.hasSiblings(version.overview) else { return secrets }
            return try ItemMerge.secretsView(secrets, losing: parts.conflicts)
        }
    }

    /// The values of the item that lost a concurrent edit (none without siblings in its
    /// overview), each with its field's name for a named field (``ItemParts/fieldName(of:)``).
    func conflicts(of version: ItemVersion) throws(CofferError) -> [(conflict: ItemParts.Conflict, name: String?)] {
        guard ItemClockCodec.hasSiblings(version.overview) else { return [] }
        return try formatCall { () throws(FormatError) in
            let parts = try open(version).parts
            return parts.conflicts.map { ($0, parts.fieldName(of: $0.register)) }
        }
    }

    // MARK: The boundary

    /// The version's state: its parts (the secret part decrypted and checked) and its stamped clock.
    func open(_ version: ItemVersion) throws(FormatError) -> ItemState {
        let parts = try ItemParts(overview: version.overview, secrets: version.record.openSecretList(vaultID: vaultID, keys: keys))
        try parts.checkConsistency(with: version.isLegacy ? nil : version.clock)
        return ItemState(parts: parts, clock: version.stampedClock(for: parts))
    }

    /// `state` sealed as record `revision` of item `id`.
    func seal(_ state: ItemState, id: ItemID, revision: UInt64) throws(FormatError) -> SealedItem {
        let overview = try state.parts.overviewList(clock: state.clock)
        let secrets = try state.parts.secretList()
        // What is sealed is read back first: a list cut and put together again is never
        // written unless a reader would accept it (the overview is checked as it is built).
        _ = try secrets.secureBytes().withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
        let record = try EntryRecord.seal(id: id, revision: revision, overview: overview, secrets: secrets,
                                          vaultID: vaultID, keys: keys, entropy: entropy)
        return SealedItem(record: record, overview: overview)
    }
}

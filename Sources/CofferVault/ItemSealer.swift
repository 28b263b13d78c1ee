import CofferCrypto
import CofferFormat

/// One version of an item as a record holds it: the record, its checked overview list and
/// its clock. Enough to decide §17.5's steps 1 and 2 without decrypting anything. Every
/// format-2 record has a clock (a format-1 record written before clocks got its derived one,
/// SPEC.md §17.6, when it was read, §11.1).
struct ItemVersion: Sendable {
    let record: RecordV2
    let overview: [UInt8]
    /// Versions, stamps and deletion: named fields' stamps need its parts (``stampedClock(for:)``).
    let clock: ItemClock

    /// The record's overview was authenticated when the snapshot read it; its secret part
    /// is, when it is opened (nothing is edited, merged or replayed from a record that
    /// fails its AEAD).
    init(record: RecordV2, overview: [UInt8]) throws(CofferError) {
        clock = try formatCall { () throws(FormatError) in
            guard let clock = try ItemClockCodec.decode(overview: overview) else { throw .malformed("entry \(record.id.hex): no clock") }
            return clock
        }
        self.record = record
        self.overview = overview
    }

    /// The clock with every register of `parts` (this version's) stamped: a named field
    /// its clock's default stamp, where format 1's encoding left it implied.
    func stampedClock(for parts: ItemParts) -> ItemClock {
        clock.resolved(present: parts.valuedRegisters)
    }

    var sealed: SealedItem { SealedItem(record: record, overview: overview) }

    /// Its dates, milliseconds since 1970, from its checked overview.
    var dates: Dates {
        let dates = overview.withUnsafeBytes { OverviewFields.dates(in: $0) }
        return Dates(created: dates.created ?? 0, modified: dates.modified ?? 0)
    }

    struct Dates: Equatable { let created: Int64, modified: Int64 }
}

/// Where items meet the vault's keys: it opens a version into the state the merge rules
/// work on (``ItemState``), runs the rules (``ItemMerge``), and seals the result as a new
/// record. Used by transactions, by a transaction made again on a newer version, and by
/// the merge of replicas; format errors take their ``CofferError`` kind here.
struct ItemSealer {
    let vaultID: [UInt8]
    let keys: EpochKeys
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
            let sealed = try RecordV2.sealReturningOverview(id: id, revision: 1, overview: overview, secrets: EntryCodec.encodeSecrets(secrets),
                                                            vaultID: vaultID, keys: keys, entropy: entropy)
            return SealedItem(record: sealed.record, overview: sealed.overview)
        }
    }

    /// The join of two versions of one item (SPEC.md §17.5): one of them, record for
    /// record, when it is the join (``joinChoice(_:_:)``); else a new record at the higher
    /// revision + 1.
    func merge(_ a: ItemVersion, _ b: ItemVersion) throws(CofferError) -> SealedItem {
        if a.record.identity == b.record.identity { return a.sealed }
        switch Self.joinChoice(a, b) {
        case .first: return a.sealed
        case .second: return b.sealed
        case .new:
            return try formatCall { () throws(FormatError) in
                try seal(try ItemMerge.joinConcurrent(try open(a), try open(b)), id: a.record.id,
                         revision: max(a.record.revision, b.record.revision) + 1)
            }
        }
    }

    enum JoinChoice { case first, second, new }

    /// Which record the join of two versions is (SPEC.md §17.5, steps 2 and 3), decided from
    /// their clocks and dates alone. A version is the join when it has seen all the other
    /// has and its dates hold the other's (created no later, modified no earlier): `modified`
    /// is then a function of the merged contents alone, whatever the order. Of two that are
    /// both the join (the same edits, the same dates), the one ``keepsFirst(of:_:)`` names.
    /// Two versions of the same edits with other dates (a faulty copy's) are each the join
    /// when its dates hold the other's, so merging the same copy again keeps the result.
    static func joinChoice(_ a: ItemVersion, _ b: ItemVersion) -> JoinChoice {
        let dominance = ItemMerge.dominance(a.clock, b.clock)
        let (da, db) = (a.dates, b.dates)
        let aIsJoin = (dominance == .first || dominance == .both) && da.created <= db.created && da.modified >= db.modified
        let bIsJoin = (dominance == .second || dominance == .both) && db.created <= da.created && db.modified >= da.modified
        switch (aIsJoin, bIsJoin) {
        case (true, true): return keepsFirst(of: a, b) ? .first : .second
        case (true, false): return .first
        case (false, true): return .second
        case (false, false): return .new
        }
    }

    /// Of two versions that have seen the same edits (sealed twice), the one every replica
    /// keeps: the higher revision, then the smaller nonce (SPEC.md §17.5, step 2).
    static func keepsFirst(of a: ItemVersion, _ b: ItemVersion) -> Bool {
        if a.record.revision != b.record.revision { return a.record.revision > b.record.revision }
        return a.record.identity.bytes.lexicographicallyPrecedes(b.record.identity.bytes)
    }

    /// Checks that a record another replica holds opens as a reader would open it (its
    /// secret part decrypted, parsed and checked against `overview`, its overview list,
    /// authenticated when the replica was read), before it is taken into this vault as it is.
    func check(_ record: RecordV2, overview: [UInt8]) throws(CofferError) {
        try formatCall { () throws(FormatError) in
            _ = try record.openSecretList(vaultID: vaultID, keys: keys, overview: overview)
        }
    }

    /// An edit of `version` (read and edited in one transaction) to `attributes` and `secrets`.
    func edit(_ version: ItemVersion, to attributes: ItemAttributes, secrets: ItemSecrets, stamp: Stamp,
              resolvingConflicts: Bool = false, clearingHistory: Bool = false) throws(CofferError) -> SealedItem {
        try formatCall { () throws(FormatError) in
            try EntryCodec.checkDates(attributes, secrets)
            let new = try ItemParts(overview: EntryCodec.encodeOverview(attributes).publicBytes,
                                    secrets: EntryCodec.encodeSecrets(secrets).secureBytes())
            return try seal(try ItemMerge.edit(try open(version), madeOn: nil, to: new, stamp: stamp, resolvingConflicts: resolvingConflicts,
                                               clearingHistory: clearingHistory),
                            id: version.record.id, revision: version.record.revision + 1)
        }
    }

    /// A transaction's edit made again on `current`, a newer version than `base`, the one
    /// it was made on: `staged` is the record the transaction sealed, whose parts are the edit's result.
    func replay(_ staged: SealedItem, on current: ItemVersion, madeOn base: ItemVersion, stamp: Stamp,
                resolvingConflicts: Bool, clearingHistory: Bool = false) throws(CofferError) -> SealedItem {
        let edit = try ItemVersion(record: staged.record, overview: staged.overview)
        return try formatCall { () throws(FormatError) in
            let new = try open(edit).parts
            let now = try open(current)
            let then = current.record.identity == base.record.identity ? nil : try open(base)
            return try seal(try ItemMerge.edit(now, madeOn: then, to: new, stamp: stamp, resolvingConflicts: resolvingConflicts,
                                               clearingHistory: clearingHistory),
                            id: current.record.id, revision: current.record.revision + 1)
        }
    }

    /// The tombstone of `current`; nil when another writer edited the item after `base`,
    /// the version the deletion was asked on (``ItemMerge/deletionStands(on:askedOn:)``).
    func delete(_ current: ItemVersion, askedOn base: ItemVersion, stamp: Stamp) throws(CofferError) -> SealedItem? {
        guard current.record.identity == base.record.identity || ItemMerge.deletionStands(on: current.clock, askedOn: base.clock) else {
            return nil
        }
        return try formatCall { () throws(FormatError) in
            try seal(ItemMerge.delete(try open(current), stamp: stamp), id: current.record.id, revision: current.record.revision + 1)
        }
    }

    /// An item's secrets as the API shows them (``ItemMerge/secretsView(_:losing:)``), the
    /// secret part checked against the merge fields first (SPEC.md §17.3: a register with a
    /// value and no stamp, or a sibling without its value, is "malformed" for every reader).
    func secrets(of version: ItemVersion) throws(CofferError) -> ItemSecrets {
        try formatCall { () throws(FormatError) in
            var secrets = try version.record.openSecrets(vaultID: vaultID, keys: keys, overview: version.overview)
            guard ItemClockCodec.hasSiblings(version.overview) else {
                secrets.passwordHistory = ItemMerge.visibleHistory(secrets.passwordHistory)
                return secrets
            }
            return try ItemMerge.secretsView(secrets, losing: try open(version).parts.conflicts)
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
        let parts = try ItemParts(overview: version.overview,
                                  secrets: version.record.openSecretList(vaultID: vaultID, keys: keys, overview: version.overview))
        return ItemState(parts: parts, clock: version.stampedClock(for: parts))
    }

    /// `state` sealed as record `revision` of item `id`.
    func seal(_ state: ItemState, id: ItemID, revision: UInt64) throws(FormatError) -> SealedItem {
        if state.clock.isDeleted {
            // A tombstone keeps its dates and clock only (SPEC.md §7.6).
            let sealed = try RecordV2.sealReturningOverview(id: id, revision: revision, overview: try state.parts.tombstoneList(clock: state.clock),
                                                            secrets: FieldList(), tombstone: true, vaultID: vaultID, keys: keys, entropy: entropy)
            return SealedItem(record: sealed.record, overview: sealed.overview)
        }
        let overview = try state.parts.overviewList(clock: state.clock)
        let secrets = try state.parts.secretList()
        // What is sealed is read back first: a list cut and put together again is never
        // written unless a reader would accept it (the overview is checked as it is built).
        let secretList = try secrets.secureBytes()
        _ = try secretList.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
        try ItemParts(overview: overview, secrets: secretList).checkConsistency(with: state.clock)
        let sealed = try RecordV2.sealReturningOverview(id: id, revision: revision, overview: overview, secrets: secrets,
                                                        vaultID: vaultID, keys: keys, entropy: entropy)
        return SealedItem(record: sealed.record, overview: sealed.overview)
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import Dispatch

/// What an open vault knows of its file: the version it last read or wrote,
/// with every overview decrypted and checked.
package struct VaultSnapshot: Sendable {
    var header: VaultHeader
    var generation: UInt64
    /// Every item's record and checked overview, in one dictionary: a large vault
    /// spends a good part of its opening time filling it.
    package var entries: [ItemID: SnapshotEntry]
    /// Deleted items (SPEC.md §17.5): kept with their content until compacted, so that a
    /// replica that has not seen the deletion merges correctly. Never listed.
    package var tombstones: [ItemID: SnapshotEntry] = [:]
    var identity: FileIdentity
    /// Built on the first write, so opening and listing never pay for it. A reference,
    /// so that a transaction's copy of the snapshot builds it for the vault too.
    private var index = UniqueIndex()

    var vaultID: [UInt8] { header.vaultID }

    /// Decrypts every overview of a verified file, on all cores. Overviews of records
    /// that are byte for byte those of `previous` are reused instead of decrypted again.
    package init(codec: VaultFile, keys: VaultKeys, identity: FileIdentity, reusing previous: VaultSnapshot? = nil) throws(CofferError) {
        header = codec.header
        generation = codec.manifest.generation
        self.identity = identity
        let vaultID = codec.header.vaultID
        let read = codec.records
        // Records are reached through a buffer pointer: indexing the array from the
        // threads copied each record, retaining the file buffer they all share from
        // every thread at once.
        let opened = try read.withUnsafeBufferPointer { (records) throws(CofferError) -> [[UInt8]] in
            try formatCall { () throws(FormatError) in try ParallelWork.map(count: records.count) { (index) throws(FormatError) -> [UInt8] in
                if let previous, let old = previous.entries[records[index].id], old.record.digest == records[index].digest {
                    return old.overview
                }
                return try records[index].openOverviewList(vaultID: vaultID, keys: keys)
            } }
        }
        entries = Dictionary(minimumCapacity: read.count)
        for index in read.indices {
            let entry = SnapshotEntry(record: read[index], overview: opened[index])
            if try Self.isTombstone(entry.overview) {
                tombstones[read[index].id] = entry
            } else {
                entries[read[index].id] = entry
            }
        }
    }

    /// Whether a checked overview is that of a deleted item (only those with a deletion field
    /// are decoded to find out).
    static func isTombstone(_ overview: [UInt8]) throws(CofferError) -> Bool {
        guard ItemClockCodec.mayBeDeleted(overview) else { return false }
        return try formatCall { () throws(FormatError) in try ItemClockCodec.decode(overview: overview)?.isDeleted ?? false }
    }

    /// The version of item `id`, live or deleted, for merging and editing.
    func version(_ id: ItemID) throws(CofferError) -> ItemVersion? {
        guard let entry = entries[id] ?? tombstones[id] else { return nil }
        return try ItemVersion(record: entry.record, overview: entry.overview)
    }

    /// The attributes of item `id`, decoded from its (checked) overview.
    func attributes(_ id: ItemID) throws(CofferError) -> ItemAttributes? {
        guard let list = entries[id]?.overview else { return nil }
        return try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(list) }
    }

    /// The holder of `key`, building the index on first use.
    func owner(of key: UniquenessKey) -> ItemID? {
        index.build(from: entries)
        return index.owners[key]
    }

    /// The record of item `id`.
    func record(_ id: ItemID) -> EntryRecord? { entries[id]?.record }

    /// Every record, tombstones included, in no particular order.
    var allRecords: [EntryRecord] { entries.values.map(\.record) + tombstones.values.map(\.record) }

    /// Forgets the decrypted overviews, and the records with them (unlocking reads the
    /// file again).
    mutating func forgetAttributes() {
        entries = [:]
        tombstones = [:]
        index = UniqueIndex()
    }

    /// ``forgetAttributes()`` for a vault that is locked or going away: a large vault's
    /// entries are freed on another thread. Freeing 100,000 entries (three heap blocks
    /// each) takes tens of milliseconds, which a command that has printed its answer
    /// would otherwise spend before it can exit. Only plain attributes go this way:
    /// keys and secrets live in guarded memory and are wiped where they are released.
    mutating func releaseAttributes() {
        let old = entries
        forgetAttributes()
        guard old.count >= Self.backgroundReleaseThreshold else { return }
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(old) {} }
    }

    static let backgroundReleaseThreshold = 10_000

    /// The records after `changes`, for encoding a save without changing this snapshot.
    func records(applying changes: Changeset) -> [EntryRecord] {
        var out: [EntryRecord] = []
        out.reserveCapacity(entries.count + tombstones.count + changes.order.count)
        for (id, entry) in entries where changes.entries[id] == nil { out.append(entry.record) }
        for (id, entry) in tombstones where changes.entries[id] == nil { out.append(entry.record) }
        for id in changes.order {
            switch changes.entries[id] {
            case .put(let sealed, _)?, .tombstone(let sealed)?: out.append(sealed.record)
            case nil: break
            }
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
            if let old = entries[id]?.overview, let oldKey = UniqueIndex.key(ofOverview: old), index.owners[oldKey] == id {
                index.owners[oldKey] = nil
            }
            if case .put(_, let newAttributes) = change, let key = newAttributes.uniquenessKey {
                index.owners[key] = id
            }
        }
        switch change {
        case .put(let sealed, _):
            entries[id] = SnapshotEntry(record: sealed.record, overview: sealed.overview)
            tombstones[id] = nil
        case .tombstone(let sealed):
            entries[id] = nil
            tombstones[id] = SnapshotEntry(record: sealed.record, overview: sealed.overview)
        }
    }
}

/// One item of a snapshot: its record as on disk, and its overview decrypted and
/// checked, kept as its field list (SPEC.md §7.2): a few hundred bytes per item instead
/// of a struct of strings and arrays. ``VaultSnapshot/attributes(_:)`` decodes one.
///
/// A class, never changed once made (a change puts a new one in place): passing one
/// around is one reference count, where copying the record's struct cost a dozen
/// when a large vault is listed.
package final class SnapshotEntry: Sendable {
    let record: EntryRecord
    let overview: [UInt8]

    init(record: EntryRecord, overview: [UInt8]) {
        self.record = record
        self.overview = overview
    }
}

/// The item holding each unique key (``UniquenessKey``).
package final class UniqueIndex: @unchecked Sendable {
    // @unchecked: used only under the vault's lock.
    var owners: [UniquenessKey: ItemID] = [:]
    private(set) var isBuilt = false

    func build(from entries: [ItemID: SnapshotEntry]) {
        guard !isBuilt else { return }
        owners.reserveCapacity(entries.count)
        for (id, entry) in entries {
            guard let key = Self.key(ofOverview: entry.overview) else { continue }
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

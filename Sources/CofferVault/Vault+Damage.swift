import CofferCrypto
import CofferFormat
import CofferStore

/// A record of the vault file that cannot be read: damaged on disk, its overview does not
/// decrypt or, for ``Vault/damagedItems()``, its secret part. Nothing of it is read, not even its name: it is known by its id.
///
/// ```swift
/// let listing = try vault.readableItems()
/// for damaged in listing.damaged { print("damaged: entry \(damaged.shortID)") }
/// ```
public struct DamagedItem: Sendable, Hashable, Identifiable, CustomStringConvertible {
    public let id: ItemID

    public init(id: ItemID) { self.id = id }

    /// The first ``ItemName/shortIDLength`` hex digits of the id, as ``Item/shortID``.
    public var shortID: String { String(id.hex.prefix(ItemName.shortIDLength)) }

    /// `entry 3f2a9c01`.
    public var description: String { "entry \(shortID)" }
}

/// What ``Vault/readableItems(matching:)`` finds: the items that can be read, in listing
/// order, and the damaged records that may match.
public struct ReadableItems: Sendable {
    public var items: [Item]
    /// Ascending by id; empty when the vault is sound.
    public var damaged: [DamagedItem]
}

/// What ``Vault/repairDamaged(from:dryRun:)`` did (or, in a dry run, would do) with each
/// damaged record.
public struct RepairReport: Sendable {
    /// A damaged record replaced by the intact one another copy holds.
    public struct Replacement: Sendable {
        public var damaged: DamagedItem
        /// The copy it came from: `vault.coffer.bak` or a path given.
        public var source: String
        /// The item as the copy holds it; nil when the copy holds it deleted.
        public var item: Item?
    }

    public var replaced: [Replacement] = []
    /// Damaged records no copy holds intact: taken out of the vault. Merging a copy that
    /// holds them later brings them back.
    public var removed: [DamagedItem] = []
    /// True when nothing was saved.
    public var dryRun: Bool

    /// Nothing was damaged.
    public var isEmpty: Bool { replaced.isEmpty && removed.isEmpty }
}

extension Vault {
    /// The items matching `query` that can be read, and the damaged records among those
    /// that may match (and every record whose overview did not open). A listing does not
    /// fail for one damaged record, as ``items(matching:)`` does: the rest stays usable.
    ///
    /// ```swift
    /// let listing = try vault.readableItems()
    /// show(listing.items)
    /// if !listing.damaged.isEmpty { offerRepair(listing.damaged) }   // repairDamaged(from:)
    /// ```
    public func readableItems(matching query: ItemQuery = .all) throws(CofferError) -> ReadableItems {
        try read { (tx) throws(CofferError) in try tx.readableItems(matching: query) }
    }

    /// Reads the file and checks every record as ``verifyAll()`` does (its overview and
    /// its secret part), naming every damaged one instead of stopping at the
    /// first. Empty when the file is sound.
    ///
    /// ```swift
    /// let damaged = try vault.damagedItems()   // [] for a sound vault
    /// ```
    public func damagedItems() throws(CofferError) -> [DamagedItem] {
        try saving { (engine, keys) throws(CofferError) -> [DamagedItem] in
            try engine.readVerified(keys: keys).damagedIDs(keys: keys, secrets: true).map(DamagedItem.init(id:))
        }
    }

    /// Replaces each damaged record (``damagedItems()``) with the intact one a copy holds,
    /// the backup (`<path>.bak`) first, then `copies` in order (other replicas of this
    /// vault), and takes out those no copy holds; then saves. A save refuses while a
    /// damaged record is left (damage is never dropped silently), so this is the way back
    /// to a vault that saves. A copy that cannot be read, or holds another vault, is passed
    /// over. Removed items come back when a copy that holds them is merged later
    /// (``merge(contentsOf:)-(String)``). With `dryRun`, nothing is saved.
    ///
    /// ```swift
    /// let report = try vault.repairDamaged(from: ["/media/usb/vault.coffer"])
    /// print(report.replaced.count, "replaced,", report.removed.count, "removed")
    /// ```
    public func repairDamaged(from copies: [String] = [], dryRun: Bool = false) throws(CofferError) -> RepairReport {
        var sources: [(name: String, bytes: [UInt8])] = []
        if let backup = try? storeCall({ () throws(StoreError) in try store.readBackup() }) {
            sources.append((path + ".bak", backup.bytes))
        }
        for copy in copies {
            let file = try storeCall { () throws(StoreError) in try VaultFileStore(path: copy).read() }
            sources.append((copy, file.bytes))
        }
        return try saving { (engine, keys) throws(CofferError) -> RepairReport in
            try engine.repairDamaged(from: sources, dryRun: dryRun, keys: keys)
        }
    }
}

extension SaveEngine {
    /// ``Vault/repairDamaged(from:dryRun:)`` under the write lock, on the file as it is now.
    mutating func repairDamaged(from sources: [(name: String, bytes: [UInt8])], dryRun: Bool,
                                keys: EpochKeys) throws(CofferError) -> RepairReport {
        try locked { (engine) throws(CofferError) -> RepairReport in
            var current = try engine.fileChanged() ? try engine.readVerified(keys: keys) : engine.snapshot
            var report = RepairReport(dryRun: dryRun)
            let ids = current.damagedIDs(keys: keys, secrets: true)
            guard !ids.isEmpty else { return report }
            // A copy that cannot be read is passed over: another may hold the record.
            let copies = sources.compactMap { source in
                (try? engine.replicaSnapshot(source.bytes, name: source.name, keys: keys)).map { (source.name, $0) }
            }
            for id in ids {
                current.remove(id)
                let found = copies.lazy.compactMap { (name, copy) -> (String, SnapshotEntry, Bool)? in
                    guard let entry = copy.entries[id] ?? copy.tombstones[id],
                          (try? entry.record.openSecretList(vaultID: copy.vaultID, keys: keys, overview: entry.overview)) != nil else { return nil }
                    return (name, entry, copy.entries[id] != nil)
                }.first
                guard let (source, entry, live) = found else {
                    report.removed.append(DamagedItem(id: id))
                    continue
                }
                let version = try ItemVersion(record: entry.record, overview: entry.overview)
                current.applyChecked(id, try Changeset.Change(version.sealed))
                // The vault clock covers every edit its items hold (SPEC.md §17.4).
                current.header.clock = current.header.clock.merged(with: version.clock.versions)
                let item = live ? Item(id: id, revision: entry.record.revision,
                                       attributes: try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(entry.overview) })
                                : nil
                report.replaced.append(RepairReport.Replacement(damaged: DamagedItem(id: id), source: source, item: item))
            }
            guard !dryRun else { return report }
            try engine.saveJoined(current, keys: keys)
            return report
        }
    }
}

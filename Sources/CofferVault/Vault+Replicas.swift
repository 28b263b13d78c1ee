import CofferCrypto
import CofferFormat
import CofferStore

/// Several replicas of one vault (SPEC.md §17): copies of the same vault edited apart, on
/// other devices or in sync-conflict copies, merge with nothing lost.
extension Vault {
    /// Merges another replica of this vault (a copy with the same vault id, edited
    /// elsewhere) into this one and saves the result atomically.
    ///
    /// The merge needs no password: replicas share the vault key. Whatever the order in
    /// which replicas are merged, they end with the same items: an edit beats no edit,
    /// edits of different fields are both kept, of one field the newer wins and the other
    /// is kept as a conflict (``conflicts(for:)``; a password goes to the history), and a
    /// deletion loses to an edit it had not seen.
    ///
    /// Throws ``CofferError/differentVault(_:)`` for a copy of another vault,
    /// ``CofferError/otherKeyEpoch(_:)`` for a copy sealed under another vault key (a
    /// rotation, ``rotateKey()``, on one side since: not merged yet), and the usual
    /// read errors (``CofferError/tampered(_:)``, ``CofferError/truncated(_:)``…) for a
    /// damaged one; the other file is only read, never changed.
    ///
    /// ```swift
    /// let report = try vault.merge(contentsOf: "/sync/vault.sync-conflict-20260301-101500-ABCDEFG.coffer")
    /// print("\(report.added) added, \(report.updated) updated, \(report.conflicted.count) with conflicts")
    /// ```
    ///
    /// The other file is refused from its start when it can be: a format-2 file of another
    /// vault or key epoch, whose header or manifest does not authenticate, or whose size does
    /// not fit the records its manifest declares costs the reading of its start (about 1 MiB
    /// at most, and its manifest), not of the whole file.
    ///
    /// **Across a rotation** (SPEC.md §17.8): a copy rekeyed after this vault's key (by a
    /// device that held it) is opened through its key slot of the credential that opened
    /// this vault, and the vault moves to its key; a copy made under an earlier key (a device
    /// that was offline during ``rotateKey()`` or a password change) is read with the key
    /// the vault keeps, and nothing of its key slots enters. Its edits dated before the
    /// rotation merge; those dated after are **held** (this vault's version of those items
    /// stays) and listed in ``MergeReport/earlierKey``, unless `options` accepts them. A
    /// copy no key of this vault opens, or that no longer has the slot that opened it,
    /// throws ``CofferError/otherKeyEpoch(_:)``.
    @discardableResult
    public func merge(contentsOf otherPath: String) throws(CofferError) -> MergeReport {
        try merge(contentsOf: otherPath, options: MergeOptions())
    }

    /// ``merge(contentsOf:)-(String)`` with `options`: ``MergeOptions/acceptEarlierKey``
    /// merges the edits a copy under an earlier key made after the rotation, which are
    /// otherwise held.
    ///
    /// ```swift
    /// let report = try vault.merge(contentsOf: laptopCopy, options: MergeOptions(acceptEarlierKey: true))
    /// ```
    @discardableResult
    public func merge(contentsOf otherPath: String, options: MergeOptions) throws(CofferError) -> MergeReport {
        var identity: FileIdentity?
        return try merge(contentsOf: otherPath, options: options, identity: &identity)
    }

    /// ``merge(contentsOf:options:)``, setting `identity` to the other file's as first read
    /// (nil when it could not be read at all): what a refusal is remembered by.
    func merge(contentsOf otherPath: String, options: MergeOptions = MergeOptions(), identity: inout FileIdentity?) throws(CofferError) -> MergeReport {
        try saving { (engine, keys) throws(CofferError) -> MergeReport in
            // The file first, when another writer rekeyed it: the copy's epoch is judged against it.
            let keys = try engine.takeUpFile(keys: keys)
            return try engine.saveMerged(with: try engine.readReplica(at: otherPath, keys: keys, identity: &identity), keys: keys,
                                         held: options.acceptEarlierKey ? .accept : .hold)
        }
    }

    /// ``merge(contentsOf:)-(String)`` for a replica's bytes (from a network, a git object…).
    @discardableResult
    public func merge(bytes: [UInt8]) throws(CofferError) -> MergeReport {
        try merge(bytes: bytes, options: MergeOptions())
    }

    /// ``merge(bytes:)`` with `options` (``merge(contentsOf:options:)``).
    ///
    /// ```swift
    /// let report = try vault.merge(bytes: blob, options: MergeOptions(acceptEarlierKey: true))
    /// ```
    @discardableResult
    public func merge(bytes: [UInt8], options: MergeOptions) throws(CofferError) -> MergeReport {
        try saving { (engine, keys) throws(CofferError) -> MergeReport in
            let keys = try engine.takeUpFile(keys: keys)
            return try engine.saveMerged(with: try engine.replicaCopy(bytes, name: "the replica", keys: keys), keys: keys,
                                         held: options.acceptEarlierKey ? .accept : .hold)
        }
    }

    /// Items with values that lost a concurrent edit (see ``conflicts(for:)``), in listing order.
    public func itemsWithConflicts() throws(CofferError) -> [Item] {
        let ids = try read { (tx) throws(CofferError) in try tx.idsWithConflicts() }
        return try items().filter { ids.contains($0.id) }
    }

    /// The values of an item that lost a concurrent edit on another replica, oldest first.
    ///
    /// ```swift
    /// for conflict in try vault.conflicts(for: item.id) where conflict.field == "notes" {
    ///     let lost = conflict.secrets?.notes   // the other device's notes
    /// }
    /// ```
    public func conflicts(for id: ItemID) throws(CofferError) -> [ItemConflict] {
        try read { (tx) throws(CofferError) in try tx.conflicts(for: id) }
    }

    /// Marks an item's conflicts as reviewed: the losing values are dropped (losing
    /// passwords stay in the password history), on every replica once merged.
    public func resolveConflicts(for id: ItemID) throws(CofferError) {
        try write { (tx) throws(CofferError) in try tx.resolveConflicts(for: id) }
    }
}

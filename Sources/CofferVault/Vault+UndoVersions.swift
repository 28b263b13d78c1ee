import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// How many earlier versions of a vault this device keeps, and for how long
/// (``VaultOptions/undoVersions``).
///
/// ```swift
/// var options = VaultOptions()
/// options.undoVersions = UndoVersionLimits(count: 20, maximumAgeDays: 90)
/// ```
public struct UndoVersionLimits: Sendable, Hashable {
    /// At most this many versions; 0 keeps none.
    public var count: Int
    /// Versions replaced longer ago than this many days are removed.
    public var maximumAgeDays: Int

    public init(count: Int, maximumAgeDays: Int) {
        self.count = max(0, count)
        self.maximumAgeDays = max(0, maximumAgeDays)
    }

    /// 10 versions, 30 days.
    public static let `default` = UndoVersionLimits(count: 10, maximumAgeDays: 30)
    /// None kept.
    public static let none = UndoVersionLimits(count: 0, maximumAgeDays: 0)
}

/// An earlier version of the vault file this device kept (``Vault/undoVersions()``).
public struct UndoVersion: Sendable, Hashable {
    /// 1 for the version the last save replaced (the same as `VAULT.bak`), 2 for the one
    /// before it, and so on: what ``Vault/restoreUndoVersion(_:)`` takes.
    public var number: Int
    /// When a save replaced it.
    public var replaced: Date
    /// The generation in its header (SPEC.md §4).
    public var generation: UInt64
    /// Its size in bytes.
    public var size: Int
}

/// Several levels of undo. Each save that keeps a backup also keeps the version it
/// replaced in this device's state folder (``ReplicaStateLocation``), never beside the
/// vault, so a sync service does not spread them; ``VaultOptions/undoVersions`` bounds
/// their count and age. A version is restored like the backup: checked with this vault's
/// keys first, then put in place with the current version as the new `.bak` (and kept as
/// a version too), so a restore is itself undone.
///
/// Versions are whole vault files, sealed under the key slots they had. When the slots
/// change (a password change, a key file removed, and a key rotation once it exists) every
/// version is dropped (``dropUndoVersions()``, the hook such a change calls), so a revoked
/// credential opens none of them.
///
/// ```swift
/// for version in try vault.undoVersions() { print(version.number, version.replaced, version.generation) }
/// let preview = try vault.undoVersionChanges(2)   // what restoring version 2 would change
/// try vault.restoreUndoVersion(2)
/// ```
extension Vault {
    /// The versions kept on this device, newest first (numbered from 1); empty when none
    /// is kept (no state folder, or ``UndoVersionLimits/none``). Reads only their headers.
    public func undoVersions() throws(CofferError) -> [UndoVersion] {
        let (store, key) = try readingEngine { (engine, _) throws(CofferError) in (engine.memory.store, engine.memory.vaultID) }
        guard let store else { return [] }
        let stored = try storeCall { () throws(StoreError) in try store.undoVersions(vaultKey: key) }
        return stored.enumerated().map { index, version in
            let info = try? Vault.info(at: version.path)
            return UndoVersion(number: index + 1, replaced: Date(timeIntervalSince1970: Double(version.replacedMilliseconds) / 1000),
                               generation: info?.generation ?? version.generation, size: info?.fileSize ?? 0)
        }
    }

    /// What restoring version `number` would change, read and checked with this vault's
    /// keys; nothing is written. No such version is ``CofferError/itemNotFound``.
    public func undoVersionChanges(_ number: Int) throws(CofferError) -> BackupChanges {
        try readingEngine { (engine, keys) throws(CofferError) -> BackupChanges in
            guard let keys else { throw .vaultLocked }
            return try changes(restoring: try engine.readUndoVersion(number, keys: keys).snapshot, keys: keys)
        }
    }

    /// Puts version `number` in place of the file, after checking it with this vault's keys
    /// (same vault, MACs, every record's digest); the current version becomes `.bak` and is
    /// kept as version 1. This device takes the restored version as its current one, and a
    /// new replica id, as ``restoreBackup()`` does; a version under other key slots comes back
    /// under the vault's (SPEC.md §11.4). No such version is ``CofferError/itemNotFound``.
    public func restoreUndoVersion(_ number: Int) throws(CofferError) {
        try restoring { (engine, keys) throws(CofferError) in try engine.restoreUndoVersion(number, keys: keys) }
    }

    /// Removes every version kept for this vault on this device. Called when the key slots
    /// change; a key rotation calls it too (or re-seals each version instead).
    public func dropUndoVersions() {
        let found = try? readingEngine { (engine, _) throws(CofferError) in (engine.memory.store, engine.memory.vaultID) }
        if let (store, key) = found, let store { store.dropUndoVersions(vaultKey: key) }
    }
}

extension SaveEngine {
    /// After a save: keeps the version it replaced (now `.bak`) as an undo version; after a
    /// change of key slots, drops every version instead (none may open with a revoked
    /// credential). Best effort: the state is a hint, and a save never fails for it.
    mutating func keepUndoVersion(replacedGeneration: UInt64, slotsChanged: Bool) {
        guard let store = memory.store else { return }
        guard !slotsChanged else { return store.dropUndoVersions(vaultKey: memory.vaultID) }
        let limits = options.undoVersions
        guard options.keepsBackup, limits.count > 0 else { return }
        try? store.keepUndoVersion(of: self.store.backupPath, generation: replacedGeneration, vaultKey: memory.vaultID,
                                   nowMilliseconds: wallClock.milliseconds(), count: limits.count,
                                   maximumAgeMilliseconds: Int64(limits.maximumAgeDays) * 86_400_000)
    }

    /// Version `number` (1 = newest), read and verified with `keys`, and its bytes.
    func readUndoVersion(_ number: Int, keys: EpochKeys) throws(CofferError) -> (snapshot: VaultSnapshot, bytes: [UInt8]) {
        guard let store = memory.store, number >= 1 else { throw .itemNotFound }
        let versions = try storeCall { () throws(StoreError) in try store.undoVersions(vaultKey: memory.vaultID) }
        guard number <= versions.count else { throw .itemNotFound }
        let file = try storeCall { () throws(StoreError) in try store.readUndoVersion(versions[number - 1]) }
        var version = try replicaSnapshot(file.bytes, name: "undo version \(number) of \(path)", keys: keys)
        try version.checkDigests(keys: keys)
        return (version, file.bytes)
    }

    /// Puts version `number` in place of the file, as ``restoreBackup(keys:)`` puts `.bak`.
    mutating func restoreUndoVersion(_ number: Int, keys: EpochKeys) throws(CofferError) {
        try locked { (engine) throws(CofferError) in
            let replaced = engine.snapshot.generation
            var (restored, bytes) = try engine.readUndoVersion(number, keys: keys)
            if try engine.restoreKeepingSlots(restored, keys: keys) { return }
            restored.identity = try storeCall { () throws(StoreError) in
                try engine.store.replace(with: bytes, keepBackup: engine.options.keepsBackup)
            }
            engine.adopt(restored)
            // An edit made on an older version, as a restored backup is (SPEC.md §17.7).
            try engine.memory.takeFreshReplica(entropy: engine.entropy)
            engine.memory.adopt(restored.header.clock)
            engine.keepUndoVersion(replacedGeneration: replaced, slotsChanged: false)
        }
    }
}

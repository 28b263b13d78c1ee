import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// Where a vault remembers, on this device, its replica id and the newest version of the
/// vault it has seen at each path (SPEC.md §17.7): what makes a rolled-back file noticeable.
///
/// ```swift
/// var options = VaultOptions()
/// options.replicaState = .directory(appSupport + "/coffer-state")   // an app's own folder
/// options.replicaState = .none                                       // remember nothing
/// ```
public enum ReplicaStateLocation: Sendable, Equatable {
    /// `$XDG_STATE_HOME/coffer`, else `~/.local/state/coffer`; nothing when neither is known.
    case standard
    /// A folder the app chooses (created with mode 0700 when missing).
    case directory(String)
    /// Remember nothing: a fresh replica id for every opened vault and no rollback warning.
    case none

    /// The state folder this location names, nil for ``none`` (or ``standard`` when neither
    /// `XDG_STATE_HOME` nor `HOME` is an absolute path).
    var folder: String? {
        switch self {
        case .standard: return ReplicaStateStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
        case .directory(let folder): return folder
        case .none: return nil
        }
    }
}

/// A vault file older than a version this device has already seen (SPEC.md §17.7): it lacks
/// edits that were on this device, and merging it would not bring them back. It may be a
/// restored backup, a sync tool's older copy, or a `git checkout` of an older commit.
///
/// Until ``Vault/acceptRollback()``, saves refuse with ``CofferError/Kind/rolledBack`` (a
/// merge that brings the newer version back in is allowed: it heals the rollback).
public struct RollbackWarning: Sendable, Equatable, CustomStringConvertible {
    /// The generation of the file that was opened.
    public let fileGeneration: UInt64
    /// How many replicas (devices or copies) made edits this device saw and the file lacks.
    public let replicasBehind: Int

    public var description: String {
        "this file (generation \(fileGeneration)) is older than a version of the vault seen on this device: "
            + "it lacks edits of \(replicasBehind) replica\(replicasBehind == 1 ? "" : "s")"
    }
}

/// The device's memory for one open vault: its replica id and the newest clock seen.
struct ReplicaMemory: Sendable {
    let store: ReplicaStateStore?
    /// The vault file's canonical path, under which the store keeps the replica id.
    let canonicalPath: String?
    private(set) var replica: UInt64
    private(set) var remembered: VersionVector
    /// What the remembered clock is stored under: the vault id and the canonical path, hashed.
    private(set) var vaultID: [UInt8]
    /// Set when the opened file was older than what had been seen.
    private(set) var rollback: RollbackWarning?

    /// Loads the memory for the vault at `path` whose file has `header` and `generation`;
    /// notices a rollback, and takes a fresh replica id when the file lacks this replica's
    /// own latest edits (stamping on would claim to have seen them). State that cannot be
    /// read or written never stops the vault: it then works as with `.none`.
    init(location: ReplicaStateLocation, path: String, header: VaultHeaderV2, generation: UInt64, entropy: EntropySource) throws(CofferError) {
        vaultID = header.vaultID
        let directory = location.folder
        let canonical = VaultFileStore.absolutePath(path)
        if let directory, let canonical {
            let store = ReplicaStateStore(directory: directory)
            // Remembered per vault and path: a rollback is this file going back in time. A copy
            // in another folder is another replica, behind or not; it merges, it never warns.
            let memoryKey = ((try? BLAKE2b.hash(header.vaultID + Array(canonical.utf8))) ?? header.vaultID).prefix(16).map { $0 }
            vaultID = memoryKey
            if let replica = try? store.replicaID(forVaultAt: canonical) {
                let remembered = Self.bounded(VersionVector((try? store.rememberedClock(vaultID: memoryKey)) ?? [:]), own: replica)
                let file = header.clock
                let seen = Self.asFilesHoldIt(remembered)
                if seen.dominates(file), seen != file {
                    let behind = seen.times.count { file[$0.key] < $0.value }
                    rollback = RollbackWarning(fileGeneration: generation, replicasBehind: behind)
                }
                self.store = store
                self.canonicalPath = canonical
                self.replica = replica
                self.remembered = remembered
                try takeFreshReplica(ifBehind: file, entropy: entropy)
                remember(file)
                return
            }
        }
        store = nil
        canonicalPath = nil
        replica = try Vault.ephemeralReplica(entropy)
        remembered = VersionVector()
    }

    /// Takes a fresh replica id when a file with `clock` lacks this replica's own latest
    /// edit (`lastStamp`, the newest time this process gave, or the remembered one): its
    /// next stamps must not claim to have seen an edit the file lost (SPEC.md §17.7).
    mutating func takeFreshReplica(ifBehind clock: VersionVector, lastStamp: UInt64 = 0, entropy: EntropySource) throws(CofferError) {
        guard clock[replica] < max(remembered[replica], lastStamp) else { return }
        try takeFreshReplica(entropy: entropy)
    }

    /// Before a save made on a file another writer saved: follows the device's replica id
    /// for the path (another app on this device may have taken a fresh one, restoring a
    /// backup or opening a rolled-back file), then takes a fresh id when `clock`, what the
    /// save is made on, lacks that id's latest edit as this device knows it (the state
    /// folder's clock, or `lastStamp` for an id this vault kept). A restore by a process
    /// without state, or by a sync tool, is noticed so.
    mutating func checkReplica(before clock: VersionVector, lastStamp: UInt64, entropy: EntropySource) throws(CofferError) {
        guard let store, let canonicalPath else { return }
        var latest = remembered[replica]
        if let stored = try? store.replicaID(forVaultAt: canonicalPath), stored != replica {
            replica = stored
            latest = 0
        } else {
            latest = max(latest, lastStamp)
        }
        if let known = try? store.rememberedClock(vaultID: vaultID) { latest = max(latest, known[replica] ?? 0) }
        if clock[replica] < latest { try takeFreshReplica(entropy: entropy) }
    }

    /// Replaces the replica id with a fresh one (stored for the path when there is a store).
    mutating func takeFreshReplica(entropy: EntropySource) throws(CofferError) {
        if let store, let canonicalPath, let fresh = try? store.rotateReplicaID(forVaultAt: canonicalPath) {
            replica = fresh
        } else {
            var fresh = replica
            while fresh == replica { fresh = try Vault.ephemeralReplica(entropy) }
            replica = fresh
        }
    }
    /// Records that this device has seen `clock` (best effort: the state is a hint).
    mutating func remember(_ clock: VersionVector) {
        // A version that holds every one seen here (a merge brought the newer one back)
        // ends the rollback: ``Vault/rollback`` is nil from now on.
        if rollback != nil, clock.dominates(remembered) { rollback = nil }
        guard let store, !remembered.dominates(clock) else { return }
        remembered = Self.bounded(remembered.merged(with: clock), own: replica)
        try? store.remember(clock: remembered.times, vaultID: vaultID, keeping: [replica])
    }

    /// A remembered clock bounded as files' vault clocks are (SPEC.md §17.9), with this
    /// replica's own entry kept whatever its age: it tells whether a file lacks this
    /// replica's latest edit.
    static func bounded(_ clock: VersionVector, own replica: UInt64) -> VersionVector {
        clock.compacted(limit: VaultHeaderV2.maxClockReplicas, keeping: [replica])
    }

    /// What a file that holds every edit seen here holds in its vault clock: the remembered
    /// clock under the files' own bound. Rollbacks are judged on it, so an entry a file
    /// dropped by that bound is never taken for an edit it lacks (no false rollback).
    static func asFilesHoldIt(_ remembered: VersionVector) -> VersionVector {
        remembered.compacted(limit: VaultHeaderV2.maxClockReplicas)
    }

    /// Whether a save of a file with `clock` would still be a rollback.
    func stillRolledBack(_ clock: VersionVector) -> Bool {
        rollback != nil && !clock.dominates(Self.asFilesHoldIt(remembered))
    }

    /// Accepts the file with `clock` as the vault's current version, on this device for
    /// good: the remembered clock becomes the file's, so later commands do not warn again.
    mutating func acceptRollback(_ clock: VersionVector) {
        guard rollback != nil else { return }
        adopt(clock)
    }

    /// Takes the file with `clock` as the vault's current version on this device, older
    /// or not (a rollback the user accepted, a backup the user restored).
    mutating func adopt(_ clock: VersionVector) {
        rollback = nil
        remembered = clock
        try? store?.forget(before: clock.times, vaultID: vaultID)
    }

}

import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// An encrypted vault file, opened with one of its key slots.
///
/// A `Vault` is safe to share between threads and tasks. Every change is saved at
/// once, atomically (temp file, fsync, rename, directory fsync), under a
/// cross-process write lock; ``transaction(_:)`` groups changes so they are saved
/// together or not at all. If another process saved the file meanwhile, changes to
/// different items are merged and changes to the same item raise
/// ``CofferError/conflict(_:)``: nothing is lost silently.
///
/// ```swift
/// let password = try SecureBytes(copying: "correct horse battery staple")
/// let vault = try Vault.create(at: "/tmp/demo.coffer", password: password)
/// let item = try vault.add(.genericPassword(service: "github.com", account: "octocat"),
///                          secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2")))
/// let found = try vault.items(matching: ItemQuery(service: "github.com"))
/// let secret = try vault.secrets(for: item.id).password   // SecureBytes, decrypted on demand
/// try vault.delete(item.id)
/// vault.lock()                                             // wipes the keys
/// ```
public final class Vault: @unchecked Sendable {
    // @unchecked: all mutable state below is guarded by `lock`.
    /// The vault file's path.
    public let path: String
    public let options: VaultOptions
    let store: VaultFileStore
    let entropy: EntropySource
    private let stateLock = NSRecursiveLock()
    private var keys: EpochKeys?
    /// The key slot that opened the vault and its key-encryption key, for
    /// ``cacheUnlock(in:for:)``; wiped with the keys.
    private var slotKey: SlotKey?
    /// The file as this vault knows it, and every save (run under `stateLock`).
    var engine: SaveEngine
    /// The snapshot as it is now (tests and the merge look at records and tombstones).
    /// The snapshot as it is, its overviews not opened where they were not yet (tests).
    var snapshotAsHeld: VaultSnapshot { withLock { engine.snapshot } }
    var currentSnapshot: VaultSnapshot {
        withLock {
            _ = try? engine.snapshot.openAll()
            return engine.snapshot
        }
    }
    /// The replica id that stamps this vault's edits (SPEC.md §17.1): the device memory's,
    /// kept here too so that a stamp drawn during a save does not read the engine. A restore
    /// (or an unlock of a file that lacks this replica's latest edit) replaces it.
    private(set) var replica: UInt64
    /// The last time given to a stamp, so stamps of one replica only grow.
    private var lastStampTime: UInt64 = 0
    /// The clock of every date this vault writes and every expiry it checks (``WallClock``).
    /// The test vectors (SPEC.md §15.2) fix it so that regenerating them gives the same bytes.
    package var wallClock = WallClock.system { didSet { engine.wallClock = wallClock } }

    /// Now, by ``wallClock``, to the millisecond.
    package func now() -> Date { withLock { wallClock.now() } }

    init(path: String, options: VaultOptions, store: VaultFileStore, entropy: EntropySource,
         keys: EpochKeys, slotKey: SlotKey?, snapshot: VaultSnapshot, memory: ReplicaMemory) {
        self.path = path
        self.slotKey = slotKey
        self.options = options
        self.store = store
        self.entropy = entropy
        self.keys = keys
        self.replica = memory.replica
        engine = SaveEngine(path: path, store: store, options: options, entropy: entropy, snapshot: snapshot, memory: memory)
    }

    /// Set when the file opened is older than a version of this vault already seen on
    /// this device (a restored backup, a sync tool's older copy): saves are refused with
    /// ``CofferError/Kind/rolledBack`` until ``acceptRollback()``. Nil otherwise, always
    /// with ``ReplicaStateLocation/none``, and again once a merge has brought back every
    /// version seen here and is saved (the rollback is healed).
    ///
    /// ```swift
    /// if let warning = vault.rollback {
    ///     if userConfirms(warning.description) { vault.acceptRollback() }
    /// }
    /// ```
    public var rollback: RollbackWarning? { withLock { engine.memory.rollback } }

    /// Accepts the rolled-back file as the vault's current version: saves work again, and
    /// this device stops warning about it (it remembers this version as the newest seen).
    /// The edits it lacks come back if a replica that holds them is merged later.
    public func acceptRollback() { withLock { engine.acceptRollback() } }

    /// A fresh stamp for this replica's next edits, above every time in `clock` and every
    /// stamp given before (SPEC.md §17.1).
    func issueStamp(after clock: VersionVector) -> Stamp {
        issueStamp(after: clock, replica: replica)
    }

    /// A fresh stamp as ``issueStamp(after:)``, by `replica`, which this vault stamps with from
    /// now on (a save that found another app's or a restore's change takes the device's id).
    func issueStamp(after clock: VersionVector, replica: UInt64) -> Stamp {
        withLock {
            self.replica = replica
            let now = wallClock.milliseconds()
            lastStampTime = HybridTime.next(after: max(clock.maxTime, lastStampTime), nowMilliseconds: now)
            return Stamp(replica: replica, time: lastStampTime)
        }
    }

    /// A random non-zero replica id, for a vault that keeps no state on this device.
    static func ephemeralReplica(_ entropy: EntropySource) throws(CofferError) -> UInt64 {
        var id: UInt64 = 0
        while id == 0 { id = try entropy.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } }
        return id
    }

    // MARK: Lifecycle

    /// Creates a new vault file; it fails if the file exists.
    ///
    /// - Parameters:
    ///   - credential: the first key slot (a password, a key file, both, or a raw key).
    ///   - additional: more slots, each able to open the vault on its own.
    public static func create(at path: String, credential: VaultCredential, additional: [VaultCredential] = [],
                              options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try create(at: path, credentials: [credential] + additional, options: options, entropy: .system)
    }

    /// Creates a new vault protected by a password.
    public static func create(at path: String, password: SecureBytes, options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try create(at: path, credential: .password(password), options: options)
    }

    static func create(at path: String, credentials: [VaultCredential], options: VaultOptions,
                       entropy: EntropySource, store: VaultFileStore? = nil,
                       clock: WallClock = .system) throws(CofferError) -> Vault {
        // Every slot added later uses these too: refuse what a reader would (SPEC.md §9).
        try options.kdf.validate()
        // And what this library creates, it opens under the same limit.
        for kind in Set(credentials.map(\.slotKind)) where kind.hasKDF {
            try options.kdfLimit.check(Array(repeating: options.kdf, count: credentials.count { $0.slotKind == kind }))
        }
        let store = store ?? VaultFileStore(path: path)
        let epochKey = try entropy.secureBytes(FormatV1.keyLength)
        let keys = try formatCall { () throws(FormatError) in try EpochKeys(epochKey: epochKey) }
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        var slots: [KeySlotV2] = []
        var firstSlotKey: SlotKey?
        for credential in credentials {
            let made = try formatCall { () throws(FormatError) in
                try KeySlotV2.make(for: credential, kdf: options.kdf, vaultID: vaultID, epoch: keys, entropy: entropy)
            }
            slots.append(made.slot)
            if firstSlotKey == nil { firstSlotKey = SlotKey(slotIdentity: made.slot.identity, seeds: made.seeds) }
        }
        // The epoch start is set below, once the replica's stamp is known.
        var header = VaultHeaderV2(vaultID: vaultID, epochID: keys.epochID, epochStart: Stamp(replica: 1, time: 1),
                                   slots: slots, extensions: [])
        var memory = try ReplicaMemory(location: options.replicaState, path: path, header: header, generation: 1, entropy: entropy)
        let created = Stamp(replica: memory.replica, time: HybridTime.next(after: 0, nowMilliseconds: clock.milliseconds()))
        header.clock = VersionVector([created.replica: created.time])
        header.epochStart = created
        let snapshot = try SaveEngine.createFile(store, header: header, keys: keys, lockTimeout: options.lockTimeout)
        memory.remember(header.clock)
        return Vault(path: path, options: options, store: store, entropy: entropy, keys: keys, slotKey: firstSlotKey,
                     snapshot: snapshot, memory: memory)
    }

    /// Opens a vault with any one of its key slots.
    ///
    /// Throws ``CofferError/wrongPassword``, ``CofferError/wrongKeyFile`` or
    /// ``CofferError/wrongRawKey`` when no slot opens, and a file error, ``CofferError/tampered(_:)``
    /// or ``CofferError/truncated(_:)`` when the file cannot be trusted. Opening checks the
    /// header, the manifest and every overview; a record whose bytes differ from the
    /// manifest's digest throws ``CofferError/tampered(_:)`` when it is first used (listed,
    /// read, edited, merged or saved), so one damaged entry does not hide the others
    /// (SPEC.md §10). ``verifyAll()`` checks every record at once. Throws
    /// ``CofferError/kdfCostTooHigh(_:)``, before any KDF runs, when the slots of the
    /// credential's kind cost more than `options.kdfLimit`.
    public static func open(at path: String, credential: VaultCredential,
                            options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try open(at: path, credential: credential, options: options, entropy: .system)
    }

    /// Opens a vault with its password.
    public static func open(at path: String, password: SecureBytes, options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try open(at: path, credential: .password(password), options: options)
    }

    static func open(at path: String, credential: VaultCredential, options: VaultOptions,
                     entropy: EntropySource, store: VaultFileStore? = nil) throws(CofferError) -> Vault {
        let store = store ?? VaultFileStore(path: path)
        let opened = try VaultFileReader.readAndUnlock(store, with: credential, kdfLimit: options.kdfLimit, entropy: entropy)
        return try Vault(opened: opened.codec, identity: opened.identity, held: opened.held, keys: opened.keys, slotKey: opened.slotKey,
                         conversion: opened.conversion, path: path, options: options, store: store, entropy: entropy)
    }

    /// A vault for a file just read and verified with `keys`; `conversion` replaces the
    /// legacy slot that opened it at the next save (SPEC.md §11.1).
    convenience init(opened codec: VaultFileV2, identity: FileIdentity, held: HeldFile?, keys: EpochKeys, slotKey: SlotKey?,
                     conversion: SlotConversion?, path: String, options: VaultOptions, store: VaultFileStore,
                     entropy: EntropySource) throws(CofferError) {
        let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: identity, held: held)
        let memory = try ReplicaMemory(location: options.replicaState, path: path, header: snapshot.header,
                                       generation: snapshot.generation, entropy: entropy)
        self.init(path: path, options: options, store: store, entropy: entropy, keys: keys, slotKey: slotKey, snapshot: snapshot, memory: memory)
        engine.conversion = conversion
    }

    /// Reads a vault's format version, KDF parameters, slots and entry count, without a password.
    ///
    /// With `scope` ``VaultInfo/Scope/header`` (the default) only the start of the file is
    /// read (header and manifest count, at most about 64 KiB), so this is cheap at any
    /// size; the rest of the file is checked by ``open(at:credential:options:)-(String,_,_)``. With
    /// ``VaultInfo/Scope/wholeFile`` every check that needs no key runs (SPEC.md §10 steps
    /// 1–9), so a file an open would refuse before unlocking (truncated, malformed, ...)
    /// is refused here too, with the same error. Nothing is authenticated or decrypted either way.
    ///
    /// ```swift
    /// let info = try Vault.info(at: path, scope: .wholeFile)   // throws for a damaged file
    /// print(info.entryCount)
    /// ```
    public static func info(at path: String, scope: VaultInfo.Scope = .header) throws(CofferError) -> VaultInfo {
        try VaultFileReader.info(at: path, scope: scope)
    }

    /// Puts the previous version (`<path>.bak`) back in place of the vault file; the version
    /// it replaces becomes the new `.bak`, so restoring again undoes it and nothing is lost.
    /// The restored file is older than the one this device saw last: a vault opened on it
    /// reports ``rollback`` until ``acceptRollback()``.
    ///
    /// ```swift
    /// try Vault.restoreBackup(at: path)
    /// let vault = try Vault.open(at: path, password: password)
    /// vault.acceptRollback()          // the user chose this version
    /// ```
    ///
    /// Without keys it cannot rewrite a backup under the vault's key slots, so it refuses
    /// (``CofferError/slotUnavailable``, nothing changed) a format-2 backup whose key epoch,
    /// slots or removed slots are not the vault's: a restore never brings back a revoked
    /// credential. ``restoreBackup()`` on an open vault restores such a backup's items.
    public static func restoreBackup(at path: String, lockTimeout: Duration = VaultOptions.defaultLockTimeout) throws(CofferError) {
        let store = VaultFileStore(path: path)
        try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
            try SaveEngine.checkBackupKeepsSlots(store)
            _ = try storeCall { () throws(StoreError) in try store.restoreBackup() }
        }
    }

    /// Puts this vault's backup (`<path>.bak`, the version the last save replaced) in place of
    /// the file, and holds it from then on: the version it replaces becomes the new `.bak`,
    /// so calling this again undoes it and no version is lost. The backup is checked first
    /// with this vault's keys (same vault, MACs and every record's digest); a damaged or
    /// foreign backup throws and nothing changes. This device takes the restored version as
    /// the current one, so saves work without ``acceptRollback()``; replicas elsewhere that
    /// hold newer edits bring them back when merged.
    ///
    /// ```swift
    /// try vault.restoreBackup()     // "Undo last save"
    /// ```
    public func restoreBackup() throws(CofferError) {
        try restoring { (engine, keys) throws(CofferError) in try engine.restoreBackup(keys: keys) }
    }

    /// Runs a restore on the engine and stamps from then on with the replica id it left: a
    /// restore takes a new one (SPEC.md §17.7), so no later edit claims to have seen an
    /// edit the restored file lacks.
    func restoring(_ body: (inout SaveEngine, EpochKeys) throws(CofferError) -> Void) throws(CofferError) {
        try saving { (engine, keys) throws(CofferError) in
            try body(&engine, keys)
            replica = engine.memory.replica
        }
    }

    /// What ``restoreBackup()`` would change, read from the backup (`<path>.bak`) with this
    /// vault's keys and checked as a restore checks it; nothing is written. Items only the
    /// backup holds would come back, items only the vault holds would go, and items both
    /// hold at different revisions would return to the backup's version. Throws
    /// ``CofferError/fileNotFound`` when there is no backup.
    ///
    /// ```swift
    /// let preview = try vault.backupChanges()
    /// for item in preview.restored { print("would bring back", item.displayName) }
    /// ```
    public func backupChanges() throws(CofferError) -> BackupChanges {
        try withLock { () throws(CofferError) -> BackupChanges in
            let keys = try requireKeys()
            try engine.snapshot.openAll()
            // Listing its items checks the digest of every record it returns (and only its
            // items are read here), so nothing unverified is shown.
            return try changes(restoring: try engine.readBackup(keys: keys), keys: keys)
        }
    }

    /// Runs `body` on the engine with the keys, under the vault's lock, writing nothing
    /// (the undo versions' previews and listing, Vault+UndoVersions.swift).
    func readingEngine<R>(_ body: (SaveEngine, EpochKeys?) throws(CofferError) -> R) throws(CofferError) -> R {
        try withLock { () throws(CofferError) -> R in
            if keys != nil { try engine.snapshot.openAll() }
            return try body(engine, keys)
        }
    }

    /// What putting `version` (a backup or an undo version, read with `keys`) in place of
    /// the current file would change. Call under the vault's lock.
    func changes(restoring version: VaultSnapshot, keys: EpochKeys) throws(CofferError) -> BackupChanges {
        func items(_ base: VaultSnapshot) throws(CofferError) -> [Item] {
            let tx = VaultTransaction(vault: self, keys: keys, base: base)
            defer { tx.close() }
            return try tx.items()
        }
        let inBackup = try items(version), inVault = try items(engine.snapshot)
        let current = Dictionary(inVault.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let kept = Set(inBackup.map(\.id))
        return BackupChanges(restored: inBackup.filter { current[$0.id] == nil },
                             removed: inVault.filter { !kept.contains($0.id) },
                             changed: inBackup.filter { item in current[item.id].map { $0.revision != item.revision } ?? false },
                             backupItemCount: inBackup.count,
                             keySlots: KeySlotChange(from: engine.snapshot.header.slots, to: version.header.slots))
    }

    /// Deletes a vault for good: the file, its backup (`.bak`), leftover temp files and
    /// its lock file. Refuses while another process holds the write lock. This does
    /// not shred the disk blocks; on flash storage only encryption protects old data.
    ///
    /// ```swift
    /// try Vault.destroy(at: path)   // "Delete Login"
    /// ```
    public static func destroy(at path: String, lockTimeout: Duration = VaultOptions.defaultLockTimeout) throws(CofferError) {
        let store = VaultFileStore(path: path)
        let target = try storeCall { () throws(StoreError) in try store.resolved() }   // the lock file is the link target's; destroy removes the link
        try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
            try storeCall { () throws(StoreError) in try store.destroy() }
        }
        // A writer that was waiting for this lock finds no vault and stops with fileNotFound.
        _ = store.io.retryingInterrupts { store.io.unlink(target.lockPath) }
    }

    /// Wipes the vault's keys and decrypted attributes from memory. Until
    /// ``unlock(with:)``, every call throws ``CofferError/vaultLocked``.
    public func lock() {
        withLock {
            keys = nil
            slotKey = nil
            engine.snapshot.releaseAttributes()
        }
    }

    deinit {
        keys = nil
        engine.snapshot.releaseAttributes()
    }

    /// True after ``lock()``.
    public var isLocked: Bool { withLock { keys == nil } }

    /// The slot key that opened the vault, while it is unlocked and that slot is still in
    /// the header (a password change removes it).
    var openingSlotKey: SlotKey? {
        withLock {
            guard keys != nil else { return nil }
            // The slot that opened the vault, or the new-style slot that replaced it (SPEC.md §11.1).
            for candidate in [slotKey, engine.convertedSlotKey].compactMap({ $0 })
            where engine.snapshot.header.slots.contains(where: { $0.identity == candidate.slotIdentity }) {
                return candidate
            }
            return nil
        }
    }

    /// The vault's id, 32 lowercase hex digits: the same in every copy and replica of it
    /// (``VaultInfo/vaultID``).
    public var vaultID: String { withLock { ItemID(validated: engine.snapshot.vaultID).hex } }

    /// Unlocks a locked vault again, re-reading the file.
    public func unlock(with credential: VaultCredential) throws(CofferError) {
        try withLock { () throws(CofferError) in
            let opened = try VaultFileReader.readAndUnlock(store, with: credential, kdfLimit: options.kdfLimit, entropy: entropy)
            // Unlocking accepts the file as it is now, like opening it.
            try engine.adoptUnlocked(try VaultSnapshot(codec: opened.codec, keys: opened.keys, identity: opened.identity, held: opened.held),
                                     lastStamp: lastStampTime)
            replica = engine.memory.replica
            engine.conversion = opened.conversion
            keys = opened.keys
            slotKey = opened.slotKey
        }
    }

    /// Re-reads the file if another process saved it since this vault last did.
    /// Returns true when something was reloaded.
    ///
    /// A file that lacks something this vault holds (an older copy put back by a sync tool
    /// or a restore, or a replica that diverged) is merged with what this vault holds
    /// (SPEC.md §17) and the merge is saved, so nothing either held is lost.
    @discardableResult
    public func refresh() throws(CofferError) -> Bool {
        try saving { (engine, keys) throws(CofferError) in try engine.refresh(keys: keys) }
    }

    /// Incremented by every save; an app can remember it to notice a rolled-back file.
    public var generation: UInt64 { withLock { engine.snapshot.generation } }

    /// The key slots, in header order.
    public var slots: [KeySlotKind] { withLock { engine.snapshot.header.slots.map(\.kind) } }

    /// Decrypts and checks every entry, overview and secret part, after the manifest
    /// and MACs checked on open. Throws the first failure.
    public func verifyAll() throws(CofferError) {
        try saving { (engine, keys) throws(CofferError) in try engine.verifyAll(keys: keys) }
    }

    // MARK: Transactions

    /// Runs `body` and saves all its changes in one atomic write, or none of them if
    /// `body` throws. Reads inside `body` see the changes made so far.
    ///
    /// ```swift
    /// try vault.transaction { tx in
    ///     try tx.update(from.id) { attributes, secrets in secrets.notes = newBalanceA }
    ///     try tx.update(to.id) { attributes, secrets in secrets.notes = newBalanceB }
    /// }
    /// ```
    public func transaction<R>(_ body: (VaultTransaction) throws -> R) throws -> R {
        try runTransaction(body, lift: { $0 })
    }

    /// A transaction whose body throws only ``CofferError``.
    package func write<R>(_ body: (VaultTransaction) throws(CofferError) -> R) throws(CofferError) -> R {
        try runTransaction(body, lift: { $0 })
    }

    /// Runs `body` on a fresh transaction and commits it; `lift` carries our own errors
    /// into the body's error type, so the typed and untyped entry points share one path.
    private func runTransaction<R, E: Error>(_ body: (VaultTransaction) throws(E) -> R,
                                             lift: (CofferError) -> E) throws(E) -> R {
        try withLock { () throws(E) -> R in
            let keys: EpochKeys
            do throws(CofferError) { keys = try requireKeys() } catch { throw lift(error) }
            let tx = VaultTransaction(vault: self, keys: keys, base: engine.snapshot)
            defer { tx.close() }
            let result = try body(tx)
            let changes = tx.finish()   // lets go of its copy of the snapshot, which commit changes in place
            do throws(CofferError) {
                try withEpochs { () throws(CofferError) in
                    try engine.commit(changes, keys: keys, lastStamp: lastStampTime) { clock, replica in issueStamp(after: clock, replica: replica) }
                }
            } catch {
                throw lift(error)
            }
            adoptReplacingSlot(tx.slotReplacements)
            return result
        }
    }

    /// A read-only view of the current state.
    /// `openingEveryOverview` (a listing): every overview is opened first in the vault's own
    /// snapshot rather than in the transaction's copy, so the rows of a file read lazily are
    /// let go while the listing is made (12.8 MB at 100,000 entries), and a later read of
    /// this vault finds the overviews open.
    package func read<R>(openingEveryOverview: Bool = false, _ body: (VaultTransaction) throws(CofferError) -> R) throws(CofferError) -> R {
        try withLock { () throws(CofferError) -> R in
            let keys = try requireKeys()
            let opened = openingEveryOverview ? try engine.snapshot.openAll(keepingRecords: false) : nil
            // Opened first, then the snapshot as opened; the entries held by the transaction
            // alone, which lets them go on another thread (``VaultTransaction/close()``).
            let tx = VaultTransaction(vault: self, keys: keys, base: engine.snapshot, openedInRowOrder: consume opened)
            defer { tx.close() }
            return try body(tx)
        }
    }

    /// Runs `body` on the save engine with the keys, under the vault's lock.
    func saving<R>(_ body: (inout SaveEngine, EpochKeys) throws(CofferError) -> R) throws(CofferError) -> R {
        try withLock { () throws(CofferError) -> R in
            let keys = try requireKeys()
            // The engine's own work (merges, repairs, rotations) reads every overview.
            try engine.snapshot.openAll()
            return try withEpochs { () throws(CofferError) -> R in try body(&engine, keys) }
        }
    }

    /// Runs `body` (under the vault's lock) with the engine holding the slot key that opened
    /// the vault, which opens a copy rekeyed after or apart from it (SPEC.md §17.8), and
    /// takes the keys of the epoch a save moved the vault to, even when `body` throws after.
    private func withEpochs<R>(_ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        engine.openingSlot = openingSlotKey
        defer {
            engine.openingSlot = nil
            if let moved = engine.takeMovedKeys() { keys = moved }
        }
        return try body()
    }

    /// Runs a key rotation on the file and takes its new keys (``rotateKey()``).
    func rotatingKey() throws(CofferError) -> KeyRotation {
        try withLock { () throws(CofferError) -> KeyRotation in
            let old = try requireKeys()
            // The rotation reads the records itself, a window of the file at a time.
            let (new, removed) = try withEpochs { () throws(CofferError) in
                try engine.rotate(keys: old, lastStamp: lastStampTime) { clock, replica in issueStamp(after: clock, replica: replica) }
            }
            keys = new
            return KeyRotation(removedSlots: removed.map(\.kind), records: engine.snapshot.recordCount)
        }
    }

    /// Runs a key-slot-changing transaction (`body` changes only slots) and saves it; with
    /// `rotatingKey`, the epoch key is rotated in the same save (SPEC.md §11.2, §11.3).
    func changingSlots(rotatingKey: Bool, _ body: (VaultTransaction) throws(CofferError) -> [KeySlotKind]) throws(CofferError) -> KeySlotChange {
        try withLock { () throws(CofferError) -> KeySlotChange in
            let old = try requireKeys()
            let tx = VaultTransaction(vault: self, keys: old, base: engine.snapshot)
            defer { tx.close() }
            // The body changes key slots only (a new slot's KDF runs here): the records are
            // read after it, so the KDF's memory and the file's are not held at once.
            let changed = try body(tx)
            // A rotation reads the records itself, a window of the file at a time.
            if !rotatingKey { try engine.snapshot.openAll() }
            let before = engine.snapshot.header.slots, after = tx.header.slots
            let changes = tx.finish()
            var rotation: KeyRotation?
            if rotatingKey {
                let (new, removed) = try withEpochs { () throws(CofferError) in
                    try engine.rotate(keys: old, slotChanges: changes, lastStamp: lastStampTime) { clock, replica in issueStamp(after: clock, replica: replica) }
                }
                keys = new
                rotation = KeyRotation(removedSlots: removed.map(\.kind), records: engine.snapshot.recordCount)
            } else {
                try withEpochs { () throws(CofferError) in
                    try engine.commit(changes, keys: old, lastStamp: lastStampTime) { clock, replica in issueStamp(after: clock, replica: replica) }
                }
            }
            adoptReplacingSlot(tx.slotReplacements)
            // A password change replaces slots in place: those are `changed`, not added and removed.
            let slots = changed.isEmpty ? KeySlotChange(from: before, to: after) : .none
            return KeySlotChange(changed: changed, added: slots.added, removed: slots.removed, rotation: rotation)
        }
    }

    /// After a saved password change (under the vault's lock): the slot that replaced the
    /// one that opened the vault becomes the opening slot, whose key opens a copy rekeyed
    /// later (SPEC.md §17.8 cases 2 and 4) and a cached unlock; as if the vault had been
    /// opened again with the new password.
    func adoptReplacingSlot(_ replacements: [[UInt8]: SlotKey]) {
        for current in [slotKey, engine.convertedSlotKey].compactMap({ $0 }) {
            if let next = replacements[current.slotIdentity] {
                slotKey = next
                return
            }
        }
    }

    func requireKeys() throws(CofferError) -> EpochKeys {
        guard let keys else { throw .vaultLocked }
        return keys
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body()
    }
}

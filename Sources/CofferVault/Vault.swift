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
    private var keys: VaultKeys?
    /// The key slot that opened the vault and its key-encryption key, for
    /// ``cacheUnlock(in:for:)``; wiped with the keys.
    private var slotKey: SlotKey?
    private var snapshot: VaultSnapshot
    /// The snapshot as it is now (tests and the merge look at records and tombstones).
    var currentSnapshot: VaultSnapshot { snapshot }
    /// The highest generation this vault has read or written: a save writes one above it.
    private var highestGeneration: UInt64
    /// This device's replica id for the vault and the newest version it has seen (SPEC.md §17.7).
    private var memory: ReplicaMemory
    /// The replica id that stamps this vault's edits (SPEC.md §17.1).
    var replica: UInt64 { memory.replica }
    /// The last time given to a stamp, so stamps of one replica only grow.
    private var lastStampTime: UInt64 = 0
    /// The clock of every date this vault writes and every expiry it checks (``WallClock``).
    /// The test vectors (SPEC.md §15.2) fix it so that regenerating them gives the same bytes.
    package var wallClock = WallClock.system

    /// Now, by ``wallClock``, to the millisecond.
    package func now() -> Date { withLock { wallClock.now() } }

    init(path: String, options: VaultOptions, store: VaultFileStore, entropy: EntropySource,
         keys: VaultKeys, slotKey: SlotKey?, snapshot: VaultSnapshot, memory: ReplicaMemory) {
        self.path = path
        self.slotKey = slotKey
        self.options = options
        self.store = store
        self.entropy = entropy
        self.keys = keys
        self.snapshot = snapshot
        self.highestGeneration = snapshot.generation
        self.memory = memory
    }

    /// Set when the file opened is older than a version of this vault already seen on
    /// this device (a restored backup, a sync tool's older copy): saves are refused with
    /// ``CofferError/Kind/rolledBack`` until ``acceptRollback()``. Nil otherwise, and always
    /// with ``ReplicaStateLocation/none``.
    ///
    /// ```swift
    /// if let warning = vault.rollback {
    ///     if userConfirms(warning.description) { vault.acceptRollback() }
    /// }
    /// ```
    public var rollback: RollbackWarning? { withLock { memory.rollback } }

    /// Accepts the rolled-back file as the vault's current version: saves work again, and
    /// this device stops warning about it (it remembers this version as the newest seen).
    /// The edits it lacks come back if a replica that holds them is merged later.
    public func acceptRollback() { withLock { memory.acceptRollback(snapshot.header.clock) } }

    /// A fresh stamp for this replica's next edits, above every time in `clock` and every
    /// stamp given before (SPEC.md §17.1).
    func issueStamp(after clock: VersionVector) -> Stamp {
        withLock {
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
        let vaultKey = try entropy.secureBytes(FormatV1.keyLength)
        let keys = try formatCall { () throws(FormatError) in try VaultKeys(vaultKey: vaultKey) }
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        var slots: [KeySlotRecord] = []
        var firstSlotKey: SlotKey?
        for credential in credentials {
            let made = try formatCall { () throws(FormatError) in
                try KeySlotRecord.makeReturningKEK(for: credential, vaultKey: vaultKey, vaultID: vaultID, kdf: options.kdf, entropy: entropy)
            }
            slots.append(made.slot)
            if firstSlotKey == nil { firstSlotKey = SlotKey(slotIdentity: made.slot.identity, slotKind: made.slot.kind, kek: made.kek) }
        }
        var header = VaultHeader(vaultID: vaultID, slots: slots, extensions: [])
        var memory = try ReplicaMemory(location: options.replicaState, path: path, header: header, generation: 1, entropy: entropy)
        header.clock = VersionVector([memory.replica: HybridTime.next(after: 0, nowMilliseconds: clock.milliseconds())])
        let bytes = try formatCall { () throws(FormatError) in try VaultFile.encode(header: header, generation: 1, records: [], keys: keys) }
        // Under the write lock, so this never races another writer's temp-file cleanup.
        let identity = try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) in
            try storeCall { () throws(StoreError) in try store.create(bytes) }
        }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: identity)
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
        let opened = try readAndUnlock(store, with: credential, kdfLimit: options.kdfLimit)
        return try Vault(opened: opened.codec, identity: opened.file.identity, keys: opened.keys, slotKey: opened.slotKey,
                         path: path, options: options, store: store, entropy: entropy)
    }

    /// Reads the file and opens it with `credential` (header and manifest authenticated).
    ///
    /// The key slot is opened from the start of the file (header and manifest count)
    /// before the rest is read: the KDF's memory (64 MiB and more, freed when it returns)
    /// and the file's buffer are then never held at once, which keeps a large vault's peak
    /// memory down by the KDF's share. Should the file be replaced between the two reads
    /// with other key slots, the slot is opened again from the file as read.
    static func readAndUnlock(_ store: VaultFileStore, with credential: VaultCredential, kdfLimit: KDFLimit)
        throws(CofferError) -> (file: FileSnapshot, codec: VaultFile, keys: VaultKeys, slotKey: SlotKey) {
        let start = try storeCall { () throws(StoreError) in try store.readPrefix(VaultFile.summaryPrefixLength) }
        guard let header = try? VaultFile.parseSummary(start.bytes).header else {
            // A damaged start: the whole file is parsed, so that its error is the one
            // SPEC.md §10's order gives (the start alone may stop at a later check).
            let file = try storeCall { () throws(StoreError) in try store.read() }
            let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
            return try unlockRead(file, codec, with: credential, kdfLimit: kdfLimit)
        }
        try kdfLimit.check(header.slots, kind: credential.slotKind)
        // A failure (a wrong password) is reported after the file's structure is checked:
        // SPEC.md §10 checks that first, whatever the key.
        let early = Result { () throws(FormatError) in try VaultFile.unlock(header, with: credential) }
        let file = try storeCall { () throws(StoreError) in try store.read() }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
        if codec.header != header {
            return try unlockRead(file, codec, with: credential, kdfLimit: kdfLimit)
        }
        let opened = try formatCall { () throws(FormatError) in try early.get() }
        try formatCall { () throws(FormatError) in try codec.authenticate(keys: opened.keys) }
        return (file, codec, opened.keys, opened.slotKey)
    }

    /// The file as read, opened with `credential` from its own header: its start did not
    /// parse alone, or it changed after the first read (the file was replaced in between).
    private static func unlockRead(_ file: FileSnapshot, _ codec: VaultFile, with credential: VaultCredential, kdfLimit: KDFLimit)
        throws(CofferError) -> (file: FileSnapshot, codec: VaultFile, keys: VaultKeys, slotKey: SlotKey) {
        try kdfLimit.check(codec.header.slots, kind: credential.slotKind)
        let opened = try formatCall { () throws(FormatError) in try codec.unlock(with: credential) }
        try formatCall { () throws(FormatError) in try codec.authenticate(keys: opened.keys) }
        return (file, codec, opened.keys, opened.slotKey)
    }

    /// A vault for a file just read and verified with `keys`.
    convenience init(opened codec: VaultFile, identity: FileIdentity, keys: VaultKeys, slotKey: SlotKey?,
                     path: String, options: VaultOptions, store: VaultFileStore, entropy: EntropySource) throws(CofferError) {
        let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: identity)
        let memory = try ReplicaMemory(location: options.replicaState, path: path, header: snapshot.header,
                                       generation: snapshot.generation, entropy: entropy)
        self.init(path: path, options: options, store: store, entropy: entropy, keys: keys, slotKey: slotKey, snapshot: snapshot, memory: memory)
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
        if scope == .wholeFile { return try structureInfo(at: path) }
        let file = try storeCall { () throws(StoreError) in try VaultFileStore(path: path).readPrefix(VaultFile.summaryPrefixLength) }
        let summary = try formatCall { () throws(FormatError) in try VaultFile.parseSummary(file.bytes) }
        return VaultInfo(
            formatVersion: Int(FormatV1.version),
            vaultID: ItemID(validated: summary.header.vaultID).hex,
            generation: summary.generation,
            slots: summary.header.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) },
            entryCount: summary.entryCount,
            fileSize: Int(file.identity.size))
    }

    /// ``info(at:scope:)-(String,_)`` over the whole file: SPEC.md §10 steps 1–9, exactly the checks
    /// an open runs before it needs a key, so whatever this refuses, an open refuses the
    /// same way.
    private static func structureInfo(at path: String) throws(CofferError) -> VaultInfo {
        let file = try storeCall { () throws(StoreError) in try VaultFileStore(path: path).read() }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
        return VaultInfo(
            formatVersion: Int(FormatV1.version),
            vaultID: ItemID(validated: codec.header.vaultID).hex,
            generation: codec.manifest.generation,
            slots: codec.header.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) },
            entryCount: codec.manifest.entryCount,
            fileSize: file.bytes.count)
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
    public static func restoreBackup(at path: String, lockTimeout: Duration = VaultOptions.defaultLockTimeout) throws(CofferError) {
        let store = VaultFileStore(path: path)
        try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
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
        try withLock { () throws(CofferError) in
            let keys = try requireKeys()
            try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) in
                let backup = try storeCall { () throws(StoreError) in try store.readBackup() }
                var restored = try replicaSnapshot(backup.bytes, name: "the backup \(path).bak", keys: keys)
                try restored.checkDigests()
                restored.identity = try storeCall { () throws(StoreError) in try store.restoreBackup() }
                snapshot = restored
                highestGeneration = max(highestGeneration, restored.generation)
                memory.adopt(restored.header.clock)
            }
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
            let backup = try storeCall { () throws(StoreError) in try store.readBackup() }
            // Listing its items checks the digest of every record it returns (and only its
            // items are read here), so nothing unverified is shown.
            let backupSnapshot = try replicaSnapshot(backup.bytes, name: "the backup \(path).bak", keys: keys)
            func items(_ base: VaultSnapshot) throws(CofferError) -> [Item] {
                let tx = VaultTransaction(vault: self, keys: keys, base: base)
                defer { tx.close() }
                return try tx.items()
            }
            let inBackup = try items(backupSnapshot), inVault = try items(snapshot)
            let current = Dictionary(inVault.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let kept = Set(inBackup.map(\.id))
            return BackupChanges(restored: inBackup.filter { current[$0.id] == nil },
                                 removed: inVault.filter { !kept.contains($0.id) },
                                 changed: inBackup.filter { item in current[item.id].map { $0.revision != item.revision } ?? false },
                                 backupItemCount: inBackup.count)
        }
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
            snapshot.releaseAttributes()
        }
    }

    deinit {
        keys = nil
        snapshot.releaseAttributes()
    }

    /// True after ``lock()``.
    public var isLocked: Bool { withLock { keys == nil } }

    /// The slot key that opened the vault, while it is unlocked and that slot is still in
    /// the header (a password change removes it).
    var openingSlotKey: SlotKey? {
        withLock {
            guard keys != nil, let slotKey,
                  snapshot.header.slots.contains(where: { $0.identity == slotKey.slotIdentity }) else { return nil }
            return slotKey
        }
    }

    /// The vault's id, 32 lowercase hex digits: the same in every copy and replica of it
    /// (``VaultInfo/vaultID``).
    public var vaultID: String { withLock { ItemID(validated: snapshot.vaultID).hex } }

    /// Unlocks a locked vault again, re-reading the file.
    public func unlock(with credential: VaultCredential) throws(CofferError) {
        try withLock { () throws(CofferError) in
            let opened = try Self.readAndUnlock(store, with: credential, kdfLimit: options.kdfLimit)
            snapshot = try VaultSnapshot(codec: opened.codec, keys: opened.keys, identity: opened.file.identity)
            keys = opened.keys
            slotKey = opened.slotKey
            // Unlocking accepts the file as it is now, like opening it; numbering continues
            // above every generation seen, so none repeats.
            highestGeneration = max(highestGeneration, snapshot.generation)
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
        try withLock { () throws(CofferError) -> Bool in
            let keys = try requireKeys()
            guard try storeCall({ () throws(StoreError) in try store.currentIdentity() }) != snapshot.identity else { return false }
            let fresh = try readVerified(keys: keys)
            if fresh.header.clock.dominates(snapshot.header.clock), fresh.generation >= snapshot.generation {
                snapshot = fresh
                highestGeneration = max(highestGeneration, snapshot.generation)
                return true
            }
            try saveMerged(with: fresh, keys: keys)
            return true
        }
    }

    /// Incremented by every save; an app can remember it to notice a rolled-back file.
    public var generation: UInt64 { withLock { snapshot.generation } }

    /// The key slots, in header order.
    public var slots: [KeySlotKind] { withLock { snapshot.header.slots.map(\.kind) } }

    /// Decrypts and checks every entry, overview and secret part, after the manifest
    /// and MACs checked on open. Throws the first failure.
    public func verifyAll() throws(CofferError) {
        try withLock { () throws(CofferError) in
            let keys = try requireKeys()
            let fresh = try readVerified(keys: keys)
            for record in fresh.allRecords.sorted(by: { $0.id < $1.id }) {
                try formatCall { () throws(FormatError) in 
                    _ = try record.openOverview(vaultID: fresh.vaultID, keys: keys)
                    _ = try record.openSecrets(vaultID: fresh.vaultID, keys: keys)
                }
            }
        }
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
            let keys: VaultKeys
            do throws(CofferError) { keys = try requireKeys() } catch { throw lift(error) }
            let tx = VaultTransaction(vault: self, keys: keys, base: snapshot)
            defer { tx.close() }
            let result = try body(tx)
            let changes = tx.finish()   // lets go of its copy of the snapshot, which commit changes in place
            do throws(CofferError) { try commit(changes, keys: keys) } catch { throw lift(error) }
            return result
        }
    }

    /// A read-only view of the current state.
    package func read<R>(_ body: (VaultTransaction) throws(CofferError) -> R) throws(CofferError) -> R {
        try withLock { () throws(CofferError) -> R in
            let tx = VaultTransaction(vault: self, keys: try requireKeys(), base: snapshot)
            defer { tx.close() }
            return try body(tx)
        }
    }

    // MARK: Saving

    private func commit(_ changes: Changeset, keys: VaultKeys) throws(CofferError) {
        guard !changes.isEmpty else { return }
        try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) in
            let onDisk = try storeCall({ () throws(StoreError) in try store.currentIdentity() })
            if onDisk == snapshot.identity, changes.basedOn == snapshot.identity {
                // The transaction was made on this very snapshot, which is the file: encode the
                // file from both, and change the snapshot (in place: no copy of a large vault)
                // only once the file is saved.
                let generation = max(snapshot.generation, highestGeneration) + 1
                let header = stamped(changes.header ?? snapshot.header, removing: Self.removedSlots(snapshot.header, changes.header),
                                     stamp: changes.stamp ?? issueStamp(after: snapshot.header.clock))
                // Nothing unchecked is carried into the new file: the records it keeps are
                // checked first (once per snapshot), those the transaction sealed are new.
                try snapshot.checkDigests()
                let records = snapshot.records(applying: changes)
                let bytes = try formatCall { () throws(FormatError) in
                    try VaultFile.encodeInPieces(header: header, generation: generation, records: records, keys: keys)
                }
                try save(bytes, clock: header.clock, slotsChanged: header.slots != snapshot.header.slots) { identity in
                    changes.applyChecked(to: &snapshot)
                    snapshot.header = header
                    snapshot.generation = generation
                    snapshot.identity = identity
                    highestGeneration = generation
                }
                return
            }
            // Another process saved since we read, or a write inside the transaction's body
            // did: join that version with ours, then make the transaction's changes again on it.
            var next = snapshot
            if onDisk != snapshot.identity {
                next = try ReplicaMerge.merge(snapshot, try readVerified(keys: keys), vaultID: snapshot.vaultID, keys: keys,
                                              entropy: entropy).snapshot
                next.identity = snapshot.identity
            }
            let stamp = issueStamp(after: next.header.clock.merged(with: VersionVector(changes.stamp.map { [$0.replica: $0.time] } ?? [:])))
            try replay(changes, onto: &next, stamp: stamp, keys: keys)
            next.generation = max(next.generation, highestGeneration) + 1
            let slotsChanged = next.header.slots != snapshot.header.slots
            next.digestsChecked = false   // it holds the other version's records too
            try next.checkDigests()
            let bytes = try formatCall { () throws(FormatError) in
                try VaultFile.encodeInPieces(header: next.header, generation: next.generation, records: next.allRecords, keys: keys)
            }
            try save(bytes, clock: next.header.clock, slotsChanged: slotsChanged) { identity in
                next.identity = identity
                snapshot = next
                highestGeneration = next.generation
            }
        }
    }

    /// The header to save after a transaction on `base`: `header` with the transaction's
    /// stamp in the vault clock and the slots it removed remembered as removed (SPEC.md §17.4).
    private func stamped(_ header: VaultHeader, removing removed: [[UInt8]], stamp: Stamp) -> VaultHeader {
        var out = header
        var clock = out.clock
        clock.include(stamp)
        out.clock = clock
        if !removed.isEmpty {
            out.removedSlots = out.removedSlots + removed.map { VaultHeader.RemovedSlot(identity: $0, time: stamp.time) }
        }
        return out
    }

    /// The identities of the slots of `base` that `changed` no longer has.
    private static func removedSlots(_ base: VaultHeader, _ changed: VaultHeader?) -> [[UInt8]] {
        guard let changed else { return [] }
        let kept = Set(changed.slots.map(\.identity))
        return base.slots.map(\.identity).filter { !kept.contains($0) }
    }

    /// Makes a transaction's changes again on `next`, a newer version than the one it was
    /// made on: edits keep what another writer changed meanwhile (its values of the same
    /// fields become conflicts), a deletion of an item changed meanwhile is dropped (the
    /// edit wins), key slots added and removed are added and removed.
    private func replay(_ changes: Changeset, onto next: inout VaultSnapshot, stamp: Stamp, keys: VaultKeys) throws(CofferError) {
        let base = changes.baseHeader ?? snapshot.header
        if let header = changes.header {
            var merged = next.header
            let before = Set(base.slots.map(\.identity))
            let removed = before.subtracting(header.slots.map(\.identity))
            let existing = Set(merged.slots.map(\.identity))
            merged.slots.removeAll { removed.contains($0.identity) }
            // Only the slots the transaction added: a slot of its base that the new version
            // lacks was removed by the other writer (a changed password), and stays removed.
            merged.slots += header.slots.filter { !before.contains($0.identity) && !existing.contains($0.identity) }
            guard !merged.slots.isEmpty, merged.slots.count <= FormatV1.maxSlots else {
                throw .conflict("key slots were changed by another writer meanwhile; the change cannot be made on the new version")
            }
            next.header = merged
        }
        next.header = stamped(next.header, removing: Self.removedSlots(base, changes.header), stamp: stamp)
        for id in changes.order {
            guard let change = changes.entries[id] else { continue }
            let current = try next.version(id)
            guard let baseVersion = changes.bases[id] ?? nil else {
                // Added by the transaction: a new id, its record stands as sealed.
                try next.apply(id, change)
                continue
            }
            guard let current else { continue }   // compacted away meanwhile: nothing to edit
            switch change {
            case .put(let sealed, _):
                let staged = try ItemVersion(record: sealed.record, overview: sealed.overview)
                let (new, _) = try staged.parts(vaultID: next.vaultID, keys: keys)
                let edited = try ItemMerge.edit(current: current, base: baseVersion, new: new, stamp: stamp,
                                                resolvingConflicts: changes.resolved.contains(id),
                                                vaultID: next.vaultID, keys: keys, entropy: entropy)
                if try VaultSnapshot.isTombstone(edited.overview) {
                    next.applyChecked(id, .tombstone(edited))
                } else {
                    // The unique key is checked (and indexed) as the item ends: fields another
                    // writer changed meanwhile keep their values, the key's among them.
                    let attributes = try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(edited.overview) }
                    try next.apply(id, .put(edited, attributes))
                }
            case .tombstone:
                if let tombstone = try ItemMerge.delete(current: current, base: baseVersion, stamp: stamp,
                                                        vaultID: next.vaultID, keys: keys, entropy: entropy) {
                    next.applyChecked(id, .tombstone(tombstone))
                }
            }
        }
    }

    /// Joins `other` (verified, same vault) with what this vault holds and saves the result,
    /// under the write lock. Returns what the merge changed.
    @discardableResult
    func saveMerged(with other: VaultSnapshot, keys: VaultKeys) throws(CofferError) -> MergeReport {
        try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) -> MergeReport in
            var base = snapshot
            if try storeCall({ () throws(StoreError) in try store.currentIdentity() }) != snapshot.identity {
                // The file changed since we read it: it takes part too.
                base = try ReplicaMerge.merge(snapshot, try readVerified(keys: keys), vaultID: snapshot.vaultID, keys: keys,
                                              entropy: entropy).snapshot
            }
            let outcome = try ReplicaMerge.merge(base, other, vaultID: snapshot.vaultID, keys: keys, entropy: entropy)
            var next = outcome.snapshot
            next.generation = max(next.generation, highestGeneration) + 1
            next.digestsChecked = false   // it holds the other version's records too
            try next.checkDigests()
            let bytes = try formatCall { () throws(FormatError) in
                try VaultFile.encodeInPieces(header: next.header, generation: next.generation, records: next.allRecords, keys: keys)
            }
            try save(bytes, clock: next.header.clock, slotsChanged: next.header.slots != snapshot.header.slots) { identity in
                next.identity = identity
                snapshot = next
                highestGeneration = next.generation
            }
            return outcome.report
        }
    }

    /// Replaces the file with `bytes`, then hands `saved` the new file's identity.
    /// With `slotsChanged`, no backup under the old key slots is left (see `VaultFileStore.replace`):
    /// a `.bak` that still opened with a replaced password would unwrap the vault key,
    /// which decrypts everything saved later too.
    private func save(_ bytes: EncodedVaultFile, clock: VersionVector, slotsChanged: Bool, saved: (FileIdentity) -> Void) throws(CofferError) {
        if memory.stillRolledBack(clock), let warning = memory.rollback {
            throw .rolledBack("\(path): \(warning.description); nothing was saved (accept the rollback to save anyway)")
        }
        let identity: FileIdentity
        do throws(StoreError) {
            identity = try store.replace(with: bytes, keepBackup: options.keepsBackup, slotsChanged: slotsChanged)
        } catch {
            if case .system(.syncDirectory, _, _) = error {
                // The new file is in place (only its durability is unknown): remember it, so
                // the next save does not mistake our own write for another writer's.
                if let identity = try storeCall({ () throws(StoreError) in try store.currentIdentity() }) { saved(identity) }
            }
            throw CofferError(error)
        }
        saved(identity)
        memory.remember(clock)
    }

    /// Reads, parses and verifies the file with the keys we hold.
    private func readVerified(keys: VaultKeys) throws(CofferError) -> VaultSnapshot {
        let file = try storeCall { () throws(StoreError) in try store.read() }
        return try replicaSnapshot(file.bytes, name: "the file at \(path) now", keys: keys, identity: file.identity)
    }

    /// Parses and verifies a replica of this vault with the keys we hold; overviews of
    /// records we hold already are not decrypted again.
    func replicaSnapshot(_ bytes: [UInt8], name: String, keys: VaultKeys,
                         identity: FileIdentity? = nil) throws(CofferError) -> VaultSnapshot {
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        guard codec.header.vaultID == snapshot.vaultID else {
            throw .differentVault("\(name) holds a different vault")
        }
        try formatCall { () throws(FormatError) in try codec.authenticate(keys: keys) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: identity ?? snapshot.identity, reusing: snapshot)
    }

    func requireKeys() throws(CofferError) -> VaultKeys {
        guard let keys else { throw .vaultLocked }
        return keys
    }

    func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body()
    }
}

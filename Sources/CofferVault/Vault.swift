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
    private var snapshot: VaultSnapshot
    /// The highest generation this vault has read or written. A save writes a generation
    /// above it, and a file that is not above it is never merged onto (see ``commit``).
    private var highestGeneration: UInt64

    init(path: String, options: VaultOptions, store: VaultFileStore, entropy: EntropySource,
         keys: VaultKeys, snapshot: VaultSnapshot) {
        self.path = path
        self.options = options
        self.store = store
        self.entropy = entropy
        self.keys = keys
        self.snapshot = snapshot
        self.highestGeneration = snapshot.generation
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
                       entropy: EntropySource, store: VaultFileStore? = nil) throws(CofferError) -> Vault {
        // Every slot added later uses these too: refuse what a reader would (SPEC.md §9).
        try options.kdf.validate()
        let store = store ?? VaultFileStore(path: path)
        let vaultKey = try entropy.secureBytes(FormatV1.keyLength)
        let keys = try formatCall { () throws(FormatError) in try VaultKeys(vaultKey: vaultKey) }
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        var slots: [KeySlotRecord] = []
        for credential in credentials {
            slots.append(try formatCall { () throws(FormatError) in 
                try KeySlotRecord.make(for: credential, vaultKey: vaultKey, vaultID: vaultID, kdf: options.kdf, entropy: entropy)
            })
        }
        let header = VaultHeader(vaultID: vaultID, slots: slots, extensions: [])
        let bytes = try formatCall { () throws(FormatError) in try VaultFile.encode(header: header, generation: 1, records: [], keys: keys) }
        // Under the write lock, so this never races another writer's temp-file cleanup.
        let identity = try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) in
            try storeCall { () throws(StoreError) in try store.create(bytes) }
        }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: identity)
        return Vault(path: path, options: options, store: store, entropy: entropy, keys: keys, snapshot: snapshot)
    }

    /// Opens a vault with any one of its key slots.
    ///
    /// Throws ``CofferError/wrongPassword``, ``CofferError/wrongKeyFile`` or
    /// ``CofferError/wrongRawKey`` when no slot opens, and a file error, ``CofferError/tampered(_:)``
    /// or ``CofferError/truncated(_:)`` when the file cannot be trusted.
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
        let file = try storeCall { () throws(StoreError) in try store.read() }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
        let keys = try formatCall { () throws(FormatError) in try codec.unlockAndVerify(with: credential) }
        let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: file.identity)
        return Vault(path: path, options: options, store: store, entropy: entropy, keys: keys, snapshot: snapshot)
    }

    /// Reads a vault's format version, KDF parameters, slots and entry count, without a password.
    ///
    /// Only the start of the file is read (header and manifest count, at most about
    /// 64 KiB), so this is cheap at any size; nothing is authenticated yet, and the rest
    /// of the file is checked by ``open(at:credential:options:)``.
    public static func info(at path: String) throws(CofferError) -> VaultInfo {
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

    /// Puts the previous version (`<path>.bak`) back in place of the vault file.
    public static func restoreBackup(at path: String, lockTimeout: Duration = .seconds(10)) throws(CofferError) {
        let store = VaultFileStore(path: path)
        try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
            _ = try storeCall { () throws(StoreError) in try store.restoreBackup() }
        }
    }

    /// Deletes a vault for good: the file, its backup (`.bak`), leftover temp files and
    /// its lock file. Refuses while another process holds the write lock. This does
    /// not shred the disk blocks; on flash storage only encryption protects old data.
    ///
    /// ```swift
    /// try Vault.destroy(at: path)   // "Delete Login"
    /// ```
    public static func destroy(at path: String, lockTimeout: Duration = .seconds(10)) throws(CofferError) {
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
            snapshot.releaseAttributes()
        }
    }

    deinit {
        keys = nil
        snapshot.releaseAttributes()
    }

    /// True after ``lock()``.
    public var isLocked: Bool { withLock { keys == nil } }

    /// Unlocks a locked vault again, re-reading the file.
    public func unlock(with credential: VaultCredential) throws(CofferError) {
        try withLock { () throws(CofferError) in
            let file = try storeCall { () throws(StoreError) in try store.read() }
            let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
            let newKeys = try formatCall { () throws(FormatError) in try codec.unlockAndVerify(with: credential) }
            snapshot = try VaultSnapshot(codec: codec, keys: newKeys, identity: file.identity)
            keys = newKeys
            // Unlocking accepts the file as it is now, like opening it; numbering continues
            // above every generation seen, so none repeats.
            highestGeneration = max(highestGeneration, snapshot.generation)
        }
    }

    /// Re-reads the file if another process saved it since this vault last did.
    /// Returns true when something was reloaded.
    ///
    /// A file whose generation is not above every one this vault has seen (an older copy
    /// put back by a sync tool or a restore, or a copy saved elsewhere from an older one)
    /// is ``CofferError/conflict(_:)``, and the vault keeps what it holds; open the file
    /// again to accept that copy.
    @discardableResult
    public func refresh() throws(CofferError) -> Bool {
        try withLock { () throws(CofferError) -> Bool in
            let keys = try requireKeys()
            guard try storeCall({ () throws(StoreError) in try store.currentIdentity() }) != snapshot.identity else { return false }
            let fresh = try readVerified(keys: keys)
            try checkNewer(fresh)
            snapshot = fresh
            highestGeneration = snapshot.generation
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
            var next: VaultSnapshot
            if try storeCall({ () throws(StoreError) in try store.currentIdentity() }) != snapshot.identity {
                // Another process saved since we read: start from its version, if it is newer
                // than ours. An older or diverging copy (a sync tool renamed one into place)
                // lacks what only our generations hold: merging onto it would drop that.
                let theirs = try readVerified(keys: keys)
                try checkNewer(theirs)
                do throws(CofferError) {
                    try changes.checkNoConflict(base: snapshot, theirs: theirs)
                } catch {
                    snapshot = theirs   // show the caller the current state before they retry
                    highestGeneration = snapshot.generation
                    throw error
                }
                next = theirs
            } else if changes.basedOn == snapshot.identity {
                // The transaction checked its changes against this very snapshot: encode the
                // file from both, and change the snapshot (in place: no copy of a large vault)
                // only once the file is saved.
                let generation = max(snapshot.generation, highestGeneration) + 1
                let records = snapshot.records(applying: changes)
                let bytes = try formatCall { () throws(FormatError) in 
                    try VaultFile.encode(header: changes.header ?? snapshot.header, generation: generation, records: records, keys: keys)
                }
                let slotsChanged = changes.header.map { $0.slots != snapshot.header.slots } ?? false
                try save(bytes, slotsChanged: slotsChanged) { identity in
                    changes.applyChecked(to: &snapshot)
                    snapshot.generation = generation
                    snapshot.identity = identity
                    highestGeneration = generation
                }
                return
            } else {
                next = snapshot   // a write inside the transaction's body saved meanwhile
            }
            let slotsChanged = changes.header.map { $0.slots != next.header.slots } ?? false
            try changes.apply(to: &next)
            next.generation = max(next.generation, highestGeneration) + 1
            let bytes = try formatCall { () throws(FormatError) in 
                try VaultFile.encode(header: next.header, generation: next.generation, records: next.allRecords, keys: keys)
            }
            try save(bytes, slotsChanged: slotsChanged) { identity in
                next.identity = identity
                snapshot = next
                highestGeneration = next.generation
            }
        }
    }

    /// Refuses a file that is not newer than every generation this vault has seen: an
    /// older copy of the vault, or one saved elsewhere from an older copy. Saving over
    /// it would drop what only the newer generations hold, and reuse their numbers.
    private func checkNewer(_ theirs: VaultSnapshot) throws(CofferError) {
        // The same version rewritten as a new file (a sync tool's identical copy) loses nothing.
        if theirs.generation == snapshot.generation, Self.sameVersion(theirs, snapshot) { return }
        guard theirs.generation > highestGeneration else {
            throw .conflict("the file at \(path) was replaced by generation \(theirs.generation) of this vault, "
                + "older than or diverging from generation \(highestGeneration) read here "
                + "(a sync tool or a restore put an older copy in place?); nothing was saved")
        }
    }

    /// Replaces the file with `bytes`, then hands `saved` the new file's identity.
    /// With `slotsChanged`, no backup under the old key slots is left (see `VaultFileStore.replace`):
    /// a `.bak` that still opened with a replaced password would unwrap the vault key,
    /// which decrypts everything saved later too.
    private func save(_ bytes: [UInt8], slotsChanged: Bool, saved: (FileIdentity) -> Void) throws(CofferError) {
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
    }

    /// Whether two snapshots hold the same header and the same records.
    private static func sameVersion(_ a: VaultSnapshot, _ b: VaultSnapshot) -> Bool {
        guard a.header == b.header, a.entries.count == b.entries.count else { return false }
        for (id, entry) in a.entries where b.entries[id]?.record.digest != entry.record.digest { return false }
        return true
    }

    /// Reads, parses and verifies the file with the keys we hold.
    private func readVerified(keys: VaultKeys) throws(CofferError) -> VaultSnapshot {
        let file = try storeCall { () throws(StoreError) in try store.read() }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) }
        guard codec.header.vaultID == snapshot.vaultID else {
            throw .conflict("the file at \(path) now holds a different vault")
        }
        try formatCall { () throws(FormatError) in try codec.verify(keys: keys) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: file.identity, reusing: snapshot)
    }

    private func requireKeys() throws(CofferError) -> VaultKeys {
        guard let keys else { throw .vaultLocked }
        return keys
    }

    private func withLock<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        stateLock.lock()
        defer { stateLock.unlock() }
        return try body()
    }
}

import CofferCrypto
import CofferFormat
import CofferStore

/// How an open vault's changes reach its file: a transaction saved on the version it was
/// made on, or made again on a version another writer saved meanwhile (joined with it first,
/// SPEC.md §17); another replica merged in; a refreshed file or a restored backup taken up.
/// Every save is one atomic replace under the cross-process write lock, and nothing another
/// writer saved is lost.
///
/// The engine holds the file as this vault knows it: the snapshot, the highest generation
/// seen and the device's replica memory. ``Vault`` holds the keys, its lock and the stamps,
/// and runs the engine under that lock. The engine meets the store and the format only in
/// its file side (the last section below), where their errors take their ``CofferError`` kinds.
struct SaveEngine {
    let path: String
    let store: VaultFileStore
    let options: VaultOptions
    let entropy: EntropySource
    /// The version of the file this vault last read or wrote, with every overview checked.
    var snapshot: VaultSnapshot
    /// The highest generation this vault has read or written: a save writes one above it.
    private(set) var highestGeneration: UInt64
    /// This device's replica id for the vault and the newest version it has seen (SPEC.md §17.7).
    private(set) var memory: ReplicaMemory

    init(path: String, store: VaultFileStore, options: VaultOptions, entropy: EntropySource,
         snapshot: VaultSnapshot, memory: ReplicaMemory) {
        self.path = path
        self.store = store
        self.options = options
        self.entropy = entropy
        self.snapshot = snapshot
        self.highestGeneration = snapshot.generation
        self.memory = memory
    }

    /// Takes `opened`, the file as an unlock or refresh just read it, as the current version;
    /// numbering continues above every generation seen, so none repeats.
    mutating func adopt(_ opened: VaultSnapshot) {
        snapshot = opened
        highestGeneration = max(highestGeneration, opened.generation)
    }

    /// Accepts the rolled-back file as the current version (``Vault/acceptRollback()``).
    mutating func acceptRollback() { memory.acceptRollback(snapshot.header.clock) }

    // MARK: Transactions

    /// Saves a transaction's changes. On the version they were made on, which is still the
    /// file, they are applied to the snapshot in place once the file is saved (no copy of a
    /// large vault). Otherwise (another process saved since we read, or a write inside the
    /// transaction's body did) that version is joined with ours, and the changes are made
    /// again on the result with a fresh stamp from `issueStamp` (given the clock seen and the
    /// replica id to stamp with). `lastStamp` is the newest time this vault gave a stamp.
    ///
    /// Before that stamp, the replica id is checked against the device (SPEC.md §17.7): a
    /// file another writer saved may be a restored backup or a rolled-back copy, and another
    /// app on this device may have taken a fresh id for it; the save follows the device's id,
    /// and takes a fresh one when what it saves lacks that id's latest edit.
    mutating func commit(_ changes: Changeset, keys: VaultKeys, lastStamp: UInt64,
                         issueStamp: (VersionVector, UInt64) -> Stamp) throws(CofferError) {
        guard !changes.isEmpty else { return }
        try locked { (engine) throws(CofferError) in
            let fileChanged = try engine.fileChanged()
            guard fileChanged || changes.basedOn != engine.snapshot.identity else {
                try engine.save(changes, stamp: changes.stamp ?? issueStamp(engine.snapshot.header.clock, engine.memory.replica), keys: keys)
                return
            }
            var next = fileChanged ? try engine.joinedWithFile(keys: keys) : engine.snapshot
            if fileChanged {
                try engine.memory.checkReplica(before: next.header.clock, lastStamp: lastStamp, entropy: engine.entropy)
            }
            let seen = next.header.clock.merged(with: VersionVector(changes.stamp.map { [$0.replica: $0.time] } ?? [:]))
            try engine.replay(changes, onto: &next, stamp: issueStamp(seen, engine.memory.replica), keys: keys)
            try engine.saveJoined(next, keys: keys)
        }
    }

    /// Saves `changes`, made on ``snapshot`` which is the file, encoding the new file from
    /// both, and applies them to the snapshot once the file is saved.
    private mutating func save(_ changes: Changeset, stamp: Stamp, keys: VaultKeys) throws(CofferError) {
        let generation = max(snapshot.generation, highestGeneration) + 1
        let header = Self.stamped(changes.header ?? snapshot.header, removing: Self.removedSlots(snapshot.header, changes.header),
                                  stamp: stamp)
        // Nothing unchecked is carried into the new file: the records it keeps are checked
        // first (once per snapshot), those the transaction sealed are new.
        try snapshot.checkDigests()
        try write(header: header, generation: generation, records: snapshot.records(applying: changes), keys: keys) { engine, identity in
            changes.applyChecked(to: &engine.snapshot)
            engine.snapshot.header = header
            engine.snapshot.generation = generation
            engine.snapshot.identity = identity
            engine.highestGeneration = generation
        }
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
        next.header = Self.stamped(next.header, removing: Self.removedSlots(base, changes.header), stamp: stamp)
        let items = sealer(keys)
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
            case .put(let staged, _):
                let edited = try items.replay(staged, on: current, madeOn: baseVersion, stamp: stamp,
                                              resolvingConflicts: changes.resolved.contains(id))
                switch try Changeset.Change(edited) {
                case .tombstone(let tombstone): next.applyChecked(id, .tombstone(tombstone))
                // The unique key is checked (and indexed) as the item ends: fields another
                // writer changed meanwhile keep their values, the key's among them.
                case let put: try next.apply(id, put)
                }
            case .tombstone:
                if let tombstone = try items.delete(current, askedOn: baseVersion, stamp: stamp) {
                    next.applyChecked(id, .tombstone(tombstone))
                }
            }
        }
    }

    /// The header to save after a transaction on `base`: `header` with the transaction's
    /// stamp in the vault clock and the slots it removed remembered as removed (SPEC.md §17.4).
    private static func stamped(_ header: VaultHeader, removing removed: [[UInt8]], stamp: Stamp) -> VaultHeader {
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

    // MARK: Replicas

    /// Joins `other` (verified, same vault) with what this vault holds and saves the result,
    /// under the write lock. Returns what the merge changed.
    ///
    /// Every record of `other` is checked against its manifest digest first, those this
    /// vault holds too among them: a copy that fails any check is refused whole. A merge
    /// that changes nothing writes nothing: no new generation, and the backup (the one
    /// level of undo) stays as it was.
    @discardableResult
    mutating func saveMerged(with other: VaultSnapshot, keys: VaultKeys) throws(CofferError) -> MergeReport {
        var other = other
        try other.checkDigests()
        return try locked { (engine) throws(CofferError) -> MergeReport in
            // The file, when it changed since we read it, takes part too: as it is when it
            // holds all this vault holds, else joined with it (and then saved in any case).
            var base = engine.snapshot
            var mustSave = false
            if try engine.fileChanged() {
                let fresh = try engine.readVerified(keys: keys)
                if try ReplicaMerge.adds(engine.snapshot, to: fresh) {
                    base = try ReplicaMerge.merge(engine.snapshot, fresh, sealer: engine.sealer(keys)).snapshot
                    mustSave = true
                } else {
                    engine.adopt(fresh)
                    base = fresh
                }
            }
            let outcome = try ReplicaMerge.merge(base, other, sealer: engine.sealer(keys))
            if mustSave || outcome.changed { try engine.saveJoined(outcome.snapshot, keys: keys) }
            return outcome.report
        }
    }

    /// Re-reads the file if another process saved it since this vault last did; returns
    /// true when something was reloaded. A file that lacks something this vault holds is
    /// merged with it and the merge is saved.
    mutating func refresh(keys: VaultKeys) throws(CofferError) -> Bool {
        guard try fileChanged() else { return false }
        let fresh = try readVerified(keys: keys)
        if fresh.header.clock.dominates(snapshot.header.clock), fresh.generation >= snapshot.generation {
            adopt(fresh)
        } else {
            try saveMerged(with: fresh, keys: keys)
        }
        return true
    }

    /// Puts the backup in place of the file after checking it with `keys` (same vault, MACs
    /// and every record's digest), and takes it as the current version.
    ///
    /// A restore is an edit made on an older version (SPEC.md §17.7): the file now lacks
    /// this replica's latest edits, which other copies may hold, so the replica takes a
    /// fresh id; its next stamps then claim to have seen only what the backup holds.
    mutating func restoreBackup(keys: VaultKeys) throws(CofferError) {
        try locked { (engine) throws(CofferError) in
            var restored = try engine.readBackup(keys: keys)
            try restored.checkDigests()
            restored.identity = try storeCall { () throws(StoreError) in try engine.store.restoreBackup() }
            engine.adopt(restored)
            try engine.memory.takeFreshReplica(entropy: engine.entropy)
            engine.memory.adopt(restored.header.clock)
        }
    }

    /// Takes `opened`, the file as an unlock just read it, as the current version; a file
    /// that lacks this replica's latest edit (`lastStamp` or remembered) gets a fresh replica id.
    mutating func adoptUnlocked(_ opened: VaultSnapshot, lastStamp: UInt64) throws(CofferError) {
        adopt(opened)
        try memory.takeFreshReplica(ifBehind: opened.header.clock, lastStamp: lastStamp, entropy: entropy)
    }

    /// This version joined with the file another writer saved since we read it.
    private func joinedWithFile(keys: VaultKeys) throws(CofferError) -> VaultSnapshot {
        try ReplicaMerge.merge(snapshot, try readVerified(keys: keys), sealer: sealer(keys)).snapshot
    }

    /// Saves `joined`, this version joined with another (the file another writer saved, a
    /// replica merged in), and makes it this vault's version. It holds the other's records
    /// too, so every digest is checked before they are written again.
    private mutating func saveJoined(_ joined: VaultSnapshot, keys: VaultKeys) throws(CofferError) {
        var next = joined
        next.generation = max(next.generation, highestGeneration) + 1
        next.digestsChecked = false
        try next.checkDigests()
        try write(header: next.header, generation: next.generation, records: next.allRecords, keys: keys) { engine, identity in
            next.identity = identity
            engine.snapshot = next
            engine.highestGeneration = next.generation
        }
    }

    private func sealer(_ keys: VaultKeys) -> ItemSealer { ItemSealer(vaultID: snapshot.vaultID, keys: keys, entropy: entropy) }

    /// Runs `body` under the cross-process write lock.
    private mutating func locked<R>(_ body: (inout SaveEngine) throws(CofferError) -> R) throws(CofferError) -> R {
        let store = self.store
        return try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) -> R in try body(&self) }
    }

    // MARK: The file side: every store and format call of a save

    /// Writes a new vault's first version (no items; it fails if the file exists) and
    /// returns it as read back.
    static func createFile(_ store: VaultFileStore, header: VaultHeader, keys: VaultKeys,
                           lockTimeout: Duration) throws(CofferError) -> VaultSnapshot {
        let bytes = try formatCall { () throws(FormatError) in try VaultFile.encode(header: header, generation: 1, records: [], keys: keys) }
        // Under the write lock, so this never races another writer's temp-file cleanup.
        let identity = try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
            try storeCall { () throws(StoreError) in try store.create(bytes) }
        }
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: identity)
    }

    /// Whether the file is no longer the version this vault last read or wrote.
    private func fileChanged() throws(CofferError) -> Bool {
        try storeCall { () throws(StoreError) in try store.currentIdentity() } != snapshot.identity
    }

    /// Reads, parses and verifies the file with `keys`.
    func readVerified(keys: VaultKeys) throws(CofferError) -> VaultSnapshot {
        let file = try storeCall { () throws(StoreError) in try store.read() }
        return try replicaSnapshot(file.bytes, name: "the file at \(path) now", keys: keys, identity: file.identity)
    }

    /// Reads the file and decrypts and checks every record with `keys` (``Vault/verifyAll()``).
    func verifyAll(keys: VaultKeys) throws(CofferError) {
        let fresh = try readVerified(keys: keys)
        for record in fresh.allRecords.sorted(by: { $0.id < $1.id }) {
            try formatCall { () throws(FormatError) in
                let overview = try record.openOverviewList(vaultID: fresh.vaultID, keys: keys)
                _ = try EntryCodec.decodeOverview(overview)
                _ = try record.openSecrets(vaultID: fresh.vaultID, keys: keys)
                // The merge fields agree with the values (SPEC.md §17.3), as a merge would check.
                try ItemParts(overview: overview, secrets: record.openSecretList(vaultID: fresh.vaultID, keys: keys))
                    .checkConsistency(with: ItemClockCodec.decode(overview: overview))
            }
        }
    }

    /// Reads and verifies the backup (`<path>.bak`) with `keys`.
    func readBackup(keys: VaultKeys) throws(CofferError) -> VaultSnapshot {
        let backup = try storeCall { () throws(StoreError) in try store.readBackup() }
        return try replicaSnapshot(backup.bytes, name: "the backup \(path).bak", keys: keys)
    }

    /// Parses and verifies a replica of this vault with `keys`; overviews of records we
    /// hold already are not decrypted again.
    func replicaSnapshot(_ bytes: [UInt8], name: String, keys: VaultKeys, identity: FileIdentity? = nil) throws(CofferError) -> VaultSnapshot {
        let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
        guard codec.header.vaultID == snapshot.vaultID else {
            throw .differentVault("\(name) holds a different vault")
        }
        try formatCall { () throws(FormatError) in try codec.authenticate(keys: keys) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: identity ?? snapshot.identity, reusing: snapshot)
    }

    /// Encodes a new file and puts it in place of the old one, then hands `install` the new
    /// file's identity and remembers its clock as seen. A rolled-back file is not replaced
    /// (``Vault/acceptRollback()``). When the key slots change, no backup under the old ones
    /// is left (see `VaultFileStore.replace`): a `.bak` that still opened with a replaced
    /// password would unwrap the vault key, which decrypts everything saved later too.
    private mutating func write(header: VaultHeader, generation: UInt64, records: [EntryRecord], keys: VaultKeys,
                                install: (inout SaveEngine, FileIdentity) -> Void) throws(CofferError) {
        let bytes = try formatCall { () throws(FormatError) in
            try VaultFile.encodeInPieces(header: header, generation: generation, records: records, keys: keys)
        }
        if memory.stillRolledBack(header.clock), let warning = memory.rollback {
            throw .rolledBack("\(path): \(warning.description); nothing was saved (accept the rollback to save anyway)")
        }
        let identity: FileIdentity
        do throws(StoreError) {
            identity = try store.replace(with: bytes, keepBackup: options.keepsBackup, slotsChanged: header.slots != snapshot.header.slots)
        } catch {
            if case .system(.syncDirectory, _, _) = error {
                // The new file is in place (only its durability is unknown): remember it, so
                // the next save does not mistake our own write for another writer's.
                if let identity = try storeCall({ () throws(StoreError) in try store.currentIdentity() }) { install(&self, identity) }
            }
            throw CofferError(error)
        }
        install(&self, identity)
        memory.remember(header.clock)
    }
}

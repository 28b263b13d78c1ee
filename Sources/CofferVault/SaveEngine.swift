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
    /// (Set here and by the undo versions' restore, Vault+UndoVersions.swift.)
    var memory: ReplicaMemory
    /// The vault's clock (``Vault/wallClock``): when a kept undo version was replaced.
    var wallClock = WallClock.system
    /// The new-style slot that replaces the legacy slot this vault was opened with, put in
    /// by the next save (SPEC.md §11.1).
    var conversion: SlotConversion?
    /// The slot key of the converted slot once a save put it in: what a cached unlock holds now.
    private(set) var convertedSlotKey: SlotKey?
    /// The slot key that opened the vault, set by ``Vault`` while it runs the engine (never
    /// kept after): what opens a copy rekeyed after, or apart from, this vault (SPEC.md §17.8).
    var openingSlot: SlotKey?
    /// The keys of the epoch a save moved the vault to (a merge with a successor, SPEC.md
    /// §17.8), until ``Vault`` takes them: the snapshot is sealed under them from then on.
    private(set) var movedKeys: EpochKeys?

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

    /// The keys a save moved the vault to since the last call, if any (``movedKeys``).
    mutating func takeMovedKeys() -> EpochKeys? {
        defer { movedKeys = nil }
        return movedKeys
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
    mutating func commit(_ changes: Changeset, keys: EpochKeys, lastStamp: UInt64,
                         issueStamp: (VersionVector, UInt64) -> Stamp) throws(CofferError) {
        guard !changes.isEmpty else { return }
        try locked { (engine) throws(CofferError) in
            let fileChanged = try engine.fileChanged()
            guard fileChanged || changes.basedOn != engine.snapshot.identity else {
                try engine.save(changes, stamp: changes.stamp ?? issueStamp(engine.snapshot.header.clock, engine.memory.replica), keys: keys)
                return
            }
            var (next, nextKeys) = fileChanged ? try engine.joinedWithFile(keys: keys) : (engine.snapshot, keys)
            if fileChanged {
                try engine.memory.checkReplica(before: next.header.clock, lastStamp: lastStamp, entropy: engine.entropy)
            }
            // The file was rekeyed meanwhile (SPEC.md §17.8): the changes are sealed again under its key.
            let changes = nextKeys === keys ? changes : try changes.resealed(vaultID: next.vaultID, from: keys, to: nextKeys, entropy: engine.entropy)
            let seen = next.header.clock.merged(with: VersionVector(changes.stamp.map { [$0.replica: $0.time] } ?? [:]))
            try engine.replay(changes, onto: &next, stamp: issueStamp(seen, engine.memory.replica), keys: nextKeys)
            try engine.saveJoined(next, keys: nextKeys)
        }
    }

    /// Saves `changes`, made on ``snapshot`` which is the file, encoding the new file from
    /// both, and applies them to the snapshot once the file is saved.
    private mutating func save(_ changes: Changeset, stamp: Stamp, keys: EpochKeys) throws(CofferError) {
        let generation = try Self.generation(after: max(snapshot.generation, highestGeneration))
        let header = upgraded(Self.stamped(changes.header ?? snapshot.header, removing: Self.removedSlots(snapshot.header, changes.header),
                                           stamp: stamp), stamp: stamp)
        // Nothing unchecked is carried into the new file: the records it keeps are checked
        // (as they are written, when streamed from the file the snapshot reads; otherwise
        // first, once per snapshot), those the transaction sealed are new. Their overviews
        // are checked, not kept: a save reads none of them.
        if let streamed = try snapshot.streamedSave(applying: changes, header: header, generation: generation) {
            try write(streamed, header: header, generation: generation, holding: true) { engine, identity, held in
                // (Always held once written. Without it the snapshot would stay the old file,
                // and the next save would find the file changed and merge it: nothing lost.)
                guard let held else { return }
                engine.snapshot.adoptStreamed(streamed, held: held, changes: changes)
                engine.snapshot.header = header
                engine.snapshot.generation = generation
                engine.snapshot.identity = identity
                engine.highestGeneration = generation
            }
            return
        }
        try snapshot.checkDigests(keys: keys, keepingOverviews: false)
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
    private func replay(_ changes: Changeset, onto next: inout VaultSnapshot, stamp: Stamp, keys: EpochKeys) throws(CofferError) {
        next.header = try slotChanges(changes, onto: next.header, stamp: stamp)
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
                                              resolvingConflicts: changes.resolved.contains(id),
                                              clearingHistory: changes.historyCleared.contains(id))
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

    /// `header` (of the version a transaction's changes are saved on) with the transaction's
    /// key-slot changes made on it, stamped: the slots it removed are removed and listed as
    /// removed, those it added are added (SPEC.md §11.3, §17.4).
    private func slotChanges(_ changes: Changeset, onto header: VaultHeaderV2, stamp: Stamp) throws(CofferError) -> VaultHeaderV2 {
        let base = changes.baseHeader ?? snapshot.header
        var merged = header
        if let changed = changes.header, header.slots.map(\.identity) == base.slots.map(\.identity) {
            merged.slots = changed.slots   // no other writer changed the slots: the transaction's, in its order
        } else if let changed = changes.header {
            let before = Set(base.slots.map(\.identity))
            let removed = before.subtracting(changed.slots.map(\.identity))
            let existing = Set(merged.slots.map(\.identity))
            merged.slots.removeAll { removed.contains($0.identity) }
            // Only the slots the transaction added: a slot of its base that the new version
            // lacks was removed by the other writer (a changed password), and stays removed.
            merged.slots += changed.slots.filter { !before.contains($0.identity) && !existing.contains($0.identity) }
            guard !merged.slots.isEmpty, merged.slots.count <= FormatV1.maxSlots else {
                throw .conflict("key slots were changed by another writer meanwhile; the change cannot be made on the new version")
            }
        }
        return Self.stamped(merged, removing: Self.removedSlots(base, changes.header), stamp: stamp)
    }

    /// The header to save after a transaction on `base`: `header` with the transaction's
    /// stamp in the vault clock and the slots it removed remembered as removed (SPEC.md §17.4).
    private static func stamped(_ header: VaultHeaderV2, removing removed: [[UInt8]], stamp: Stamp) -> VaultHeaderV2 {
        var out = header
        var clock = out.clock
        clock.include(stamp)
        out.clock = clock
        if !removed.isEmpty {
            out.removedSlots = out.removedSlots + removed.map { RemovedKeySlot(identity: $0, time: stamp.time) }
        }
        return out
    }

    /// The identities of the slots of `base` that `changed` no longer has.
    private static func removedSlots(_ base: VaultHeaderV2, _ changed: VaultHeaderV2?) -> [[UInt8]] {
        guard let changed else { return [] }
        let kept = Set(changed.slots.map(\.identity))
        return base.slots.map(\.identity).filter { !kept.contains($0) }
    }

    // MARK: Replicas

    /// Joins `other` (verified, same vault) with what this vault holds and saves the result,
    /// under the write lock. Returns what the merge changed.
    ///
    /// Every record of `other` has its secret part authenticated first, those this vault
    /// holds too among them: a copy that fails any check is refused whole. A merge
    /// that changes nothing writes nothing: no new generation, and the backup (the one
    /// level of undo) stays as it was.
    ///
    /// `other` was read with `keys` (``replicaCopy(_:name:keys:identity:)``); a copy under
    /// another key epoch merges by SPEC.md §17.8, its held edits as `held` says. Call
    /// ``takeUpFile(keys:)`` first: a file rekeyed meanwhile is refused here as busy (the
    /// copy's epoch was judged against the vault as it was).
    @discardableResult
    mutating func saveMerged(with other: ReplicaCopy, keys: EpochKeys, held: HeldEdits = .hold) throws(CofferError) -> MergeReport {
        var other = other
        try other.snapshot.checkDigests(keys: other.keys)
        return try locked { (engine) throws(CofferError) -> MergeReport in
            // The file, when it changed since we read it, takes part too: as it is when it
            // holds all this vault holds, else joined with it (and then saved in any case).
            var base = engine.snapshot
            var mustSave = false
            if try engine.fileChanged() {
                let file = try storeCall { () throws(StoreError) in try engine.store.read() }
                let fresh = try engine.replicaCopy(file.bytes, name: "the file at \(engine.path) now", keys: keys, identity: file.identity)
                guard fresh.relation == .same else {
                    throw .conflict("\(engine.path) was rekeyed by another writer during the merge; merge again")
                }
                if try ReplicaMerge.adds(engine.snapshot, to: fresh.snapshot) {
                    base = try ReplicaMerge.merge(engine.snapshot, fresh.snapshot, sealer: engine.sealer(keys)).snapshot
                    mustSave = true
                } else {
                    engine.adopt(fresh.snapshot)
                    base = fresh.snapshot
                }
            }
            let joined = try engine.join(base, keys: keys, other, held: held)
            if mustSave || joined.outcome.changed { try engine.saveJoined(joined.outcome.snapshot, keys: joined.keys) }
            return joined.outcome.report
        }
    }

    /// Re-reads the file if another process saved it since this vault last did; returns
    /// true when something was reloaded. A file that lacks something this vault holds is
    /// merged with it and the merge is saved; a file rekeyed by another writer is taken up
    /// under its key when it still has the slot that opened this vault (SPEC.md §17.8).
    mutating func refresh(keys: EpochKeys) throws(CofferError) -> Bool {
        guard try fileChanged() else { return false }
        try locked { (engine) throws(CofferError) in _ = try engine.takeUpFile(keys: keys) }
        return true
    }

    /// Reads the file another writer saved and takes it up: as it is when it holds all this
    /// vault holds (same epoch or a successor), else joined with what this vault holds and
    /// saved. Returns the keys the vault is under afterwards. A file replaced by a copy under
    /// an earlier key with edits made after the rotation is refused (saving over it would
    /// lose them; `coffer merge` that copy instead).
    mutating func takeUpFile(keys: EpochKeys) throws(CofferError) -> EpochKeys {
        guard try fileChanged() else { return keys }
        let file = try storeCall { () throws(StoreError) in try store.read() }
        let fresh = try replicaCopy(file.bytes, name: "the file at \(path) now", keys: keys, identity: file.identity)
        if fresh.relation == .same || fresh.relation == .successor(moves: true),
           fresh.snapshot.header.clock.dominates(snapshot.header.clock), fresh.snapshot.generation >= snapshot.generation {
            adopt(fresh.snapshot)
            if fresh.relation != .same { movedKeys = fresh.keys }
            return fresh.keys
        }
        let joined = try join(snapshot, keys: keys, fresh, held: .refuse)
        try saveJoined(joined.outcome.snapshot, keys: joined.keys)
        return joined.keys
    }

    /// Puts the backup in place of the file after checking it with `keys` (same vault, MACs
    /// and every record's digest), and takes it as the current version.
    ///
    /// A restore is an edit made on an older version (SPEC.md §17.7): the file now lacks
    /// this replica's latest edits, which other copies may hold, so the replica takes a
    /// fresh id; its next stamps then claim to have seen only what the backup holds.
    mutating func restoreBackup(keys: EpochKeys) throws(CofferError) {
        try locked { (engine) throws(CofferError) in
            let replaced = engine.snapshot.generation
            // A backup another app saved after rekeying the file (SPEC.md §17.8) is read with
            // its key, through the slot that opened this vault; never an older epoch's backup.
            let backup = try storeCall { () throws(StoreError) in try engine.store.readBackup() }
            let copy = try engine.replicaCopy(backup.bytes, name: "the backup \(engine.path).bak", keys: keys)
            guard copy.relation == .same || copy.relation == .successor(moves: true) else {
                throw .otherKeyEpoch("the backup \(engine.path).bak is sealed under another vault key than the file")
            }
            let keys = copy.keys
            var restored = copy.snapshot
            try restored.checkDigests(keys: keys)
            // Key slots are never restored: a backup under other slots is written anew (SPEC.md §11.4).
            if try engine.restoreKeepingSlots(restored, keys: keys) { return }
            restored.identity = try storeCall { () throws(StoreError) in try engine.store.restoreBackup() }
            engine.adopt(restored)
            if copy.relation != .same { engine.movedKeys = keys }
            try engine.memory.takeFreshReplica(entropy: engine.entropy)
            engine.memory.adopt(restored.header.clock)
            engine.keepUndoVersion(replacedGeneration: replaced, slotsChanged: false)
        }
    }

    /// Takes `opened`, the file as an unlock just read it, as the current version; a file
    /// that lacks this replica's latest edit (`lastStamp` or remembered) gets a fresh replica id.
    mutating func adoptUnlocked(_ opened: VaultSnapshot, lastStamp: UInt64) throws(CofferError) {
        adopt(opened)
        try memory.takeFreshReplica(ifBehind: opened.header.clock, lastStamp: lastStamp, entropy: entropy)
    }

    /// This version joined with the file another writer saved since we read it, and the
    /// keys the join is sealed under (the file's, when it was rekeyed meanwhile, SPEC.md §17.8).
    private mutating func joinedWithFile(keys: EpochKeys) throws(CofferError) -> (VaultSnapshot, EpochKeys) {
        try snapshot.openAll()   // the join reads every overview
        let file = try storeCall { () throws(StoreError) in try store.read() }
        let fresh = try replicaCopy(file.bytes, name: "the file at \(path) now", keys: keys, identity: file.identity)
        let joined = try join(snapshot, keys: keys, fresh, held: .refuse)
        return (joined.outcome.snapshot, joined.keys)
    }

    /// Saves `joined`, this version joined with another (the file another writer saved, a
    /// replica merged in), and makes it this vault's version. It holds the other's records
    /// too, so every digest is checked before they are written again.
    /// A join under another epoch than the snapshot's (a successor's, SPEC.md §17.8) moves
    /// the vault to it: no backup under the old key is kept, and ``movedKeys`` is set.
    mutating func saveJoined(_ joined: VaultSnapshot, keys: EpochKeys) throws(CofferError) {
        var next = joined
        next.generation = try Self.generation(after: max(next.generation, highestGeneration))
        next.header = upgraded(next.header, stamp: Stamp(replica: memory.replica, time: max(1, next.header.clock.maxTime)))
        next.digestsChecked = false
        try next.checkDigests(keys: keys)
        let moves = !ConstantTime.equals(snapshot.header.epochID, keys.epochID)
        try write(header: next.header, generation: next.generation, records: next.allRecords, keys: keys, changesKey: moves) { engine, identity in
            next.identity = identity
            engine.snapshot = next
            engine.highestGeneration = next.generation
            if moves { engine.movedKeys = keys }
        }
    }

    // MARK: Format upgrade and key rotation

    /// Writes the file as format 2 with nothing else changed (SPEC.md §11.1): the version-1
    /// file becomes the backup. False when the file is format 2 already and no legacy slot
    /// waits for its conversion.
    mutating func upgrade(keys: EpochKeys, issueStamp: (VersionVector) -> Stamp) throws(CofferError) -> Bool {
        try locked { (engine) throws(CofferError) -> Bool in
            if try engine.fileChanged() { engine.adopt(try engine.readVerified(keys: keys)) }
            guard engine.snapshot.sourceVersion != FormatV2.version || engine.conversion != nil else { return false }
            let stamp = issueStamp(engine.snapshot.header.clock)
            let header = engine.upgraded(Self.stamped(engine.snapshot.header, removing: [], stamp: stamp), stamp: stamp)
            let generation = try Self.generation(after: max(engine.snapshot.generation, engine.highestGeneration))
            try engine.snapshot.checkDigests(keys: keys)
            try engine.write(header: header, generation: generation, records: engine.snapshot.allRecords, keys: keys,
                             keepBackup: true) { engine, identity in
                engine.snapshot.header = header
                engine.snapshot.generation = generation
                engine.snapshot.identity = identity
                engine.highestGeneration = generation
            }
            return true
        }
    }

    /// Rotates the vault to a new epoch key (SPEC.md §11.2) and saves it: every record
    /// sealed again, the old key in the key history, every format-2 slot given a stanza
    /// for the new key; legacy slots (after the one that opened the vault is converted)
    /// and slots of unknown types are removed, and returned. No backup under the old key is
    /// left. Returns the new keys and the removed slots.
    ///
    /// `slotChanges`, a transaction's key-slot changes (a password change, a removed slot),
    /// are made in the same save, before the rotation: the old epoch key never wraps the
    /// new slots, and a removed credential's holder reads nothing this save writes.
    ///
    /// As ``commit(_:keys:lastStamp:issueStamp:)`` does, the replica id is checked against the
    /// device first when another writer saved the file (`lastStamp`: the newest time this
    /// vault gave a stamp): a rotation stamped by an id whose latest edit the file lacks (a
    /// restore put an older version back) would claim that edit, and another app's refresh
    /// would then take the file as holding it (found by the replica simulation).
    mutating func rotate(keys: EpochKeys, slotChanges: Changeset? = nil, lastStamp: UInt64,
                         issueStamp: (VersionVector, UInt64) -> Stamp) throws(CofferError) -> (keys: EpochKeys, removed: [KeySlotV2]) {
        try locked { (engine) throws(CofferError) -> (keys: EpochKeys, removed: [KeySlotV2]) in
            // A file rekeyed meanwhile is joined under its key, and rotated from there.
            let fileChanged = try engine.fileChanged()
            var (base, keys) = fileChanged ? try engine.joinedWithFile(keys: keys) : (engine.snapshot, keys)
            if fileChanged {
                try engine.memory.checkReplica(before: base.header.clock, lastStamp: lastStamp, entropy: engine.entropy)
            }
            let seen = base.header.clock.merged(with: VersionVector(slotChanges?.stamp.map { [$0.replica: $0.time] } ?? [:]))
            let stamp = issueStamp(seen, engine.memory.replica)
            let changed = try slotChanges.map { (changes) throws(CofferError) in try engine.slotChanges(changes, onto: base.header, stamp: stamp) }
            let header = engine.upgraded(changed ?? Self.stamped(base.header, removing: [], stamp: stamp), stamp: stamp)
            let rekeyed = try formatCall { () throws(FormatError) in
                try EpochRotation.rekeyed(header: header, keys: keys, at: stamp, entropy: engine.entropy)
            }
            // Every record sealed again, in id order, a window of the file at a time: the
            // sealing checks each record as a save's check would (a damaged one fails it).
            let records = try base.resealedRecords(from: keys, to: rekeyed.keys, entropy: engine.entropy)
            let generation = try Self.generation(after: max(base.generation, engine.highestGeneration))
            try engine.write(header: rekeyed.header, generation: generation, records: records, keys: rekeyed.keys,
                             changesKey: true) { engine, identity in
                // The vault's old snapshot goes first, so that its entries are replaced in
                // place (one at a time) rather than copied beside the old ones.
                engine.snapshot.forgetAttributes()
                // The overviews are those of the records before: only their sealing changed.
                base.replaceRecords(records, keys: rekeyed.keys)
                base.header = rekeyed.header
                base.generation = generation
                base.identity = identity
                base.digestsChecked = true
                engine.snapshot = base
                engine.highestGeneration = generation
            }
            return (rekeyed.keys, rekeyed.removed)
        }
    }

    /// `header` as the next save writes it: a file read as format 1 gets its epoch start
    /// (the upgrading save's stamp), and the legacy slot that opened the vault its new-style
    /// replacement, the legacy one listed as removed (SPEC.md §11.1).
    private func upgraded(_ header: VaultHeaderV2, stamp: Stamp) -> VaultHeaderV2 {
        var out = header
        if snapshot.sourceVersion != FormatV2.version { out.epochStart = stamp }
        if let conversion, let index = out.slots.firstIndex(where: { $0.identity == conversion.legacy }),
           conversion.slot.stanza.count == 80, !out.slots.contains(where: { $0.identity == conversion.slot.identity }) {
            out.slots[index] = conversion.slot
            out.removedSlots = out.removedSlots + [RemovedKeySlot(identity: conversion.legacy, time: stamp.time)]
        }
        return out
    }

    /// The slots of `header` with the converted slot put back as the legacy one it replaced:
    /// a conversion changes no credential, so it keeps the backup (SPEC.md §11.1).
    func credentialSlots(_ header: VaultHeaderV2) -> [[UInt8]] {
        header.slots.map { slot in slot.identity == conversion?.slot.identity ? (conversion?.legacy ?? slot.identity) : slot.identity }
    }

    private func sealer(_ keys: EpochKeys) -> ItemSealer { ItemSealer(vaultID: snapshot.vaultID, keys: keys, entropy: entropy) }

    /// Runs `body` under the cross-process write lock.
    mutating func locked<R>(_ body: (inout SaveEngine) throws(CofferError) -> R) throws(CofferError) -> R {
        let store = self.store
        return try store.withExclusiveLock(timeout: options.lockTimeout) { () throws(CofferError) -> R in try body(&self) }
    }

    // MARK: The file side: every store and format call of a save

    /// Writes a new vault's first version (no items; it fails if the file exists) and
    /// returns it as read back.
    static func createFile(_ store: VaultFileStore, header: VaultHeaderV2, keys: EpochKeys,
                           lockTimeout: Duration) throws(CofferError) -> VaultSnapshot {
        let bytes = try formatCall { () throws(FormatError) in try VaultFileV2.encode(header: header, generation: 1, records: [], keys: keys).bytes }
        // Under the write lock, so this never races another writer's temp-file cleanup.
        let identity = try store.withExclusiveLock(timeout: lockTimeout) { () throws(CofferError) in
            try storeCall { () throws(StoreError) in try store.create(bytes) }
        }
        let codec = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: identity)
    }

    /// Whether the file is no longer the version this vault last read or wrote.
    func fileChanged() throws(CofferError) -> Bool {
        try storeCall { () throws(StoreError) in try store.currentIdentity() } != snapshot.identity
    }

    /// Reads, parses and verifies the file with `keys`.
    func readVerified(keys: EpochKeys) throws(CofferError) -> VaultSnapshot {
        let file = try storeCall { () throws(StoreError) in try store.read() }
        return try replicaSnapshot(file.bytes, name: "the file at \(path) now", keys: keys, identity: file.identity)
    }

    /// Reads the file and decrypts and checks every record with `keys` (``Vault/verifyAll()``).
    func verifyAll(keys: EpochKeys) throws(CofferError) {
        let fresh = try readVerified(keys: keys)
        for record in (fresh.allRecords + fresh.damaged.values).sorted(by: { $0.id < $1.id }) {
            if fresh.damaged[record.id] != nil { throw .tampered(.entry(record.id.hex)) }
            try formatCall { () throws(FormatError) in
                let overview = try record.openOverviewList(vaultID: fresh.vaultID, keys: keys)
                _ = try record.openSecretList(vaultID: fresh.vaultID, keys: keys, overview: overview)
            }
        }
    }

    /// Reads and verifies the backup (`<path>.bak`) with `keys`.
    func readBackup(keys: EpochKeys) throws(CofferError) -> VaultSnapshot {
        let backup = try storeCall { () throws(StoreError) in try store.readBackup() }
        return try replicaSnapshot(backup.bytes, name: "the backup \(path).bak", keys: keys)
    }

    /// Parses and verifies a replica of this vault with `keys`; overviews of records we
    /// hold already are not decrypted again.
    func replicaSnapshot(_ bytes: [UInt8], name: String, keys: EpochKeys, identity: FileIdentity? = nil) throws(CofferError) -> VaultSnapshot {
        let parsed = try formatCall { () throws(FormatError) in try VaultFileReader.Parsed(bytes) }
        guard parsed.vaultID == snapshot.vaultID else {
            throw .differentVault("\(name) holds a different vault")
        }
        if let why = try formatCall({ () throws(FormatError) in try otherEpoch(parsed, keys: keys) }) {
            throw .otherKeyEpoch("\(name) \(why)")
        }
        let codec = try formatCall { () throws(FormatError) in try parsed.authenticated(with: keys, entropy: entropy) }
        return try VaultSnapshot(codec: codec, keys: keys, identity: identity ?? snapshot.identity, reusing: snapshot)
    }

    /// Why `parsed` is sealed under another key epoch than `keys` (SPEC.md §17.8), or nil
    /// when it is under the same one. Merging across a rotation is not implemented yet, so
    /// such a copy is refused before anything of it is read; the reason names which side
    /// was rotated, from the public epoch ids (and, for a format-1 copy, the header MAC
    /// under each earlier key this vault still holds).
    private func otherEpoch(_ parsed: VaultFileReader.Parsed, keys: EpochKeys) throws(FormatError) -> String? {
        let ours = snapshot.header.keyHistory
        switch parsed {
        case .v2(let codec):
            return otherEpoch(codec.header, keys: keys)
        case .v1(let codec):
            // A format-1 copy's vault key is the first epoch key of the upgraded vault: under
            // the current key unless a rotation came after the upgrade.
            guard let ours else { return nil }
            for earlier in try ours.open(with: keys, vaultID: snapshot.vaultID) {
                let earlierKeys = try VaultKeys(vaultKey: earlier.keys.epochKey)
                do {
                    try codec.authenticate(keys: earlierKeys)
                } catch .tampered(.header) {
                    continue
                } catch {
                    // Its header authenticated under that key: a copy of that epoch, damaged after.
                }
                return "is a format-1 copy made before this vault's key was rotated (rekey)"
            }
            return nil
        }
    }

    /// The generation of the version saved after `current`. A file (or a copy merged into it)
    /// that already has the largest one, which only a writer holding the key can write, is a
    /// format limit rather than a wrap to 0 or a crash (found by the merge fuzz target).
    static func generation(after current: UInt64) throws(CofferError) -> UInt64 {
        guard current < .max else { throw CofferError(CofferError.Kind.formatLimit, detail: "generation \(current) is the largest there is; no later version can be saved") }
        return current + 1
    }

    /// Why a format-2 copy with `header` is sealed under another key epoch than `keys`, or nil.
    private func otherEpoch(_ header: VaultHeaderV2, keys: EpochKeys) -> String? {
        guard !ConstantTime.equals(header.epochID, keys.epochID) else { return nil }
        if snapshot.header.keyHistory?.epochs.contains(where: { $0.epochID == header.epochID }) == true {
            return "was sealed before this vault's key was rotated (rekey)"
        }
        if header.keyHistory?.epochs.contains(where: { $0.epochID == keys.epochID }) == true {
            return "was rekeyed after this vault last read it"
        }
        return "is sealed under a key this vault never held (both sides were rekeyed, or the copy is older than the key history)"
    }

    /// Reads another replica's file at `otherPath` for a merge, refusing it from its start
    /// when it can, so that a large, foreign or damaged copy costs little to refuse (a sync
    /// folder's conflict copy is hostile input). The first ``VaultFileV2/summaryPrefixLength``
    /// bytes are read (the whole file when it is no longer); for a longer format-2 file, the
    /// vault id (`differentVault`), the key epoch (`otherKeyEpoch`), the header MAC and then
    /// the manifest's MAC and the file's size against the records its rows declare are
    /// checked before the records are read; only then is the whole file read (no more than
    /// the size first seen, plus one byte to see that it grew), parsed and verified as
    /// ``replicaSnapshot(_:name:keys:identity:)`` does. `identity` is set to the file's as
    /// first seen, for a refusal to be remembered by.
    func readReplica(at otherPath: String, keys: EpochKeys, identity: inout FileIdentity?) throws(CofferError) -> ReplicaCopy {
        let store = VaultFileStore(path: otherPath)
        let start = try storeCall { () throws(StoreError) in try store.readPrefix(VaultFileV2.summaryPrefixLength) }
        identity = start.identity
        let size = Int(start.identity.size)
        guard start.bytes.count < size else { return try replicaCopy(start.bytes, name: otherPath, keys: keys) }
        if try formatCall({ () throws(FormatError) in try VaultFile.formatVersion(start.bytes) }) == FormatV2.version {
            let head = try formatCall { () throws(FormatError) in try VaultFileV2.Start(start.bytes) }
            guard head.header.vaultID == snapshot.vaultID else { throw .differentVault("\(otherPath) holds a different vault") }
            // The keys of the copy's epoch where its start alone gives them: ours, an earlier
            // one from our key history, or a later one through the slot that opened this vault.
            if let copyKeys = try startKeys(head.header, keys: keys) {
                try formatCall { () throws(FormatError) in try head.authenticateHeader(start.bytes, keys: copyKeys) }
                // The manifest MAC, over the start already read or, for a manifest beyond it, a
                // window at a time before the manifest is read whole (its length is not
                // authenticated by the header's MAC).
                let inStart = head.manifestMACEnd <= start.bytes.count
                try formatCall { () throws(FormatError) in
                    try head.authenticateManifest(fileSize: size, keys: copyKeys) { (body) throws(CofferError) in
                        if inStart {
                            start.bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<head.manifestMACEnd])) }
                        } else {
                            _ = try storeCall { () throws(StoreError) in try store.readWindows(head.manifestMACEnd, body) }
                        }
                    }
                }
                // The manifest's rows against the file's size (no MAC again: the copy is
                // authenticated whole when it is read).
                let manifest = inStart ? start.bytes
                    : try storeCall { () throws(StoreError) in try store.readPrefix(min(head.manifestMACEnd, size)) }.bytes
                try formatCall { () throws(FormatError) in try head.checkManifest(manifest, fileSize: size) }
            } else if !mayOpen(head.header, keys: keys), let why = otherEpoch(head.header, keys: keys) {
                // Under another key that neither our key history nor the slot that opened
                // this vault gives (SPEC.md §17.8): refused from its start.
                throw .otherKeyEpoch("\(otherPath) \(why)")
            }
        } else {
            // A format-1 copy: its vault id from the start; the rest as it always was.
            let summary = try formatCall { () throws(FormatError) in try VaultFile.parseSummary(start.bytes) }
            guard summary.header.vaultID == snapshot.vaultID else { throw .differentVault("\(otherPath) holds a different vault") }
        }
        let file = try storeCall { () throws(StoreError) in try store.readPrefix(size + 1) }
        return try replicaCopy(file.bytes, name: otherPath, keys: keys)
    }

    /// The keys a copy whose header is `header` is sealed under, when its header alone gives
    /// them (no KDF): `keys` for our epoch, an earlier epoch's from our key history, or a
    /// later one's through the slot that opened this vault. Nil otherwise; whether such a
    /// copy may be merged at all is ``replicaCopy(_:name:keys:identity:)``'s to decide.
    private func startKeys(_ header: VaultHeaderV2, keys: EpochKeys) throws(CofferError) -> EpochKeys? {
        if ConstantTime.equals(header.epochID, keys.epochID) { return keys }
        let ours = snapshot.header
        if ours.keyHistory?.epochs.contains(where: { $0.epochID == header.epochID }) == true {
            let earlier = try formatCall { () throws(FormatError) in try ours.keyHistory?.open(with: keys, vaultID: ours.vaultID) ?? [] }
            return earlier.first { $0.epoch.epochID == header.epochID }?.keys
        }
        guard let slot = openingSlot else { return nil }
        return try? formatCall { () throws(FormatError) in try VaultFileV2.unlock(header, identity: slot.slotIdentity, seeds: slot.seeds) }
    }

    /// Whether a copy with `header`, under another epoch than `keys`, may be opened for a
    /// merge (SPEC.md §17.8), from its public parts: its epoch is in our key history, or it
    /// has a slot with the identity of the one that opened this vault and its key history
    /// lists our epoch or one of our key history's.
    private func mayOpen(_ header: VaultHeaderV2, keys: EpochKeys) -> Bool {
        let ours = Set(snapshot.header.keyHistory?.epochs.map(\.epochID) ?? [])
        if ours.contains(header.epochID) { return true }
        guard let slot = openingSlot, header.slots.contains(where: { $0.identity == slot.slotIdentity }) else { return false }
        return header.keyHistory?.epochs.contains { $0.epochID == keys.epochID || ours.contains($0.epochID) } == true
    }

    /// Encodes a new file and puts it in place of the old one, then hands `install` the new
    /// file's identity and remembers its clock as seen. A rolled-back file is not replaced
    /// (``Vault/acceptRollback()``). When the key slots change, no backup under the old ones
    /// is left (see `VaultFileStore.replace`): a `.bak` that still opened with a replaced
    /// password would unwrap the vault key, which decrypts everything saved later too.
    /// `keepBackup` overrides the options' choice (an upgrade keeps the version-1 file, as
    /// does any first save of one);
    /// `changesKey` (a rotation) leaves no backup under the old key, as changed slots do.
    mutating func write(header: VaultHeaderV2, generation: UInt64, records: [RecordV2], keys: EpochKeys,
                                keepBackup: Bool? = nil, changesKey: Bool = false,
                                install: (inout SaveEngine, FileIdentity) -> Void) throws(CofferError) {
        let bytes = try formatCall { () throws(FormatError) in
            try VaultFileV2.encode(header: header, generation: generation, records: records, keys: keys)
        }
        try write(bytes, header: header, generation: generation, keepBackup: keepBackup, changesKey: changesKey, holding: false) {
            engine, identity, _ in install(&engine, identity)
        }
        // Written: its reference to every record (ciphertexts only) is let go on another thread.
        ParallelWork.release(inBackground: bytes)
    }

    /// Writes `contents`, the file of `header` and `generation`, in place of the vault file
    /// (``write(header:generation:records:keys:keepBackup:changesKey:install:)``); with
    /// `holding`, `install` is given the new file held open for reading (``HeldFile``).
    mutating func write(_ contents: some FileContents, header: VaultHeaderV2, generation: UInt64,
                        keepBackup: Bool? = nil, changesKey: Bool = false, holding: Bool,
                        install: (inout SaveEngine, FileIdentity, HeldFile?) -> Void) throws(CofferError) {
        if memory.stillRolledBack(header.clock), let warning = memory.rollback {
            throw .rolledBack("\(path): \(warning.description); nothing was saved (accept the rollback to save anyway)")
        }
        let identity: FileIdentity
        var held: HeldFile?
        let replacedGeneration = snapshot.generation
        // A rotation or a changed credential: no undo version under the old slots is kept either.
        let slotsChanged = changesKey || credentialSlots(header) != snapshot.header.slots.map(\.identity)
        do throws(StoreError) {
            // The first save of a format-1 file keeps it as the backup whatever the options
            // say: an older Coffer can still read it (SPEC.md §11.1).
            let backup = keepBackup ?? (snapshot.sourceVersion != FormatV2.version || options.keepsBackup)
            identity = try store.replace(with: contents, keepBackup: backup, slotsChanged: slotsChanged, holding: holding, held: &held)
        } catch {
            if case .system(.syncDirectory, _, _) = error {
                // The new file is in place (only its durability is unknown): remember it, so
                // the next save does not mistake our own write for another writer's.
                if let held {
                    install(&self, held.identity, held)
                } else if let identity = try storeCall({ () throws(StoreError) in try store.currentIdentity() }) {
                    install(&self, identity, nil)
                }
            }
            throw CofferError(error)
        }
        install(&self, identity, held)
        snapshot.sourceVersion = FormatV2.version
        if let conversion, header.slots.contains(where: { $0.identity == conversion.slot.identity }) {
            convertedSlotKey = conversion.slotKey
            self.conversion = nil
        }
        memory.remember(header.clock)
        keepUndoVersion(replacedGeneration: replacedGeneration, slotsChanged: slotsChanged)
    }
}

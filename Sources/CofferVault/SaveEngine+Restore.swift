import CofferCrypto
import CofferFormat

/// Restores never bring back a revoked credential (SPEC.md §11.4): a backup or an undo
/// version whose key slots are not the file's is restored as an edit of the current file.
extension SaveEngine {
    /// Restores `restored` (the backup or an undo version, read and verified with `keys`,
    /// so of the current epoch) when its key slots or removed slots differ from the file's:
    /// its records and vault clock under the file's header (slots, removed slots, key
    /// history and other extensions as they are now), written as a new version with the
    /// current one as the backup. Returns false, writing nothing, when the slots are the
    /// file's (or the file is a format-1 one, which has no other slots to keep): the caller
    /// puts the version back as it is. A format-1 version (the `.bak` of an upgrading save)
    /// is held as format-2 parts with its slots as legacy slots, so it is compared alike; one
    /// whose slots differ is refused (``CofferError/slotUnavailable``, nothing written): it
    /// has no vault clock to restore, and putting it back would bring back its slots.
    ///
    /// Putting the version back as it is would bring back its slots: a password changed
    /// since (without a rotation) would open the vault again, and the current one would not.
    mutating func restoreKeepingSlots(_ restored: VaultSnapshot, keys: EpochKeys) throws(CofferError) -> Bool {
        // The slots of the file as it is now: another writer (or app) may have changed them
        // since this vault read it.
        if try fileChanged() { adopt(try readVerified(keys: keys)) }
        guard snapshot.sourceVersion == FormatV2.version,
              Self.slotsDiffer(restored.header, snapshot.header, current: credentialSlots(snapshot.header)) else { return false }
        guard restored.sourceVersion == FormatV2.version else {
            throw .slotUnavailable("the backup is a format-1 file with other key slots than the vault; nothing was restored "
                                   + "(a restore never brings back a key slot)")
        }
        var header = snapshot.header
        header.clock = restored.header.clock
        let generation = try Self.generation(after: max(snapshot.generation, highestGeneration))
        // An edit made on an older version (SPEC.md §17.7): a fresh replica id, and the
        // restored clock taken as this device's, as a restore that puts the file back does.
        try memory.takeFreshReplica(entropy: entropy)
        memory.adopt(restored.header.clock)
        var next = restored
        try write(header: header, generation: generation, records: restored.allRecords, keys: keys,
                  keepBackup: true) { engine, identity in
            next.header = header
            next.generation = generation
            next.identity = identity
            engine.adopt(next)
        }
        return true
    }

    /// Whether a version with `header` has other key slots (by identity, in order) or other
    /// removed slots than the file's `ours`, whose slot identities are `current`.
    static func slotsDiffer(_ header: VaultHeaderV2, _ ours: VaultHeaderV2, current: [[UInt8]]) -> Bool {
        header.slots.map(\.identity) != current || Set(header.removedSlots) != Set(ours.removedSlots)
    }

    /// For a restore without keys (``Vault/restoreBackup(at:lockTimeout:)``): throws
    /// ``CofferError/slotUnavailable`` when the backup's epoch, key slots or removed slots
    /// are not the format-2 vault file's. A format-1 backup has no epoch id to compare: it
    /// passes only when its slots are the file's legacy slots, one for one, and the file has
    /// no earlier key and no removed slot (a rotation or a slot change since then refuses it).
    /// Reads both files' starts; nothing is authenticated, since without keys nothing can be:
    /// a file that passes still opens only with the keys that open the vault now, or not at all.
    static func checkBackupKeepsSlots(_ store: VaultFileStore) throws(CofferError) {
        guard let current = try? store.read() else { return }   // no vault file: no slots to keep
        let backup = try storeCall { () throws(StoreError) in try store.readBackup() }
        let ours = try formatCall { () throws(FormatError) in try VaultFileReader.Summary(current.bytes) }
        let theirs = try formatCall { () throws(FormatError) in try VaultFileReader.Summary(backup.bytes) }
        guard case .v2(let now, _, _) = ours else { return }   // a format-1 file has no other slots to keep
        let keepsSlots: Bool
        switch theirs {
        case .v2(let header, _, _):
            keepsSlots = header.epochID == now.epochID && !slotsDiffer(header, now, current: now.slots.map(\.identity))
        case .v1(let header, _, _):
            keepsSlots = !now.extensions.contains { $0.type == KeyHistory.extensionType } && now.removedSlots.isEmpty
                && header.slots.map(\.legacyIdentity) == now.slots.map(\.identity)
        }
        guard keepsSlots else {
            throw .slotUnavailable("the backup has other key slots or another key than the vault; nothing was restored "
                                   + "(restoring it on the open vault keeps the vault's slots)")
        }
    }
}

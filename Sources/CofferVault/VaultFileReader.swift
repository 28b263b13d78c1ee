import CofferCrypto
import CofferFormat
import CofferStore

/// A vault file read before any vault is open: its public facts (``Vault/info(at:scope:)``),
/// or its keys with a credential (opening and unlocking). What an open vault reads and
/// saves afterwards is the ``SaveEngine``'s. Errors of the store and the format take their
/// ``CofferError`` kinds here.
enum VaultFileReader {
    /// A file read and opened with a credential: header and manifest authenticated.
    struct Opened {
        let file: FileSnapshot
        let codec: VaultFile
        let keys: VaultKeys
        let slotKey: SlotKey
    }

    /// Reads the file and opens it with `credential` (header and manifest authenticated).
    ///
    /// The key slot is opened from the start of the file (header and manifest count)
    /// before the rest is read: the KDF's memory (64 MiB and more, freed when it returns)
    /// and the file's buffer are then never held at once, which keeps a large vault's peak
    /// memory down by the KDF's share. Should the file be replaced between the two reads
    /// with other key slots, the slot is opened again from the file as read.
    static func readAndUnlock(_ store: VaultFileStore, with credential: VaultCredential, kdfLimit: KDFLimit) throws(CofferError) -> Opened {
        let start = try storeCall { () throws(StoreError) in try store.readPrefix(VaultFile.summaryPrefixLength) }
        guard let header = try? VaultFile.parseSummary(start.bytes).header else {
            // A damaged start: the whole file is parsed, so that its error is the one
            // SPEC.md §10's order gives (the start alone may stop at a later check).
            let (file, codec) = try readParsed(store)
            return try unlock(file, codec, with: credential, kdfLimit: kdfLimit)
        }
        try kdfLimit.check(header.slots, kind: credential.slotKind)
        // A failure (a wrong password) is reported after the file's structure is checked:
        // SPEC.md §10 checks that first, whatever the key.
        let early = Result { () throws(FormatError) in try VaultFile.unlock(header, with: credential) }
        let (file, codec) = try readParsed(store)
        if codec.header != header {
            return try unlock(file, codec, with: credential, kdfLimit: kdfLimit)
        }
        let opened = try formatCall { () throws(FormatError) in
            let opened = try early.get()
            try codec.authenticate(keys: opened.keys)
            return opened
        }
        return Opened(file: file, codec: codec, keys: opened.keys, slotKey: opened.slotKey)
    }

    /// The file as read, opened with `credential` from its own header: its start did not
    /// parse alone, or it changed after the first read (the file was replaced in between).
    private static func unlock(_ file: FileSnapshot, _ codec: VaultFile, with credential: VaultCredential,
                               kdfLimit: KDFLimit) throws(CofferError) -> Opened {
        try kdfLimit.check(codec.header.slots, kind: credential.slotKind)
        let opened = try formatCall { () throws(FormatError) in
            let opened = try codec.unlock(with: credential)
            try codec.authenticate(keys: opened.keys)
            return opened
        }
        return Opened(file: file, codec: codec, keys: opened.keys, slotKey: opened.slotKey)
    }

    /// ``Vault/info(at:scope:)-(String,_)``: from the start of the file, or with
    /// ``VaultInfo/Scope/wholeFile`` from the whole file with SPEC.md §10 steps 1–9, exactly
    /// the checks an open runs before it needs a key, so whatever this refuses, an open
    /// refuses the same way.
    static func info(at path: String, scope: VaultInfo.Scope) throws(CofferError) -> VaultInfo {
        let store = VaultFileStore(path: path)
        guard scope == .header else {
            let (file, codec) = try readParsed(store)
            return VaultInfo(formatVersion: Int(FormatV1.version), vaultID: ItemID(validated: codec.header.vaultID).hex,
                             generation: codec.manifest.generation,
                             slots: codec.header.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) },
                             entryCount: codec.manifest.entryCount, fileSize: file.bytes.count)
        }
        let file = try storeCall { () throws(StoreError) in try store.readPrefix(VaultFile.summaryPrefixLength) }
        let summary = try formatCall { () throws(FormatError) in try VaultFile.parseSummary(file.bytes) }
        return VaultInfo(formatVersion: Int(FormatV1.version), vaultID: ItemID(validated: summary.header.vaultID).hex,
                         generation: summary.generation,
                         slots: summary.header.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) },
                         entryCount: summary.entryCount, fileSize: Int(file.identity.size))
    }

    /// The whole file, read and parsed (nothing authenticated yet).
    private static func readParsed(_ store: VaultFileStore) throws(CofferError) -> (FileSnapshot, VaultFile) {
        let file = try storeCall { () throws(StoreError) in try store.read() }
        return (file, try formatCall { () throws(FormatError) in try VaultFile.parse(file.bytes) })
    }
}

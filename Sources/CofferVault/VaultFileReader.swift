import CofferCrypto
import CofferFormat
import CofferStore

/// A vault file read before any vault is open: its public facts (``Vault/info(at:scope:)``),
/// or its keys with a credential (opening and unlocking). Format 1 and format 2 are read
/// (SPEC.md, Appendix A); a format-1 file is held as format-2 parts under the same key
/// (``VaultFileV2/converting(_:keys:entropy:)``), so everything above reads one version, and
/// the next save writes format 2 (SPEC.md §11.1). What an open vault reads and saves
/// afterwards is the ``SaveEngine``'s. Errors of the store and the format take their
/// ``CofferError`` kinds here.
enum VaultFileReader {
    /// A file read and opened with a credential: header and manifest authenticated.
    struct Opened {
        /// The file that was read (``FileSnapshot/identity`` of its descriptor).
        let identity: FileIdentity
        /// The file held open, its records read from it when they are used (a format-2 file is
        /// read in windows, ``read(_:)``); nil when the file was read whole.
        let held: HeldFile?
        let codec: VaultFileV2
        let keys: EpochKeys
        let slotKey: SlotKey
        /// The new-style slot that replaces the legacy slot that opened the file, when one
        /// did (SPEC.md §11.1): the next save puts it in.
        let conversion: SlotConversion?
    }

    /// Reads the file and opens it with `credential` (header and manifest authenticated).
    ///
    /// The key slot is opened from the start of the file (header and manifest count)
    /// before the rest is read: the KDF's memory (64 MiB and more, freed when it returns)
    /// and the file's buffer are then never held at once, which keeps a large vault's peak
    /// memory down by the KDF's share. Should the file be replaced between the two reads
    /// with other key slots, the slot is opened again from the file as read.
    static func readAndUnlock(_ store: VaultFileStore, with credential: VaultCredential, kdfLimit: KDFLimit,
                              entropy: EntropySource) throws(CofferError) -> Opened {
        let held = try storeCall { () throws(StoreError) in try store.openHeld() }
        let start = try storeCall { () throws(StoreError) in try held.read(at: 0, count: min(VaultFileV2.summaryPrefixLength, held.size)) }
        guard let header = try? Summary(start) else {
            // A damaged start: the file is parsed, so that its error is the one SPEC.md
            // §10's order gives (the start alone may stop at a later check).
            let file = try read(held, start: start)
            return try unlock(file, with: credential, kdfLimit: kdfLimit, entropy: entropy)
        }
        try kdfLimit.check(header.kdfs(kind: credential.slotKind))
        // A failure (a wrong password) is reported after the file's structure is checked:
        // SPEC.md §10 checks that first, whatever the key.
        let early = Result { () throws(FormatError) in try header.unlock(with: credential) }
        // The manifest MAC under the keys the slot gave is computed while the rows are parsed.
        var macKeys: EpochKeys?
        if case .success(.v2(let keys, _)) = early { macKeys = keys }
        let file = try read(held, start: start, macKeys: macKeys)
        guard file.parsed.sameHeader(as: header) else {
            return try unlock(file, with: credential, kdfLimit: kdfLimit, entropy: entropy)
        }
        return try open(file, early: try formatCall { () throws(FormatError) in try early.get() }, credential: credential,
                        entropy: entropy)
    }

    /// The file as read, opened with `credential` from its own header: its start did not
    /// parse alone, or it changed after the first read (the file was replaced in between).
    private static func unlock(_ file: Read, with credential: VaultCredential,
                               kdfLimit: KDFLimit, entropy: EntropySource) throws(CofferError) -> Opened {
        let header = file.parsed.summary
        try kdfLimit.check(header.kdfs(kind: credential.slotKind))
        let unlocked = try formatCall { () throws(FormatError) in try header.unlock(with: credential) }
        return try open(file, early: unlocked, credential: credential, entropy: entropy)
    }

    /// Authenticates the parsed file with the keys a slot gave, and converts a format-1 file.
    private static func open(_ file: Read, early: Unlocked, credential: VaultCredential?,
                             entropy: EntropySource) throws(CofferError) -> Opened {
        try formatCall { () throws(FormatError) in
            switch (file.parsed, early) {
            case (.v1(let codec), .v1(let keys, let slotKey)):
                try codec.authenticate(keys: keys)
                let converted = try VaultFileV2.converting(codec, keys: keys, entropy: entropy)
                let epoch = try EpochKeys(epochKey: keys.vaultKey)
                return Opened(identity: file.identity, held: nil, codec: converted, keys: epoch, slotKey: slotKey,
                              conversion: try SlotConversion(converted.header, opened: slotKey, credential: credential, keys: epoch, entropy: entropy))
            case (.v2(let codec), .v2(let keys, let slotKey)):
                try codec.authenticate(keys: keys)
                return Opened(identity: file.identity, held: file.held, codec: codec, keys: keys, slotKey: slotKey,
                              conversion: try SlotConversion(codec.header, opened: slotKey, credential: credential, keys: keys, entropy: entropy))
            default:
                throw .tampered(.header)
            }
        }
    }

    /// What a slot gave: format 1's vault keys and KEK, or format 2's epoch keys and seeds.
    enum Unlocked {
        case v1(VaultKeys, SlotKey)
        case v2(EpochKeys, SlotKey)
    }

    /// The header and manifest count from the start of a file, of either version.
    enum Summary {
        case v1(VaultHeader, generation: UInt64, entryCount: Int)
        case v2(VaultHeaderV2, generation: UInt64, entryCount: Int)

        init(_ prefix: [UInt8]) throws(FormatError) {
            if try VaultFile.formatVersion(prefix) == FormatV2.version {
                let s = try VaultFileV2.parseSummary(prefix)
                self = .v2(s.header, generation: s.generation, entryCount: s.entryCount)
            } else {
                let s = try VaultFile.parseSummary(prefix)
                self = .v1(s.header, generation: s.generation, entryCount: s.entryCount)
            }
        }

        func kdfs(kind: KeySlotKind?) -> [Argon2idParameters] {
            switch self {
            case .v1(let header, _, _): return header.slots.filter { kind == nil || $0.kind == kind }.compactMap(\.kdf)
            case .v2(let header, _, _): return header.slots.filter { kind == nil || $0.kind == kind }.compactMap(\.kdf)
            }
        }

        func unlock(with credential: VaultCredential) throws(FormatError) -> Unlocked {
            switch self {
            case .v1(let header, _, _):
                let opened = try VaultFile.unlock(header, with: credential)
                return .v1(opened.keys, opened.slotKey)
            case .v2(let header, _, _):
                let opened = try VaultFileV2.unlock(header, with: credential)
                return .v2(opened.keys, SlotKey(slotIdentity: opened.slot.identity, seeds: opened.slot.seeds))
            }
        }

        var info: (version: Int, vaultID: [UInt8], generation: UInt64, slots: [VaultInfo.KeySlotInfo], entryCount: Int) {
            switch self {
            case .v1(let h, let g, let n):
                return (1, h.vaultID, g, h.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) }, n)
            case .v2(let h, let g, let n):
                return (2, h.vaultID, g, h.slots.map { VaultInfo.KeySlotInfo(kind: $0.kind, kdf: $0.kdf) }, n)
            }
        }
    }

    /// A whole file parsed (nothing authenticated yet), of either version.
    enum Parsed {
        case v1(VaultFile)
        case v2(VaultFileV2)

        init(_ bytes: [UInt8]) throws(FormatError) {
            if try VaultFile.formatVersion(bytes) == FormatV2.version { self = .v2(try VaultFileV2.parse(bytes)) } else { self = .v1(try VaultFile.parse(bytes)) }
        }

        var summary: Summary {
            switch self {
            case .v1(let c): return .v1(c.header, generation: c.manifest.generation, entryCount: c.manifest.entryCount)
            case .v2(let c): return .v2(c.header, generation: c.generation, entryCount: c.records.count)
            }
        }

        func sameHeader(as summary: Summary) -> Bool {
            switch (self, summary) {
            case (.v1(let c), .v1(let h, _, _)): return c.header == h
            case (.v2(let c), .v2(let h, _, _)): return c.header == h
            default: return false
            }
        }

        var vaultID: [UInt8] {
            switch self {
            case .v1(let c): return c.header.vaultID
            case .v2(let c): return c.header.vaultID
            }
        }

        /// Opened with a cached unlock's slot key (SPEC.md §13.1) and authenticated; nil when
        /// no slot of the header has its identity, or it does not open with it. No KDF runs.
        func unlock(with slotKey: SlotKey, entropy: EntropySource) throws(FormatError) -> (codec: VaultFileV2, keys: EpochKeys, conversion: SlotConversion?)? {
            switch self {
            case .v1(let codec):
                guard slotKey.type <= 4, let keys = try codec.unlockAndAuthenticate(with: slotKey) else { return nil }
                let converted = try VaultFileV2.converting(codec, keys: keys, entropy: entropy)
                let epoch = try EpochKeys(epochKey: keys.vaultKey)
                return (converted, epoch, try SlotConversion(converted.header, opened: slotKey, credential: nil, keys: epoch, entropy: entropy))
            case .v2(let codec):
                guard let keys = try codec.unlock(identity: slotKey.slotIdentity, seeds: slotKey.seeds) else { return nil }
                try codec.authenticate(keys: keys)
                return (codec, keys, try SlotConversion(codec.header, opened: slotKey, credential: nil, keys: keys, entropy: entropy))
            }
        }

        /// Authenticated with `keys` (a format-1 file: the epoch key is its vault key, and it
        /// is converted); a file under another epoch is refused (SPEC.md §17.8).
        func authenticated(with keys: EpochKeys, entropy: EntropySource) throws(FormatError) -> VaultFileV2 {
            switch self {
            case .v1(let codec):
                let v1Keys = try VaultKeys(vaultKey: keys.epochKey)
                try codec.authenticate(keys: v1Keys)
                return try VaultFileV2.converting(codec, keys: v1Keys, entropy: entropy)
            case .v2(let codec):
                guard ConstantTime.equals(codec.header.epochID, keys.epochID) else {
                    throw .invalidKey("the copy is sealed under another key epoch (a rotation on one side); merging across rotations is not supported yet")
                }
                try codec.authenticate(keys: keys)
                return codec
            }
        }
    }

    /// ``Vault/info(at:scope:)-(String,_)``: from the start of the file, or with
    /// ``VaultInfo/Scope/wholeFile`` from the whole file with SPEC.md §10 steps 1–9, exactly
    /// the checks an open runs before it needs a key, so whatever this refuses, an open
    /// refuses the same way.
    static func info(at path: String, scope: VaultInfo.Scope) throws(CofferError) -> VaultInfo {
        let store = VaultFileStore(path: path)
        let summary: Summary
        let size: Int
        if scope == .header {
            let file = try storeCall { () throws(StoreError) in try store.readPrefix(VaultFileV2.summaryPrefixLength) }
            summary = try formatCall { () throws(FormatError) in try Summary(file.bytes) }
            size = Int(file.identity.size)
        } else {
            let file = try readParsed(store)
            summary = file.parsed.summary
            size = file.size
        }
        let info = summary.info
        return VaultInfo(formatVersion: info.version, vaultID: ItemID(validated: info.vaultID).hex, generation: info.generation,
                         slots: info.slots, entryCount: info.entryCount, fileSize: size)
    }

    /// The vault id in the header at the start of the file at `store` (nothing authenticated,
    /// no more than ``VaultFileV2/summaryPrefixLength`` bytes read); nil when the start cannot
    /// be read or does not parse alone (a whole read then gives the file's error).
    static func vaultID(atStartOf store: VaultFileStore) -> [UInt8]? {
        guard let file = try? store.readPrefix(VaultFileV2.summaryPrefixLength) else { return nil }
        return (try? Summary(file.bytes))?.info.vaultID
    }

    /// A file read and parsed (nothing authenticated yet): a format-2 file up to its manifest
    /// MAC, its records left in the file it holds open (read in windows when they are used:
    /// no buffer of the whole file); a format-1 file whole.
    struct Read {
        let identity: FileIdentity
        let size: Int
        let parsed: Parsed
        /// The file, held open while its records are not read; nil when it was read whole.
        let held: HeldFile?
    }

    /// The file at `store`, read and parsed (SPEC.md §10 steps 1–9; nothing authenticated yet).
    static func readParsed(_ store: VaultFileStore) throws(CofferError) -> Read {
        let held = try storeCall { () throws(StoreError) in try store.openHeld() }
        let start = try storeCall { () throws(StoreError) in try held.read(at: 0, count: min(VaultFileV2.summaryPrefixLength, held.size)) }
        return try read(held, start: start)
    }

    /// ``readParsed(_:)`` for a file already open, its first bytes read (`start`); with
    /// `macKeys`, a format-2 manifest's MAC under them is computed while its rows are parsed
    /// (``VaultFileV2/parse(head:fileSize:macKeys:)``).
    private static func read(_ held: HeldFile, start: [UInt8], macKeys: EpochKeys? = nil) throws(CofferError) -> Read {
        let size = held.size
        func whole() throws(CofferError) -> Read {
            let bytes = start.count == size ? start : try storeCall { () throws(StoreError) in try held.read(at: 0, count: size) }
            return Read(identity: held.identity, size: size, parsed: try formatCall { () throws(FormatError) in try Parsed(bytes) }, held: nil)
        }
        // Only a format-2 file whose start parses is read in windows; anything else is read
        // whole, so that its error is the one ``Parsed`` gives for the whole file.
        guard (try? VaultFile.formatVersion(start)) == FormatV2.version, let head = try? VaultFileV2.Start(start) else { return try whole() }
        let headBytes = head.manifestMACEnd <= start.count ? start
            : try storeCall { () throws(StoreError) in try held.read(at: 0, count: min(head.manifestMACEnd, size)) }
        let codec = try formatCall { () throws(FormatError) in try VaultFileV2.parse(head: headBytes, fileSize: size, macKeys: macKeys) }
        return Read(identity: held.identity, size: size, parsed: .v2(codec), held: held)
    }
}

/// The new-style slot that replaces the legacy slot that opened a vault (SPEC.md §11.1),
/// made when it opened (that is when the credential is at hand), put in by the next save.
struct SlotConversion: Sendable {
    /// The legacy slot's identity.
    let legacy: [UInt8]
    let slot: KeySlotV2
    /// What a cached unlock of the new slot holds.
    let slotKey: SlotKey

    /// Nil unless the slot that opened `header` is a legacy one that can be converted with
    /// what opened it (its KEK for types 1 and 3, the credential for 2 and 4).
    init?(_ header: VaultHeaderV2, opened: SlotKey, credential: VaultCredential?, keys: EpochKeys,
          entropy: EntropySource) throws(FormatError) {
        guard let legacy = header.slots.first(where: { $0.identity == opened.slotIdentity }), legacy.isLegacy,
              let made = try KeySlotV2.converting(legacy, kek: opened.type <= 4 ? opened.kek : nil, credential: credential,
                                                  vaultID: header.vaultID, epoch: keys, entropy: entropy) else { return nil }
        self.legacy = legacy.identity
        slot = made.slot
        slotKey = SlotKey(slotIdentity: made.slot.identity, seeds: made.seeds)
    }
}

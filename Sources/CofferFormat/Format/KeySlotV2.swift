import CofferCrypto

/// A key slot of a format-2 header (SPEC.md §4): a stable **public part** and a
/// **stanza** that wraps the current epoch key for it.
///
/// New-style slots (types 0x11–0x14) keep an X25519 public key derived from their
/// credential, so a rotation writes a stanza for every slot from its public part alone:
/// nobody's credential is needed, and a revoked credential learns nothing of the new key.
/// Recipient slots (types 0x15, 0x16) keep an age X25519 or SSH Ed25519 public key, a
/// label and the time they were added; their stanza is age's (``AgeStanza``), so a
/// rotation rewraps them the same way (SPEC.md §4.11).
/// Legacy slots (types 1–4, format 1's symmetric wraps) may appear as an upgrade carried
/// them over; their public part is format 1's whole body and their stanza is empty.
/// Any other type is kept byte for byte and never tried.
package struct KeySlotV2: Sendable, Equatable {
    package let type: UInt8
    package let publicPart: [UInt8]
    package let stanza: [UInt8]
    /// The credential that opens it; ``KeySlotKind/unknown(_:)`` for a type this version
    /// does not know.
    package let kind: KeySlotKind
    /// Argon2id parameters (password and key-file slots, legacy ones included).
    package let kdf: Argon2idParameters?
    /// The first 16 bytes of BLAKE2b-256(type ‖ public part): what names the slot across
    /// rotations and replicas (SPEC.md §4.1, §17.4).
    package let identity: [UInt8]

    // Type codes (SPEC.md §4).
    package static let passwordType: UInt8 = 0x11
    package static let passwordAndKeyFileType: UInt8 = 0x12
    package static let keyFileType: UInt8 = 0x13
    package static let rawKeyType: UInt8 = 0x14
    /// Recipient slots (SPEC.md §4.11): an age X25519 recipient, an ssh-ed25519 key.
    package static let ageRecipientType: UInt8 = 0x15
    package static let sshRecipientType: UInt8 = 0x16

    static let kdfLength = 13
    static let stanzaLength = FormatV2.pointLength + FormatV1.wrappedKeyLength   // 80
    /// Public part lengths of the new-style types.
    static func publicLength(_ type: UInt8) -> Int? {
        switch type {
        case passwordType, keyFileType: return kdfLength + FormatV1.saltLength + FormatV2.pointLength           // 61
        case passwordAndKeyFileType: return kdfLength + 2 * (FormatV1.saltLength + FormatV2.pointLength)         // 109
        case rawKeyType: return FormatV1.saltLength + FormatV2.pointLength                                      // 48
        default: return nil
        }
    }

    /// The credential kind of a type code of format 2 (legacy types included).
    static func kind(ofType type: UInt8) -> KeySlotKind {
        switch type {
        case 1, passwordType: return .password
        case 2, passwordAndKeyFileType: return .passwordAndKeyFile
        case 3, keyFileType: return .keyFile
        case 4, rawKeyType: return .rawKey
        case ageRecipientType: return .ageRecipient
        case sshRecipientType: return .sshRecipient
        default: return .unknown(type)
        }
    }

    /// The new-style type code for a credential kind.
    static func type(for kind: KeySlotKind) -> UInt8? {
        switch kind {
        case .password: return passwordType
        case .passwordAndKeyFile: return passwordAndKeyFileType
        case .keyFile: return keyFileType
        case .rawKey: return rawKeyType
        case .ageRecipient, .sshRecipient, .unknown: return nil
        }
    }

    /// True for format 1's slot types carried in a format-2 header.
    package var isLegacy: Bool { type >= 1 && type <= 4 }
    /// True for the types 0x11–0x16 this version writes (every slot a rotation rewraps).
    package var isNewStyle: Bool { Self.publicLength(type) != nil || isRecipient }
    /// True for recipient slots, 0x15 and 0x16.
    package var isRecipient: Bool { type == Self.ageRecipientType || type == Self.sshRecipientType }

    /// Parses and validates one slot; `index` names it in errors. Argon2id parameters are
    /// checked against SPEC.md §9 here, before any KDF runs.
    package init(type: UInt8, publicPart: [UInt8], stanza: [UInt8], index: Int) throws(FormatError) {
        let name = "key slot \(index)"
        self.type = type
        self.publicPart = publicPart
        self.stanza = stanza
        kind = Self.kind(ofType: type)
        identity = Self.identity(type: type, publicPart: publicPart)
        if type >= 1 && type <= 4 {
            guard stanza.isEmpty else { throw .malformed("\(name): a legacy slot has no stanza") }
            kdf = try KeySlotRecord(type: type, body: publicPart, index: index).kdf
            return
        }
        if type == Self.ageRecipientType || type == Self.sshRecipientType {
            kdf = nil
            _ = try RecipientSlot(type: type, publicPart: publicPart, stanza: stanza, name: name)
            return
        }
        guard let length = Self.publicLength(type) else { kdf = nil; return }
        guard publicPart.count == length, stanza.count == Self.stanzaLength else {
            throw .malformed("\(name): type 0x\(String(type, radix: 16)) slot of \(publicPart.count) + \(stanza.count) bytes, expected \(length) + \(Self.stanzaLength)")
        }
        if type == Self.rawKeyType { kdf = nil; return }
        let parsed: (Argon2idParameters, UInt8) = try publicPart.withBytes { (raw) throws(FormatError) in
            var reader = ByteReader(raw)
            let kdfID = try reader.u8(name)
            let m = try reader.u32(name), t = try reader.u32(name), p = try reader.u32(name)
            return (Argon2idParameters(memoryKiB: m, iterations: t, lanes: p), kdfID)
        }
        guard parsed.1 == KeySlotRecord.argon2idV13 else { throw .malformed("\(name): unknown KDF \(parsed.1)") }
        do { try parsed.0.checkBounds(name) } catch { throw FormatError(reading: error) }
        kdf = parsed.0
    }

    static func identity(type: UInt8, publicPart: [UInt8]) -> [UInt8] {
        ((try? BLAKE2b.hash([type] + publicPart)) ?? []).prefix(16).map { $0 }
    }

    // MARK: The public part's fields

    /// Each factor's salt and public key, in order (one, or two for a password and key file).
    private var factors: [(salt: [UInt8], publicKey: [UInt8])] {
        guard isNewStyle else { return [] }
        let start = type == Self.rawKeyType ? 0 : Self.kdfLength
        let count = type == Self.passwordAndKeyFileType ? 2 : 1
        return (0..<count).map { i in
            let at = start + i * (FormatV1.saltLength + FormatV2.pointLength)
            return (Array(publicPart[at..<(at + 16)]), Array(publicPart[(at + 16)..<(at + 48)]))
        }
    }

    // MARK: Seeds (SPEC.md §4.8)

    /// What a credential gives for one slot before any key: the Argon2id output (or keyed
    /// BLAKE2b) per factor, and for a legacy slot its key-encryption key. A cached unlock
    /// keeps these (SPEC.md §13.1).
    package struct Seeds: Sendable {
        package let type: UInt8
        package let seeds: [SecureBytes]

        package init(type: UInt8, seeds: [SecureBytes]) {
            self.type = type
            self.seeds = seeds
        }
    }

    /// The seeds `credential` gives for this slot, or nil when it is not of this slot's kind.
    /// Runs the slot's KDF (the one costly step of an unlock).
    package func seeds(for credential: VaultCredential) throws(FormatError) -> Seeds? {
        guard credential.slotKind == kind else { return nil }
        if isRecipient {
            // The identity's key for this slot's recipient, if it holds one: no KDF.
            guard case .identity(let identity) = credential, let slot = recipientSlot,
                  let key = identity.key(for: slot.recipient) else { return nil }
            return Seeds(type: type, seeds: [key.scalar])
        }
        if isLegacy {
            let legacy = try KeySlotRecord(type: type, body: publicPart, index: 0)
            return Seeds(type: type, seeds: [try KeySlotRecord.keyEncryptionKey(for: credential, kdf: kdf, salt: legacy.salt)])
        }
        let salts = factors.map(\.salt)
        guard !salts.isEmpty else { return nil }
        return Seeds(type: type, seeds: try Self.derive(credential, kdf: kdf, salts: salts))
    }

    /// SPEC.md §4.8: per factor, Argon2id of the password (or key-file material), or the
    /// key file's or raw key's keyed BLAKE2b with the factor's salt.
    static func derive(_ credential: VaultCredential, kdf: Argon2idParameters?, salts: [[UInt8]]) throws(FormatError) -> [SecureBytes] {
        func argon(_ password: SecureBytes, _ salt: [UInt8]) throws(FormatError) -> SecureBytes {
            guard let kdf else { throw .malformed("a password slot without KDF parameters") }
            return try crypto { () throws(CofferError) in try Argon2id.derive(password: password, salt: salt, parameters: kdf) }
        }
        func keyed(_ key: SecureBytes, _ context: String, _ salt: [UInt8]) throws(FormatError) -> SecureBytes {
            try crypto { () throws(CofferError) in try SubkeyDerivation.derive(from: key, context: context, input: salt) }
        }
        switch credential {
        case .password(let password):
            return [try argon(password, salts[0])]
        case .keyFile(let file):
            return [try argon(file.material, salts[0])]
        case .passwordAndKeyFile(let password, let file):
            guard salts.count == 2 else { throw .malformed("a password and key-file slot has two factors") }
            return [try argon(password, salts[0]), try keyed(file.material, FormatV2.keyFileFactorContext, salts[1])]
        case .rawKey(let raw):
            guard raw.count == FormatV1.keyLength else { throw .invalidKey("a raw key must be 32 bytes") }
            return [try keyed(raw, FormatV2.rawKeySlotContext, salts[0])]
        case .identity:
            throw .invalidArgument("an identity opens recipient slots, which have no seed to derive")
        }
    }

    /// A factor's X25519 secret scalar: BLAKE2b-256(key = seed, "coffer.v2.slot.x25519" || 0x00).
    static func scalar(_ seed: SecureBytes) throws(FormatError) -> SecureBytes {
        try crypto { () throws(CofferError) in try SubkeyDerivation.derive(from: seed, context: FormatV2.x25519Context) }
    }

    static func publicKey(_ seed: SecureBytes) throws(FormatError) -> [UInt8] {
        let sk = try scalar(seed)
        return try crypto { () throws(CofferError) in try X25519.publicKey(sk) }
    }

    // MARK: Opening

    /// The key this slot's stanza (or legacy wrap) holds for `seeds`, or nil when it does not
    /// open with them. The caller checks it against the header's epoch id.
    package func open(seeds: Seeds, vaultID: [UInt8], epochID: [UInt8]) throws(FormatError) -> SecureBytes? {
        guard seeds.type == type else { return nil }
        if isLegacy {
            guard seeds.seeds.count == 1 else { return nil }
            return try KeySlotRecord(type: type, body: publicPart, index: 0).unwrap(kek: seeds.seeds[0], vaultID: vaultID)
        }
        if isRecipient {
            guard seeds.seeds.count == 1, let slot = recipientSlot else { return nil }
            return try slot.open(scalar: seeds.seeds[0])
        }
        let factors = self.factors
        guard !factors.isEmpty, seeds.seeds.count == factors.count else { return nil }
        var scalars: [SecureBytes] = []
        for (seed, factor) in zip(seeds.seeds, factors) {
            let sk = try Self.scalar(seed)
            // A factor whose public key differs is a wrong credential: no need to go on.
            guard try crypto({ () throws(CofferError) in try X25519.publicKey(sk) }) == factor.publicKey else { return nil }
            scalars.append(sk)
        }
        let ephemeral = Array(stanza[0..<FormatV2.pointLength])
        var shared: [SecureBytes] = []
        for sk in scalars {
            do throws(CofferError) {
                shared.append(try X25519.sharedSecret(sk, peer: ephemeral))
            } catch .authenticationFailed {
                return nil   // a point of small order: this stanza opens for nobody
            } catch {
                throw .crypto(error)
            }
        }
        let wrapKey = try Self.wrapKey(vaultID: vaultID, epochID: epochID, identity: identity, ephemeral: ephemeral,
                                       publicKeys: factors.map(\.publicKey), shared: shared)
        do throws(CofferError) {
            let key = try XChaCha20Poly1305.open(stanza[FormatV2.pointLength...], key: wrapKey, nonce: Self.zeroNonce,
                                                 associatedData: Self.stanzaAD(vaultID: vaultID, epochID: epochID, identity: identity))
            return key.count == FormatV1.keyLength ? key : nil
        } catch .authenticationFailed {
            return nil
        } catch {
            throw .crypto(error)
        }
    }

    /// Seeds, then ``open(seeds:vaultID:epochID:)``: the key and the seeds, or nil.
    package func open(with credential: VaultCredential, vaultID: [UInt8], epochID: [UInt8]) throws(FormatError) -> (key: SecureBytes, seeds: Seeds)? {
        guard let seeds = try seeds(for: credential),
              let key = try open(seeds: seeds, vaultID: vaultID, epochID: epochID) else { return nil }
        return (key, seeds)
    }

    // MARK: Writing

    static let zeroNonce = [UInt8](repeating: 0, count: FormatV1.nonceLength)

    /// `"coffer.v2.stanza" || 0x00 || vault id || epoch id || slot identity`.
    static func stanzaAD(vaultID: [UInt8], epochID: [UInt8], identity: [UInt8]) -> [UInt8] {
        FormatV2.stanzaLabel + vaultID + epochID + identity
    }

    /// BLAKE2b-256 of the stanza AD, the ephemeral point, each factor's public key, then each
    /// shared secret (SPEC.md §4.7), hashed in guarded memory.
    static func wrapKey(vaultID: [UInt8], epochID: [UInt8], identity: [UInt8], ephemeral: [UInt8],
                        publicKeys: [[UInt8]], shared: [SecureBytes]) throws(FormatError) -> SecureBytes {
        let prefix = stanzaAD(vaultID: vaultID, epochID: epochID, identity: identity) + ephemeral + publicKeys.flatMap { $0 }
        return try crypto { () throws(CofferError) in
            let secrets = try SecureBytes(count: shared.count * X25519.length) { (out: UnsafeMutableRawBufferPointer) in
                for (i, s) in shared.enumerated() {
                    s.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[(i * 32)..<((i + 1) * 32)]).copyMemory(from: $0) }
                }
            }
            return try secrets.withUnsafeBytes { (raw) throws(CofferError) in try BLAKE2b.secretDigest(prefix: prefix, secret: raw) }
        }
    }

    /// A new stanza wrapping `epoch`'s key for this slot's public keys alone: what a
    /// rotation writes for every new-style slot. A legacy or unknown slot cannot get one.
    package func restanza(vaultID: [UInt8], epoch: EpochKeys, entropy: EntropySource) throws(FormatError) -> KeySlotV2 {
        guard isNewStyle else { throw .slotUnavailable("a legacy or unknown key slot cannot be wrapped for a new key") }
        if isRecipient, let slot = recipientSlot {
            return try KeySlotV2(type: type, publicPart: publicPart, stanza: try slot.stanza(for: epoch, entropy: entropy), index: 0)
        }
        let stanza = try Self.stanza(for: factors.map(\.publicKey), identity: identity, vaultID: vaultID, epoch: epoch, entropy: entropy)
        return try KeySlotV2(type: type, publicPart: publicPart, stanza: stanza, index: 0)
    }

    /// An ephemeral key `e`, `E = X25519(e, 9)`, a shared secret per public key, the wrap key,
    /// and the epoch key sealed under it with the zero nonce (SPEC.md §4.7).
    static func stanza(for publicKeys: [[UInt8]], identity: [UInt8], vaultID: [UInt8], epoch: EpochKeys,
                       entropy: EntropySource) throws(FormatError) -> [UInt8] {
        let (ephemeral, shared) = try crypto { () throws(CofferError) -> ([UInt8], [SecureBytes]) in
            let e = try entropy.secureBytes(X25519.length)
            var shared: [SecureBytes] = []
            for pk in publicKeys {
                do throws(CofferError) {
                    shared.append(try X25519.sharedSecret(e, peer: pk))
                } catch .authenticationFailed {
                    throw .invalidKey("a key slot's public key is a point of small order")
                } catch {
                    throw error
                }
            }
            return (try X25519.publicKey(e), shared)
        }
        let wrapKey = try wrapKey(vaultID: vaultID, epochID: epoch.epochID, identity: identity, ephemeral: ephemeral,
                                  publicKeys: publicKeys, shared: shared)
        let wrapped = try crypto { () throws(CofferError) in
            try XChaCha20Poly1305.seal(epoch.epochKey, key: wrapKey, nonce: zeroNonce,
                                       associatedData: stanzaAD(vaultID: vaultID, epochID: epoch.epochID, identity: identity))
        }
        return ephemeral + wrapped
    }

    /// A new slot for `credential` (fresh salts), wrapping `epoch`'s key; also its seeds.
    package static func make(for credential: VaultCredential, kdf: Argon2idParameters, vaultID: [UInt8], epoch: EpochKeys,
                             entropy: EntropySource) throws(FormatError) -> (slot: KeySlotV2, seeds: Seeds) {
        try make(for: credential, kdf: kdf, vaultID: vaultID, epoch: epoch, entropy: entropy, salt: nil)
    }

    /// ``make(for:kdf:vaultID:epoch:entropy:)`` with every factor's salt `salt` when given
    /// (a converted slot, SPEC.md §11.1), else fresh ones.
    private static func make(for credential: VaultCredential, kdf: Argon2idParameters, vaultID: [UInt8], epoch: EpochKeys,
                             entropy: EntropySource, salt: [UInt8]?) throws(FormatError) -> (slot: KeySlotV2, seeds: Seeds) {
        guard let type = type(for: credential.slotKind) else { throw .invalidArgument("no slot type for this credential") }
        let factorCount = type == passwordAndKeyFileType ? 2 : 1
        let salts = try crypto { () throws(CofferError) in
            try (0..<factorCount).map { (_) throws(CofferError) -> [UInt8] in
                if let salt { return salt }
                return try entropy.bytes(FormatV1.saltLength)
            }
        }
        let usesArgon2 = type != rawKeyType
        if usesArgon2 { do { try kdf.checkBounds("new key slot") } catch { throw FormatError(reading: error) } }
        let seeds = try derive(credential, kdf: usesArgon2 ? kdf : nil, salts: salts)
        var publicPart = ByteWriter(capacity: 109)
        if usesArgon2 {
            publicPart.u8(KeySlotRecord.argon2idV13)
            publicPart.u32(kdf.memoryKiB)
            publicPart.u32(kdf.iterations)
            publicPart.u32(kdf.lanes)
        }
        for (salt, seed) in zip(salts, seeds) {
            publicPart.bytes(salt)
            publicPart.bytes(try publicKey(seed))
        }
        return (try assemble(type: type, publicPart: publicPart.bytes, vaultID: vaultID, epoch: epoch, entropy: entropy),
                Seeds(type: type, seeds: seeds))
    }

    /// True when `password` is this password and key-file slot's password factor (its
    /// Argon2id seed gives the factor's public key, SPEC.md §4.3): what a password change
    /// checks to find the two-factor slots of the old password without the key file.
    /// Runs the slot's KDF once; false for any other slot type.
    package func passwordFactorMatches(_ password: SecureBytes) throws(FormatError) -> Bool {
        guard type == Self.passwordAndKeyFileType, let factor = factors.first else { return false }
        let seed = try Self.derive(.password(password), kdf: kdf, salts: [factor.salt])[0]
        return ConstantTime.equals(try Self.publicKey(seed), factor.publicKey)
    }

    /// A password and key-file slot with a new password factor and this slot's key-file
    /// factor: how a password change keeps a required key file without it (SPEC.md §4.3).
    package func replacingPasswordFactor(_ password: SecureBytes, vaultID: [UInt8], epoch: EpochKeys,
                                         entropy: EntropySource) throws(FormatError) -> (slot: KeySlotV2, seeds: Seeds)? {
        guard type == Self.passwordAndKeyFileType, let kdf else { return nil }
        let salt = try crypto { () throws(CofferError) in try entropy.bytes(FormatV1.saltLength) }
        let seed = try Self.derive(.password(password), kdf: kdf, salts: [salt])[0]
        var publicPart = Array(self.publicPart[0..<Self.kdfLength])
        publicPart += salt
        publicPart += try Self.publicKey(seed)
        publicPart += self.publicPart[(Self.kdfLength + 48)...]
        let slot = try Self.assemble(type: type, publicPart: publicPart, vaultID: vaultID, epoch: epoch, entropy: entropy)
        // The key-file seed is not known here: a cached unlock of this slot needs the file.
        return (slot, Seeds(type: type, seeds: [seed]))
    }

    /// The new-style slot that replaces a legacy slot opened with `kek` (its format-1
    /// key-encryption key) or `credential` (SPEC.md §11.1). Types 1 and 3 keep the legacy
    /// slot's parameters and salt, and its KEK is the seed: no KDF runs. Types 2 and 4 need
    /// the credential (one Argon2id for type 2) and keep the legacy slot's salt too (every
    /// factor's): two devices that convert one slot write one slot, whose identity a merge
    /// matches (with fresh salts each wrote its own, and how many slots a merged vault had
    /// depended on the order of merges). Nil when what is needed is not at hand, or the slot
    /// is not legacy.
    package static func converting(_ legacy: KeySlotV2, kek: SecureBytes?, credential: VaultCredential?, vaultID: [UInt8],
                                   epoch: EpochKeys, entropy: EntropySource) throws(FormatError) -> (slot: KeySlotV2, seeds: Seeds)? {
        guard legacy.isLegacy, let record = legacy.legacyRecord else { return nil }
        switch legacy.type {
        case 1, 3:
            guard let kek, legacy.kdf != nil else { return nil }
            var publicPart = ByteWriter(capacity: 61)
            publicPart.bytes(record.body[0..<kdfLength])
            publicPart.bytes(record.salt)
            publicPart.bytes(try publicKey(kek))
            let type = legacy.type == 1 ? passwordType : keyFileType
            return (try assemble(type: type, publicPart: publicPart.bytes, vaultID: vaultID, epoch: epoch, entropy: entropy),
                    Seeds(type: type, seeds: [kek]))
        default:
            guard let credential, credential.slotKind == legacy.kind else { return nil }
            return try make(for: credential, kdf: legacy.kdf ?? Argon2idParameters.default, vaultID: vaultID, epoch: epoch,
                            entropy: entropy, salt: record.salt)
        }
    }

    private static func assemble(type: UInt8, publicPart: [UInt8], vaultID: [UInt8], epoch: EpochKeys,
                                 entropy: EntropySource) throws(FormatError) -> KeySlotV2 {
        let identity = identity(type: type, publicPart: publicPart)
        let unfinished = try KeySlotV2(type: type, publicPart: publicPart, stanza: [UInt8](repeating: 0, count: stanzaLength), index: 0)
        let stanza = try stanza(for: unfinished.factors.map(\.publicKey), identity: identity, vaultID: vaultID, epoch: epoch, entropy: entropy)
        return try KeySlotV2(type: type, publicPart: publicPart, stanza: stanza, index: 0)
    }

    /// A legacy slot's format-1 record (its public part is format 1's body).
    package var legacyRecord: KeySlotRecord? {
        isLegacy ? try? KeySlotRecord(type: type, body: publicPart, index: 0) : nil
    }
}

import CofferCrypto
/// One key slot: the vault key wrapped under a key derived from a password, a key
/// file, both, or a raw key (SPEC.md §4).
///
/// The body is kept byte for byte, so slots of unknown types survive a save.
package struct KeySlotRecord: Sendable, Equatable {
    package let kind: KeySlotKind
    /// The encoded body, exactly as on disk.
    let body: [UInt8]
    /// Argon2id parameters (password and key-file slots only).
    package let kdf: Argon2idParameters?
    let salt: [UInt8]
    let nonce: [UInt8]
    let wrappedKey: [UInt8]

    /// Body lengths of the known slot types.
    static let argon2BodyLength = 1 + 12 + FormatV1.saltLength + FormatV1.nonceLength + FormatV1.wrappedKeyLength // 101
    static let rawKeyBodyLength = FormatV1.saltLength + FormatV1.nonceLength + FormatV1.wrappedKeyLength            // 88
    /// The only KDF identifier of v1: Argon2id, version 0x13.
    static let argon2idV13: UInt8 = 1

    /// Parses and validates a slot body; `index` names the slot in errors.
    init(type: UInt8, body: [UInt8], index: Int) throws(FormatError) {
        let kind = KeySlotKind(code: type)
        self.kind = kind
        self.body = body
        let name = "key slot \(index)"
        switch kind {
        case .unknown, .ageRecipient, .sshRecipient:   // format 1 has no recipient slots
            kdf = nil; salt = []; nonce = []; wrappedKey = []
        case .rawKey:
            guard body.count == Self.rawKeyBodyLength else { throw .malformed("\(name): raw-key slot is \(body.count) bytes, expected 88") }
            kdf = nil
            salt = Array(body[0..<16])
            nonce = Array(body[16..<40])
            wrappedKey = Array(body[40..<88])
        case .password, .passwordAndKeyFile, .keyFile:
            guard body.count == Self.argon2BodyLength else { throw .malformed("\(name): slot is \(body.count) bytes, expected 101") }
            let parsed: (Argon2idParameters, UInt8) = try body.withBytes { (raw) throws(FormatError) in
                var reader = ByteReader(raw)
                let kdfID = try reader.u8(name)
                let m = try reader.u32(name), t = try reader.u32(name), p = try reader.u32(name)
                return (Argon2idParameters(memoryKiB: m, iterations: t, lanes: p), kdfID)
            }
            guard parsed.1 == Self.argon2idV13 else { throw .malformed("\(name): unknown KDF \(parsed.1)") }
            // SPEC.md §9, before any KDF runs.
            do { try parsed.0.checkBounds(name) } catch { throw FormatError(reading: error) }
            kdf = parsed.0
            salt = Array(body[13..<29])
            nonce = Array(body[29..<53])
            wrappedKey = Array(body[53..<101])
        }
    }

    /// Creates a slot wrapping `vaultKey` for `key`.
    package static func make(for key: VaultCredential, vaultKey: SecureBytes, vaultID: [UInt8], kdf: Argon2idParameters,
                     entropy: EntropySource) throws(FormatError) -> KeySlotRecord {
        try makeReturningKEK(for: key, vaultKey: vaultKey, vaultID: vaultID, kdf: kdf, entropy: entropy).slot
    }

    /// ``make(for:vaultKey:vaultID:kdf:entropy:)``, and the key-encryption key it wrapped with.
    package static func makeReturningKEK(for key: VaultCredential, vaultKey: SecureBytes, vaultID: [UInt8], kdf: Argon2idParameters,
                                         entropy: EntropySource) throws(FormatError) -> (slot: KeySlotRecord, kek: SecureBytes) {
        let kind = key.slotKind
        let salt = try crypto { () throws(CofferError) in try entropy.bytes(FormatV1.saltLength) }
        var params = ByteWriter()
        if kind.usesArgon2 {
            do { try kdf.checkBounds("new key slot") } catch { throw FormatError(reading: error) }
            params.u8(argon2idV13)
            params.u32(kdf.memoryKiB)
            params.u32(kdf.iterations)
            params.u32(kdf.lanes)
        }
        params.bytes(salt)
        let kek = try keyEncryptionKey(for: key, kdf: kind.usesArgon2 ? kdf : nil, salt: salt)
        let wrapped = try crypto { () throws(CofferError) in
            let nonce = try entropy.bytes(FormatV1.nonceLength)
            return (nonce, try XChaCha20Poly1305.seal(vaultKey, key: kek, nonce: nonce,
                                                      associatedData: associatedData(vaultID: vaultID, type: kind.code, params: params.bytes)))
        }
        var body = params
        body.bytes(wrapped.0)
        body.bytes(wrapped.1)
        return (try KeySlotRecord(type: kind.code, body: body.bytes, index: 0), kek)
    }

    /// The vault key, or nil when this slot does not open with `key`.
    package func unwrap(with key: VaultCredential, vaultID: [UInt8]) throws(FormatError) -> SecureBytes? {
        try unwrapReturningKEK(with: key, vaultID: vaultID)?.vaultKey
    }

    /// The vault key and the key-encryption key that unwrapped it, or nil when this slot
    /// does not open with `key`.
    package func unwrapReturningKEK(with key: VaultCredential, vaultID: [UInt8]) throws(FormatError) -> (vaultKey: SecureBytes, kek: SecureBytes)? {
        guard kind == key.slotKind else { return nil }
        let kek = try Self.keyEncryptionKey(for: key, kdf: kdf, salt: salt)
        return try unwrap(kek: kek, vaultID: vaultID).map { ($0, kek) }
    }

    /// The vault key, or nil when `kek` is not this slot's key-encryption key (a cached
    /// unlock, SPEC.md §13.1): the slot's AEAD decides, so a wrong key never gives a key.
    package func unwrap(kek: SecureBytes, vaultID: [UInt8]) throws(FormatError) -> SecureBytes? {
        if case .unknown = kind { return nil }
        guard kek.count == FormatV1.keyLength else { return nil }
        let params = Array(body[0..<(body.count - FormatV1.nonceLength - FormatV1.wrappedKeyLength)])
        do throws(CofferError) {
            let vaultKey = try XChaCha20Poly1305.open(wrappedKey, key: kek, nonce: nonce,
                                                      associatedData: Self.associatedData(vaultID: vaultID, type: kind.code, params: params))
            guard vaultKey.count == FormatV1.keyLength else { return nil }
            return vaultKey
        } catch .authenticationFailed {
            return nil
        } catch {
            throw .crypto(error)
        }
    }

    /// `"coffer.v1.slot" 0x00 || vault id || slot type || parameters and salt` (SPEC.md §6).
    static func associatedData(vaultID: [UInt8], type: UInt8, params: [UInt8]) -> [UInt8] {
        FormatV1.slotADLabel + vaultID + [type] + params
    }

    /// The key-encryption key of a slot (SPEC.md §4.2–4.4).
    static func keyEncryptionKey(for key: VaultCredential, kdf: Argon2idParameters?, salt: [UInt8]) throws(FormatError) -> SecureBytes {
        switch key {
        case .password(let password):
            guard let kdf else { throw .malformed("password slot without KDF parameters") }
            return try crypto { () throws(CofferError) in try Argon2id.derive(password: password, salt: salt, parameters: kdf) }
        case .keyFile(let keyFile):
            guard let kdf else { throw .malformed("key-file slot without KDF parameters") }
            return try crypto { () throws(CofferError) in try Argon2id.derive(password: keyFile.material, salt: salt, parameters: kdf) }
        case .passwordAndKeyFile(let password, let keyFile):
            guard let kdf else { throw .malformed("key-file slot without KDF parameters") }
            return try crypto { () throws(CofferError) in
                try Argon2id.derive(password: password, salt: salt, parameters: kdf, secret: keyFile.material)
            }
        case .rawKey(let raw):
            guard raw.count == FormatV1.keyLength else { throw .invalidKey("a raw key must be 32 bytes") }
            return try crypto { () throws(CofferError) in
                try SubkeyDerivation.derive(from: raw, context: FormatV1.rawKeySlotContext, input: salt)
            }
        case .identity:
            throw .invalidArgument("format 1 has no recipient slots")
        }
    }
}

extension KeySlotRecord {
    /// The identity this slot has as a legacy slot of a format-2 header (SPEC.md §11.1: the
    /// upgrade carries it byte for byte), so a format-1 header's slots compare with a
    /// format-2 header's without keys.
    package var legacyIdentity: [UInt8] { KeySlotV2.identity(type: kind.code, publicPart: body) }
}

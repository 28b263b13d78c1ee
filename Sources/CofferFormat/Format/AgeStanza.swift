import CofferCrypto

/// age's recipient stanzas (age-encryption.org/v1, C2SP's age specification), the
/// constructions Coffer's recipient slots wrap the epoch key with (SPEC.md §4.11):
///
/// - **X25519**: an ephemeral share `E = X25519(e, 9)`, `shared = X25519(e, recipient)`,
///   `wrap key = HKDF-SHA-256(ikm = shared, salt = E ‖ recipient, info = "age-encryption.org/v1/X25519")`,
///   body = ChaCha20-Poly1305(wrap key, 12 zero bytes, no associated data, key).
/// - **ssh-ed25519**: the same on the Ed25519 key's X25519 form, with the shared secret
///   multiplied by `tweak = HKDF-SHA-256(ikm = empty, salt = SSH wire key, info =
///   "age-encryption.org/v1/ssh-ed25519")` and that label as HKDF's info.
///
/// Nothing here is new cryptography: libsodium's X25519, its Ed25519→X25519 maps, its
/// ChaCha20-Poly1305 and HMAC-SHA-256 composed exactly as age composes them, so age's
/// published vectors (CCTV) check this code. age wraps a 16-byte file key; a Coffer slot
/// wraps the 32-byte epoch key, which the construction allows unchanged.
package enum AgeStanza {
    static let x25519Label = Array("age-encryption.org/v1/X25519".utf8)
    static let sshEd25519Label = Array("age-encryption.org/v1/ssh-ed25519".utf8)
    static let zeroNonce = [UInt8](repeating: 0, count: ChaCha20Poly1305.nonceLength)

    /// Whom a stanza is for.
    package enum Recipient: Sendable, Equatable {
        /// An X25519 public key (`age1…`).
        case x25519(publicKey: [UInt8])
        /// An Ed25519 public key: its SSH wire blob (the tweak's salt) and its X25519 form.
        case sshEd25519(blob: [UInt8], publicKey: [UInt8])

        /// The stanza of an ssh-ed25519 key of 32 raw bytes (an invalid point is refused).
        package static func sshEd25519(rawKey: [UInt8]) throws(CofferError) -> Recipient {
            .sshEd25519(blob: OpenSSHKey.blob(ed25519: rawKey), publicKey: try X25519.publicKey(fromEd25519: rawKey))
        }

        /// The X25519 key the ephemeral share meets.
        package var publicKey: [UInt8] {
            switch self {
            case .x25519(let key), .sshEd25519(_, let key): return key
            }
        }

        var label: [UInt8] {
            switch self {
            case .x25519: return x25519Label
            case .sshEd25519: return sshEd25519Label
            }
        }
    }

    /// Wraps `key` for `recipient` with an ephemeral scalar from `entropy`: the share (32
    /// bytes) and the body (the key's length + 16).
    package static func wrap(_ key: SecureBytes, to recipient: Recipient,
                             entropy: EntropySource) throws(CofferError) -> (share: [UInt8], body: [UInt8]) {
        let ephemeral = try entropy.secureBytes(X25519.length)
        let share = try X25519.publicKey(ephemeral)
        let shared: SecureBytes
        do throws(CofferError) {
            shared = try tweaked(try X25519.sharedSecret(ephemeral, peer: recipient.publicKey), for: recipient)
        } catch .authenticationFailed {
            throw .invalidKey("the recipient's key is a point of small order")
        }
        let wrapKey = try self.wrapKey(shared: shared, share: share, recipient: recipient)
        return (share, try ChaCha20Poly1305.seal(key, key: wrapKey, nonce: zeroNonce))
    }

    /// The key a stanza wraps for `scalar` (the identity's X25519 secret), or nil when it
    /// does not open: a share of small order (an all-zero shared secret), a body that is
    /// not `keyLength + 16` bytes (checked before decrypting, as age checks its file key's
    /// length), or a failed tag. `recipient` is the identity's own public key.
    package static func unwrap(share: [UInt8], body: [UInt8], scalar: SecureBytes, recipient: Recipient,
                               keyLength: Int) throws(CofferError) -> SecureBytes? {
        guard share.count == X25519.length, body.count == keyLength + ChaCha20Poly1305.tagLength else { return nil }
        let wrapKey: SecureBytes
        do throws(CofferError) {
            let shared = try tweaked(try X25519.sharedSecret(scalar, peer: share), for: recipient)
            wrapKey = try self.wrapKey(shared: shared, share: share, recipient: recipient)
        } catch .authenticationFailed {
            return nil
        }
        do throws(CofferError) {
            return try ChaCha20Poly1305.open(body, key: wrapKey, nonce: zeroNonce)
        } catch .authenticationFailed {
            return nil
        }
    }

    /// ssh-ed25519 only: `X25519(tweak, shared)`.
    private static func tweaked(_ shared: SecureBytes, for recipient: Recipient) throws(CofferError) -> SecureBytes {
        guard case .sshEd25519(let blob, _) = recipient else { return shared }
        let tweak = try SHA256.hkdf(secret: nil, salt: blob, info: sshEd25519Label, length: X25519.length)
        return try X25519.sharedSecret(tweak, secretPoint: shared)
    }

    private static func wrapKey(shared: SecureBytes, share: [UInt8], recipient: Recipient) throws(CofferError) -> SecureBytes {
        try SHA256.hkdf(secret: shared, salt: share + recipient.publicKey, info: recipient.label, length: ChaCha20Poly1305.keyLength)
    }
}

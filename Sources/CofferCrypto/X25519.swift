internal import CSodium

/// X25519 (RFC 7748) through libsodium's `crypto_scalarmult` and `crypto_scalarmult_base`:
/// the one public-key primitive of vault format 2 (SPEC.md §4.7), where a key slot keeps a
/// public key so that a rotation can write a new stanza for it without its credential.
///
/// Scalars are secret and live in guarded memory; public keys and ephemeral points are
/// public. A result of all zeros (a point of small order on the other side) is refused,
/// as RFC 7748 §6.1 allows and libsodium does, so no shared secret is ever predictable.
///
/// ```swift
/// let scalar = try SecureBytes.random(count: 32)
/// let publicKey = try X25519.publicKey(scalar)                 // X25519(scalar, 9)
/// let shared = try X25519.sharedSecret(scalar, peer: otherPublicKey)
/// ```
package enum X25519 {
    /// Scalars, points and shared secrets are 32 bytes.
    package static let length = Int(crypto_scalarmult_BYTES)   // 32

    /// `X25519(scalar, 9)`: the public key of a secret scalar (clamped as RFC 7748 §5 says).
    package static func publicKey(_ scalar: SecureBytes) throws(CofferError) -> [UInt8] {
        try Sodium.ensureInitialized()
        guard scalar.count == length else { throw .invalidKey("an X25519 scalar is 32 bytes") }
        var out = [UInt8](repeating: 0, count: length)
        let status = scalar.withBytePointer { s, _ in crypto_scalarmult_base(&out, s) }
        guard status == 0, out.contains(where: { $0 != 0 }) else { throw .cryptoFailure("X25519 base-point multiplication failed") }
        return out
    }

    /// `X25519(scalar, peer)` in guarded memory; an all-zero result throws
    /// ``CofferError/authenticationFailed`` (the peer is a point of small order), so a
    /// caller that tries a stanza treats it as one that does not open.
    package static func sharedSecret(_ scalar: SecureBytes, peer: [UInt8]) throws(CofferError) -> SecureBytes {
        guard peer.count == length else { throw .invalidArgument("an X25519 public key is 32 bytes") }
        return try peer.withUnsafeBufferPointer { (p) throws(CofferError) in
            guard let base = p.baseAddress else { throw .invalidArgument("an X25519 public key is 32 bytes") }
            return try sharedSecret(scalar, pointer: base)
        }
    }

    /// `X25519(scalar, point)` where the point is itself secret (age's ssh-ed25519 stanza
    /// multiplies a shared secret by a tweak); an all-zero result as above.
    package static func sharedSecret(_ scalar: SecureBytes, secretPoint: SecureBytes) throws(CofferError) -> SecureBytes {
        guard secretPoint.count == length else { throw .invalidArgument("an X25519 point is 32 bytes") }
        return try secretPoint.withBytePointer { (p, _) throws(CofferError) in try sharedSecret(scalar, pointer: p) }
    }

    private static func sharedSecret(_ scalar: SecureBytes, pointer peer: UnsafePointer<UInt8>) throws(CofferError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard scalar.count == length else { throw .invalidKey("an X25519 scalar is 32 bytes") }
        return try SecureBytes(count: length) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            // libsodium returns -1 for an all-zero output; the loop checks it again without
            // branching on the secret's bytes one by one.
            let status = scalar.withBytePointer { s, _ in crypto_scalarmult(out, s, peer) }
            var any: UInt8 = 0
            for i in 0..<length { any |= out[i] }
            guard status == 0, any != 0 else { throw .authenticationFailed }
        }
    }

    /// The X25519 public key of an Ed25519 public key (the birational map of RFC 7748 §4.1,
    /// libsodium's `crypto_sign_ed25519_pk_to_curve25519`), as age's ssh-ed25519 recipients
    /// use it. A key that is not a valid Ed25519 point is ``CofferError/invalidKey(_:)``.
    package static func publicKey(fromEd25519 key: [UInt8]) throws(CofferError) -> [UInt8] {
        try Sodium.ensureInitialized()
        guard key.count == Int(crypto_sign_PUBLICKEYBYTES) else { throw .invalidKey("an Ed25519 public key is 32 bytes") }
        var out = [UInt8](repeating: 0, count: length)
        guard crypto_sign_ed25519_pk_to_curve25519(&out, key) == 0, out.contains(where: { $0 != 0 }) else {
            throw .invalidKey("not a valid Ed25519 public key")
        }
        return out
    }

    /// The X25519 scalar of an Ed25519 secret key (libsodium's 64 bytes: seed, public key):
    /// the first half of SHA-512(seed), libsodium's `crypto_sign_ed25519_sk_to_curve25519`,
    /// as age's ssh-ed25519 identities use it.
    package static func scalar(fromEd25519SecretKey secretKey: SecureBytes) throws(CofferError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard secretKey.count == Int(crypto_sign_SECRETKEYBYTES) else { throw .invalidKey("an Ed25519 secret key is 64 bytes") }
        return try SecureBytes(count: length) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            let status = secretKey.withBytePointer { sk, _ in crypto_sign_ed25519_sk_to_curve25519(out, sk) }
            guard status == 0 else { throw .cryptoFailure("Ed25519 to X25519 conversion failed") }
        }
    }
}

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
        try Sodium.ensureInitialized()
        guard scalar.count == length else { throw .invalidKey("an X25519 scalar is 32 bytes") }
        guard peer.count == length else { throw .invalidArgument("an X25519 public key is 32 bytes") }
        return try SecureBytes(count: length) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            // libsodium returns -1 for an all-zero output; the loop checks it again without
            // branching on the secret's bytes one by one.
            let status = scalar.withBytePointer { s, _ in crypto_scalarmult(out, s, peer) }
            var any: UInt8 = 0
            for i in 0..<length { any |= out[i] }
            guard status == 0, any != 0 else { throw .authenticationFailed }
        }
    }
}

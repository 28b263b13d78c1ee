internal import CSodium

/// ChaCha20-Poly1305 (RFC 8439, the IETF construction with a 12-byte nonce), from
/// libsodium. Vault files use XChaCha20-Poly1305; this one exists for age's recipient
/// stanzas (SPEC.md §4.11), which wrap a key under it with a zero nonce and no associated
/// data, so that Coffer's recipient slots follow age's published construction exactly.
package enum ChaCha20Poly1305 {
    package static let keyLength = Int(crypto_aead_chacha20poly1305_ietf_KEYBYTES)     // 32
    package static let nonceLength = Int(crypto_aead_chacha20poly1305_ietf_NPUBBYTES)  // 12
    package static let tagLength = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)       // 16

    /// Seals secret bytes; returns the ciphertext followed by the 16-byte tag.
    package static func seal(_ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8],
                             associatedData: [UInt8] = []) throws(CofferError) -> [UInt8] {
        try check(key: key, nonce: nonce)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var outLength: UInt64 = 0
        let status = key.withBytePointer { k, _ in
            plaintext.withBytePointer { p, count in
                crypto_aead_chacha20poly1305_ietf_encrypt(&out, &outLength, p, UInt64(count),
                                                          associatedData, UInt64(associatedData.count), nil, nonce, k)
            }
        }
        guard status == 0, Int(outLength) == out.count else { throw .sealFailed }
        return out
    }

    /// Opens and verifies; the plaintext lands in guarded memory. A failed tag (or a
    /// ciphertext shorter than one) throws ``CofferError/authenticationFailed``.
    package static func open(_ ciphertext: [UInt8], key: SecureBytes, nonce: [UInt8],
                             associatedData: [UInt8] = []) throws(CofferError) -> SecureBytes {
        try check(key: key, nonce: nonce)
        guard ciphertext.count >= tagLength else { throw .authenticationFailed }
        let plainLength = ciphertext.count - tagLength
        return try SecureBytes(count: plainLength) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            var written: UInt64 = 0
            let status = key.withBytePointer { k, _ in
                crypto_aead_chacha20poly1305_ietf_decrypt(out, &written, nil, ciphertext, UInt64(ciphertext.count),
                                                          associatedData, UInt64(associatedData.count), nonce, k)
            }
            guard status == 0, Int(written) == plainLength else { throw .authenticationFailed }
        }
    }

    private static func check(key: SecureBytes, nonce: [UInt8]) throws(CofferError) {
        try Sodium.ensureInitialized()
        guard key.count == keyLength else { throw .invalidKey("a ChaCha20-Poly1305 key is 32 bytes") }
        guard nonce.count == nonceLength else { throw .invalidArgument("a ChaCha20-Poly1305 nonce is 12 bytes") }
    }
}

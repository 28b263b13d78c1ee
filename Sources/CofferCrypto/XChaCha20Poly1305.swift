internal import CSodium

/// XChaCha20-Poly1305 (IETF construction) with associated data, from libsodium.
package enum XChaCha20Poly1305 {
    static let keyLength = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)     // 32
    static let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)  // 24
    package static let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)       // 16

    /// Encrypts `plaintext` and returns ciphertext followed by the 16-byte tag.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws(CofferError) -> [UInt8] {
        try nonce.withBytes { (nonceRaw) throws(CofferError) in
            try associatedData.withBytes { (ad) throws(CofferError) in
                try filled(count: plaintext.count + tagLength) { (out) throws(CofferError) in
                    try seal(plaintext, into: out, key: key, nonce: nonceRaw, associatedData: ad)
                }
            }
        }
    }

    /// ``seal(_:key:nonce:associatedData:)`` into `sealed`, exactly the plaintext's length
    /// and a tag's: a key rotation seals both parts of every record straight into the new
    /// record's buffer.
    package static func seal(
        _ plaintext: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer, key: SecureBytes,
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) throws(CofferError) {
        try check(key: key, nonceCount: nonce.count)
        guard sealed.count == plaintext.count + tagLength, let out = sealed.baseAddress, let nonceBase = nonce.baseAddress else {
            throw .invalidArgument("XChaCha20-Poly1305 output buffer of the wrong length")
        }
        var outLength: UInt64 = 0
        let status = key.withBytePointer { k, _ in
            crypto_aead_xchacha20poly1305_ietf_encrypt(
                out.assumingMemoryBound(to: UInt8.self), &outLength,
                plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(plaintext.count),
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count), nil,
                nonceBase.assumingMemoryBound(to: UInt8.self), k)
        }
        guard status == 0, Int(outLength) == sealed.count else { throw .sealFailed }
    }

    /// Seals bytes held in guarded memory.
    package static func seal(
        _ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws(CofferError) -> [UInt8] {
        try plaintext.withUnsafeBytes { (p) throws(CofferError) in
            try seal(p, key: key, nonce: nonce, associatedData: associatedData)
        }
    }

    /// Decrypts and verifies; the plaintext lands in guarded memory.
    /// A failure throws ``CofferError/authenticationFailed`` and releases nothing.
    package static func open(
        _ ciphertext: some Collection<UInt8>, key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]
    ) throws(CofferError) -> SecureBytes {
        try check(key: key, nonceCount: nonce.count)
        let sealed = Array(ciphertext)
        guard sealed.count >= tagLength else { throw .authenticationFailed }
        let plainLength = sealed.count - tagLength
        // libsodium verifies the tag before writing any plaintext, and on failure the
        // guarded region is freed (zeroed) by SecureBytes' initialiser.
        return try SecureBytes(count: plainLength) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            var written: UInt64 = 0
            let status = key.withBytePointer { k, _ in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out, &written, nil, sealed, UInt64(sealed.count),
                    associatedData, UInt64(associatedData.count), nonce, k)
            }
            guard status == 0, Int(written) == plainLength else { throw .authenticationFailed }
        }
    }

    /// Decrypts and verifies into `scratch`, guarded memory the caller reuses (at least the
    /// plaintext's length), hands the plaintext to `body`, then wipes it. For per-record work
    /// on many records: one guarded allocation per thread instead of one per record, whose
    /// mmap, mprotect and mlock calls serialise the threads on the kernel's memory map.
    package static func open<R>(
        _ ciphertext: ArraySlice<UInt8>, key: SecureBytes, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
        scratch: SecureBytes, _ body: (UnsafeRawBufferPointer) throws(CofferError) -> R
    ) throws(CofferError) -> R {
        try check(key: key, nonceCount: nonce.count)
        guard let nonceBase = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .invalidArgument("XChaCha20-Poly1305 nonce must be 24 bytes") }
        guard ciphertext.count >= tagLength else { throw .authenticationFailed }
        let plainLength = ciphertext.count - tagLength
        guard scratch.count >= plainLength else { throw .invalidArgument("scratch buffer too small") }
        return try scratch.withMutableBytePointer { (out, _) throws(CofferError) -> R in
            defer { sodium_memzero(out, max(plainLength, 1)) }
            var written: UInt64 = 0
            let status = ciphertext.withUnsafeBufferPointer { sealed -> Int32 in
                guard let base = sealed.baseAddress else { return -1 }
                return key.withBytePointer { k, _ in
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        out, &written, nil, base, UInt64(sealed.count),
                        associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count), nonceBase, k)
                }
            }
            guard status == 0, Int(written) == plainLength else { throw .authenticationFailed }
            return try body(UnsafeRawBufferPointer(start: out, count: plainLength))
        }
    }

    /// Verifies `ciphertext` (with its tag) under `key`, `nonce` and `associatedData` without
    /// decrypting it: libsodium's detached open with no message buffer checks the Poly1305
    /// tag only, so nothing of the plaintext is computed or held. For a record a save carries
    /// unread: its authenticity is what is checked (an authentic ciphertext was sealed by a
    /// holder of the key), at the cost of the tag alone rather than the whole decryption.
    /// A forged or damaged ciphertext, or one shorter than a tag, is `authenticationFailed`.
    package static func verify(
        _ ciphertext: UnsafeRawBufferPointer, key: SecureBytes, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) throws(CofferError) {
        try check(key: key, nonceCount: nonce.count)
        guard let nonceBase = nonce.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .invalidArgument("XChaCha20-Poly1305 nonce must be 24 bytes") }
        guard ciphertext.count >= tagLength, let base = ciphertext.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .authenticationFailed
        }
        let length = ciphertext.count - tagLength
        let status = key.withBytePointer { k, _ in
            crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                nil, nil, base, UInt64(length), base + length,
                associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count), nonceBase, k)
        }
        guard status == 0 else { throw .authenticationFailed }
    }

    /// An array of `count` bytes that `fill` writes whole (not zeroed first).
    private static func filled(count: Int, _ fill: (UnsafeMutableRawBufferPointer) throws(CofferError) -> Void) throws(CofferError) -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { (buffer, written) throws(CofferError) in
            try fill(UnsafeMutableRawBufferPointer(buffer))
            written = buffer.count
        }
    }

    private static func check(key: SecureBytes, nonceCount: Int) throws(CofferError) {
        try Sodium.ensureInitialized()
        guard key.count == keyLength else { throw .invalidKey("XChaCha20-Poly1305 key must be 32 bytes") }
        guard nonceCount == nonceLength else { throw .invalidArgument("XChaCha20-Poly1305 nonce must be 24 bytes") }
    }
}

extension XChaCha20Poly1305 {
    /// Decrypts data that is not secret (item overviews) into ordinary memory,
    /// avoiding one guarded allocation per item when a large vault is listed.
    package static func openPublic(
        _ ciphertext: UnsafeRawBufferPointer, key: SecureBytes, nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) throws(CofferError) -> [UInt8] {
        guard ciphertext.count >= tagLength else { throw .authenticationFailed }
        return try filled(count: ciphertext.count - tagLength) { (out) throws(CofferError) in
            try openPublic(ciphertext, into: out, key: key, nonce: nonce, associatedData: associatedData)
        }
    }

    /// ``openPublic(_:key:nonce:associatedData:)`` into `plaintext` (exactly the ciphertext's
    /// length less the tag): a listing opens each overview into a buffer on the stack, not
    /// an array of its own (allocated, zeroed and freed 100,000 times).
    package static func openPublic(
        _ ciphertext: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer, key: SecureBytes,
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) throws(CofferError) {
        try Sodium.ensureInitialized()
        guard key.count == keyLength, nonce.count == nonceLength else { throw .invalidKey("bad key or nonce length") }
        guard ciphertext.count >= tagLength, let cBase = ciphertext.baseAddress, let nBase = nonce.baseAddress else {
            throw .authenticationFailed
        }
        guard plaintext.count == ciphertext.count - tagLength else { throw .invalidArgument("XChaCha20-Poly1305 plaintext buffer of the wrong length") }
        // A zero-length buffer may have no address; libsodium writes nothing then.
        var empty: UInt8 = 0
        let status = key.withBytePointer { k, _ in
            withUnsafeMutablePointer(to: &empty) { emptyPointer in
                crypto_aead_xchacha20poly1305_ietf_decrypt(
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? emptyPointer, nil, nil,
                    cBase.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count),
                    associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                    nBase.assumingMemoryBound(to: UInt8.self), k)
            }
        }
        guard status == 0 else { throw .authenticationFailed }
    }
}

internal import CSodium

/// SHA-256, HMAC-SHA-256 and HKDF-SHA-256 (RFC 5869), from libsodium's
/// `crypto_hash_sha256` and `crypto_auth_hmacsha256`: what age's recipient stanzas use
/// (SPEC.md §4.11) and SSH fingerprints are made of. Vault files themselves use BLAKE2b.
/// HKDF is composed of HMAC exactly as RFC 5869 §2 says (libsodium 1.0.18 has no HKDF).
package enum SHA256 {
    package static let length = Int(crypto_hash_sha256_BYTES)   // 32

    /// SHA-256 of public bytes (an SSH key blob).
    package static func hash(_ bytes: [UInt8]) throws(CofferError) -> [UInt8] {
        try Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: length)
        let status = bytes.withUnsafeBufferPointer { crypto_hash_sha256(&out, $0.baseAddress, UInt64($0.count)) }
        guard status == 0 else { throw .cryptoFailure("SHA-256 failed") }
        return out
    }

    /// HMAC-SHA-256(key, message) into guarded memory. libsodium's multi-part HMAC takes
    /// a key of any length (hashed first when longer than 64 bytes, as RFC 2104 says).
    package static func hmac(key: UnsafeRawBufferPointer, message: [UnsafeRawBufferPointer]) throws(CofferError) -> SecureBytes {
        try Sodium.ensureInitialized()
        return try SecureBytes(count: length) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            // The state holds key material: it is built in guarded scratch memory, wiped on release.
            var status: Int32 = 0
            _ = try SecureBytes(count: MemoryLayout<crypto_auth_hmacsha256_state>.size) { (scratch: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
                let s = UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: crypto_auth_hmacsha256_state.self)
                // An empty key (HKDF's default salt is zeros, but age's tweak has a salt) still
                // needs a pointer.
                var none: UInt8 = 0
                if let base = key.baseAddress, key.count > 0 {
                    status |= crypto_auth_hmacsha256_init(s, base.assumingMemoryBound(to: UInt8.self), key.count)
                } else {
                    status |= crypto_auth_hmacsha256_init(s, &none, 0)
                }
                for part in message {
                    status |= crypto_auth_hmacsha256_update(s, part.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(part.count))
                }
                status |= crypto_auth_hmacsha256_final(s, out)
            }
            guard status == 0 else { throw .cryptoFailure("HMAC-SHA-256 failed") }
        }
    }

    /// HKDF-SHA-256 (RFC 5869): `PRK = HMAC(salt, ikm)`, then `T(1) = HMAC(PRK, info ‖ 0x01)`,
    /// `T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i)`, the first `length` bytes (at most 255 × 32).
    package static func hkdf(secret: SecureBytes?, salt: [UInt8], info: [UInt8], length: Int) throws(CofferError) -> SecureBytes {
        guard length > 0, length <= 255 * Self.length else { throw .invalidArgument("HKDF-SHA-256 gives 1 to 8160 bytes") }
        let empty = try SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) in }
        let ikm = secret ?? empty
        let prk = try salt.withBytes { (saltBytes) throws(CofferError) in
            try ikm.withUnsafeBytes { (ikmBytes) throws(CofferError) in try hmac(key: saltBytes, message: [ikmBytes]) }
        }
        var blocks: [SecureBytes] = []
        for counter in 1...((length + Self.length - 1) / Self.length) {
            let previous = blocks.last ?? empty
            let block = try prk.withUnsafeBytes { (key) throws(CofferError) in
                try previous.withUnsafeBytes { (t) throws(CofferError) in
                    try (info + [UInt8(counter)]).withBytes { (infoAndCounter) throws(CofferError) in
                        try hmac(key: key, message: [t, infoAndCounter])
                    }
                }
            }
            blocks.append(block)
        }
        return try SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) in
            for (i, block) in blocks.enumerated() {
                let start = i * Self.length, end = min(length, start + Self.length)
                block.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[start..<end]).copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<(end - start)])) }
            }
        }
    }
}

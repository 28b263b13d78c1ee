internal import CSodium

/// BLAKE2b (RFC 7693), unkeyed or keyed, through libsodium's `crypto_generichash`.
package enum BLAKE2b {
    static let minOutputLength = Int(crypto_generichash_BYTES_MIN)  // 16
    static let maxOutputLength = Int(crypto_generichash_BYTES_MAX)  // 64
    static let maxKeyLength = Int(crypto_generichash_KEYBYTES_MAX)  // 64

    /// Unkeyed hash of public data.
    package static func hash(_ data: some Collection<UInt8>, outputLength: Int = 32) throws(CofferError) -> [UInt8] {
        try compute(data, key: nil, outputLength: outputLength)
    }

    /// Unkeyed BLAKE2b-256 of bytes in place, as an inline ``Digest256``.
    package static func digest256(buffer: UnsafeRawBufferPointer) throws(CofferError) -> Digest256 {
        try checkLengths(key: nil, outputLength: Digest256.byteCount)
        let (digest, status) = Digest256.filling { out in
            guard let base = out.baseAddress else { return -1 }
            return crypto_generichash(base.assumingMemoryBound(to: UInt8.self), out.count,
                               buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count), nil, 0)
        }
        guard status == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        return digest
    }

    /// Keyed BLAKE2b-256 of bytes in place, as an inline ``Digest256``: for a MAC computed
    /// once per record of a large vault (a lookup tag), without an array per call.
    package static func mac256(buffer: UnsafeRawBufferPointer, key: SecureBytes) throws(CofferError) -> Digest256 {
        try checkLengths(key: key, outputLength: Digest256.byteCount)
        let (digest, status) = Digest256.filling { out in
            guard let base = out.baseAddress else { return -1 }
            return key.withBytePointer { k, kLength in
                crypto_generichash(base.assumingMemoryBound(to: UInt8.self), out.count,
                                   buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(buffer.count), k, kLength)
            }
        }
        guard status == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        return digest
    }

    /// Keyed hash (a MAC) of public data under a secret key; the tag is public.
    package static func mac(_ data: some Collection<UInt8>, key: SecureBytes, outputLength: Int = 32) throws(CofferError) -> [UInt8] {
        try compute(data, key: key, outputLength: outputLength)
    }

    /// Keyed hash whose output is itself secret (a derived key), in guarded memory.
    static func deriveKey(from key: SecureBytes, input: [UInt8], outputLength: Int = 32) throws(CofferError) -> SecureBytes {
        try checkLengths(key: key, outputLength: outputLength)
        return try SecureBytes(count: outputLength) { (out: UnsafeMutablePointer<UInt8>, length: Int) throws(CofferError) in
            let status = key.withBytePointer { k, kLength in
                crypto_generichash(out, length, input, UInt64(input.count), k, kLength)
            }
            guard status == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        }
    }

    /// Hashes the bytes in place when they are contiguous (arrays, slices of a file's
    /// buffer: a large vault's manifest is megabytes), copying them only otherwise.
    private static func compute(_ data: some Collection<UInt8>, key: SecureBytes?, outputLength: Int) throws(CofferError) -> [UInt8] {
        try checkLengths(key: key, outputLength: outputLength)
        var out = [UInt8](repeating: 0, count: outputLength)
        func run(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
            if let key {
                return key.withBytePointer { k, kLength in
                    crypto_generichash(&out, outputLength, bytes.baseAddress, UInt64(bytes.count), k, kLength)
                }
            }
            return crypto_generichash(&out, outputLength, bytes.baseAddress, UInt64(bytes.count), nil, 0)
        }
        let status = data.withContiguousStorageIfAvailable(run) ?? Array(data).withUnsafeBufferPointer(run)
        guard status == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        return out
    }

    static func checkLengths(key: SecureBytes?, outputLength: Int) throws(CofferError) {
        try Sodium.ensureInitialized()
        guard (minOutputLength...maxOutputLength).contains(outputLength) else {
            throw .invalidArgument("BLAKE2b output must be 16 to 64 bytes")
        }
        if let key, !(Int(crypto_generichash_KEYBYTES_MIN)...maxKeyLength).contains(key.count) {
            throw .invalidArgument("BLAKE2b key must be 16 to 64 bytes")
        }
    }
}

extension BLAKE2b {
    /// Unkeyed BLAKE2b-256 of `prefix || secret`, written straight into guarded memory:
    /// for digests that are themselves secret (key-file material).
    package static func secretDigest(prefix: [UInt8], secret: UnsafeRawBufferPointer) throws(CofferError) -> SecureBytes {
        let input = try SecureBytes(count: prefix.count + secret.count) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            out.copyBytes(from: prefix)
            if secret.count > 0 { UnsafeMutableRawBufferPointer(rebasing: out[prefix.count...]).copyMemory(from: secret) }
        }
        return try SecureBytes(count: 32) { (out: UnsafeMutablePointer<UInt8>, length: Int) throws(CofferError) in
            let status = input.withBytePointer { p, n in crypto_generichash(out, length, p, UInt64(n), nil, 0) }
            guard status == 0 else { throw .cryptoFailure("BLAKE2b failed") }
        }
    }
}

internal import CSodium

/// The operating system's cryptographic random source, through libsodium.
package enum SecureRandom {
    /// Fills `buffer` with random bytes.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CofferError) {
        try Sodium.ensureInitialized()
        if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
    }

    /// `count` random bytes in ordinary memory, for public values (salts, nonces, ids).
    package static func bytes(_ count: Int) throws(CofferError) -> [UInt8] {
        try Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
        }
        return out
    }

    /// A uniform integer in `0..<upperBound`, without modulo bias.
    static func uniform(below upperBound: UInt32) throws(CofferError) -> UInt32 {
        guard upperBound > 0 else { throw .invalidArgument("upper bound must be positive") }
        try Sodium.ensureInitialized()
        // randombytes_uniform rejects the biased tail of the 32-bit range.
        return randombytes_uniform(upperBound)
    }
}

internal import CSodium

/// The operating system's cryptographic random source, through libsodium.
package enum SecureRandom {
    /// Fills `buffer` with random bytes.
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CofferError) {
        try Sodium.ensureInitialized()
        if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
    }

    /// `count` random bytes in ordinary memory, for public values (salts, nonces, ids).
    ///
    /// A large draw (above ``streamedAbove`` bytes: the nonces of a rotation) is libsodium's
    /// ChaCha20 stream (`randombytes_buf_deterministic`) under a 32-byte seed drawn from
    /// the system for that draw alone, in guarded memory and wiped: libsodium reads the
    /// kernel 256 bytes a `getrandom` call, and the 2.4 MB of a 100,000-entry rotation took
    /// 9,375 calls, 6.5 ms on one core. A seed serves at most ``bytesPerSeed`` bytes.
    ///
    /// ```swift
    /// let nonces = try SecureRandom.bytes(records.count * 24)
    /// ```
    package static func bytes(_ count: Int) throws(CofferError) -> [UInt8] {
        try Sodium.ensureInitialized()
        guard count > streamedAbove else {
            var out = [UInt8](repeating: 0, count: count)
            out.withUnsafeMutableBytes { buffer in
                if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
            }
            return out
        }
        var failure: CofferError?
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else {
                failure = .invalidArgument("no buffer to draw random bytes into")
                return
            }
            var at = 0
            while at < count {
                let length = min(bytesPerSeed, count - at)
                do throws(CofferError) {
                    let seed = try SecureBytes.random(count: Int(randombytes_SEEDBYTES))
                    // A seed without an address would leave bytes unwritten: never counted as drawn.
                    let streamed = seed.withUnsafeBytes { seed -> Bool in
                        guard let key = seed.bindMemory(to: UInt8.self).baseAddress else { return false }
                        randombytes_buf_deterministic(base + at, length, key)
                        return true
                    }
                    guard streamed else { throw CofferError.invalidArgument("no seed to stream random bytes from") }
                } catch {
                    failure = error
                    break
                }
                at += length
            }
            if failure == nil { initialized = count }
        }
        if let failure { throw failure }
        return out
    }

    /// Draws of more bytes than this are streamed from a seed (``bytes(_:)``).
    static let streamedAbove = 4096

    /// The most bytes one seed's stream gives (libsodium allows 2^38).
    static let bytesPerSeed = 1 << 30

    /// A uniform integer in `0..<upperBound`, without modulo bias.
    static func uniform(below upperBound: UInt32) throws(CofferError) -> UInt32 {
        guard upperBound > 0 else { throw .invalidArgument("upper bound must be positive") }
        try Sodium.ensureInitialized()
        // randombytes_uniform rejects the biased tail of the 32-bit range.
        return randombytes_uniform(upperBound)
    }
}

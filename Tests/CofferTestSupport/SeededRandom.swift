import Foundation
import CSodium
import CofferGenerator

/// The tests' one seeded random source: the same seed always gives the same bytes.
///
/// Request `i` (a `fill`, a `next()`, or an ``EntropySource`` draw) is libsodium's
/// `randombytes_buf_deterministic` seeded with BLAKE2b-256(key: seed, message: `i` as a
/// little-endian UInt64): the stream that made `Tests/Vectors`, so regenerated vectors
/// are byte for byte those on disk.
///
/// It serves as a `RandomNumberGenerator` (property tests), as the generators'
/// ``RandomSource`` (a seeded `RandomBytePool`) and, through ``entropy``, as the format's
/// salts, nonces, ids and keys. Never used outside tests.
package final class SeededRandom: RandomNumberGenerator, RandomSource, @unchecked Sendable {
    // @unchecked: the only mutable state (`counter`) is guarded by `lock`.
    private let seed: [UInt8]
    private let lock = NSLock()
    private var counter: UInt64 = 0

    /// A stream from a 32-byte seed (a shorter or longer one is hashed to 32 bytes).
    package init(seed: [UInt8]) {
        _ = sodium_init()
        self.seed = seed.count == 32 ? seed : Self.hash(seed)
    }

    /// A stream named by `label`: the seed is BLAKE2b-256 of its UTF-8 bytes.
    package convenience init(_ label: String) {
        self.init(seed: Self.hash(Array(label.utf8)))
    }

    /// A stream numbered by `seed`: the seed is BLAKE2b-256 of its little-endian bytes.
    package convenience init(seed: UInt64) {
        self.init(seed: Self.hash(withUnsafeBytes(of: seed.littleEndian) { Array($0) }))
    }

    /// Fills `buffer` with the next request's bytes.
    package func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            _ = nextSeed()
            return
        }
        var chunkSeed = nextSeed()
        randombytes_buf_deterministic(base, buffer.count, &chunkSeed)
    }

    /// The next request's `count` bytes.
    package func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { fill($0) }
        return out
    }

    package func next() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { fill($0) }
        return UInt64(littleEndian: value)
    }

    private func nextSeed() -> [UInt8] {
        lock.lock()
        let index = counter
        counter += 1
        lock.unlock()
        let input = withUnsafeBytes(of: index.littleEndian) { Array($0) }
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, input, UInt64(input.count), seed, seed.count)
        return out
    }

    private static func hash(_ data: [UInt8]) -> [UInt8] {
        _ = sodium_init()   // idempotent; BLAKE2b's implementation is chosen there
        var out = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&out, 32, data, UInt64(data.count), nil, 0)
        return out
    }
}

#if DEBUG
extension SeededRandom: SeededEntropy {
    /// An entropy source drawing from this stream, for the format and the vault
    /// (debug builds; release builds have only ``EntropySource/system``).
    package var entropy: EntropySource { EntropySource(seeded: self) }
}
#endif

import CofferCrypto
internal import CSodium

/// Where the generators get their random bytes.
///
/// Not public on purpose: the public API always draws from the operating system,
/// and only tests (CofferTestSupport's `SeededRandom`) inject a seeded source.
package protocol RandomSource {
    /// Fills `buffer` with uniformly random bytes.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CofferError)
}

/// The operating system's cryptographic random source (libsodium's `randombytes_buf`).
struct SystemRandomSource: RandomSource {
    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CofferError) {
        try SecureRandom.fill(buffer)
    }
}

/// Random bytes drawn from a ``RandomSource`` in batches, so that picking a character
/// or a word never costs a system call of its own.
///
/// The batch is as secret as the passwords made from it, so it lives in guarded memory
/// (`sodium_malloc`: locked in RAM, zeroed when the pool goes away).
struct RandomBytePool<Source: RandomSource>: ~Copyable {
    /// 4 KiB: large enough that refills are rare, small enough to stay in L1 cache.
    static var defaultCapacity: Int { 4096 }

    private var source: Source
    private let storage: UnsafeMutableRawBufferPointer
    private var position: Int
    private var available: Int

    init(source: Source, capacity: Int = RandomBytePool.defaultCapacity) throws(CofferError) {
        try Sodium.ensureInitialized()
        let size = min(max(capacity, 16), RandomBytePool.defaultCapacity)
        guard let base = sodium_malloc(size) else { throw .secureMemoryUnavailable }
        self.source = source
        storage = UnsafeMutableRawBufferPointer(start: base, count: size)
        position = 0
        available = 0
    }

    deinit {
        // sodium_free zeroes the region before releasing it.
        sodium_free(storage.baseAddress)
    }

    /// The next uniformly random byte.
    @inline(__always)
    mutating func nextByte() throws(CofferError) -> UInt8 {
        if position == available { try refill() }
        let byte = storage.load(fromByteOffset: position, as: UInt8.self)
        position &+= 1
        return byte
    }

    /// A uniform integer in `0..<upperBound`, by rejection sampling over 32-bit draws:
    /// the lowest 2^32 mod n values are drawn again, so the accepted range holds every
    /// residue equally often.
    mutating func uniform(below upperBound: UInt32) throws(CofferError) -> UInt32 {
        guard upperBound > 1 else { return 0 }
        // 2^32 mod n, computed without 64-bit arithmetic: (2^32 - n) mod n.
        let rejectBelow = (0 &- upperBound) % upperBound
        while true {
            var value: UInt32 = 0
            for _ in 0..<4 { value = value << 8 | UInt32(try nextByte()) }
            // Accept the top 2^32 - (2^32 mod n) values: each residue is equally likely.
            if value >= rejectBelow { return value % upperBound }
        }
    }

    private mutating func refill() throws(CofferError) {
        // The new batch overwrites the spent one, so used bytes do not linger.
        try source.fill(storage)
        position = 0
        available = storage.count
    }
}

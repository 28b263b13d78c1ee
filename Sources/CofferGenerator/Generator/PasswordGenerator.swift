import CofferCrypto
/// Generates random passwords that follow a ``PasswordPolicy``.
///
/// Every character is an unbiased pick: random bytes from the operating system's
/// cryptographic source are drawn in batches, and a byte that would make some
/// characters likelier than others is rejected and replaced. With
/// ``PasswordPolicy/requireEachClass`` a password that misses a class is thrown away
/// whole and drawn again, so every valid password is equally likely.
///
/// ```swift
/// let generator = try PasswordGenerator(policy: PasswordPolicy(length: 24, requireEachClass: true))
/// let password = try generator.generate()        // SecureBytes, in guarded memory
/// print(generator.entropyBits)                   // 157.2...
/// ```
public struct PasswordGenerator: Sendable {
    /// The policy this generator follows.
    public let policy: PasswordPolicy
    let alphabet: PasswordAlphabet

    /// Validates `policy` and precomputes the tables for generating.
    /// Throws ``CofferError/Kind/invalidGeneratorPolicy`` for a policy no password can satisfy.
    ///
    /// ```swift
    /// let generator = try PasswordGenerator()   // 20 characters, all classes
    /// ```
    public init(policy: PasswordPolicy = PasswordPolicy()) throws(CofferError) {
        self.policy = policy
        alphabet = try PasswordAlphabet(policy: policy)
    }

    /// The characters passwords are drawn from, in ASCII order.
    ///
    /// ```swift
    /// try PasswordGenerator(policy: PasswordPolicy(includeLowercase: false, includeUppercase: false,
    ///                                              includeSymbols: false)).characters   // "0123456789"
    /// ```
    public var characters: String { String(decoding: alphabet.characters, as: UTF8.self) }

    /// The entropy of one generated password in bits: log2 of the exact number of
    /// passwords the policy allows, all of which are equally likely.
    ///
    /// Without ``PasswordPolicy/requireEachClass`` it is `length × log2(n)` for `n`
    /// characters. With it, the count of valid passwords comes from inclusion–exclusion
    /// over the required classes, in exact integer arithmetic (see the source), so it
    /// is right to double precision for every length up to 1024.
    ///
    /// ```swift
    /// let digits = PasswordPolicy(length: 4, includeLowercase: false, includeUppercase: false,
    ///                             includeSymbols: false)
    /// try PasswordGenerator(policy: digits).entropyBits   // log2(10_000) = 13.2877...
    /// ```
    public var entropyBits: Double { alphabet.entropyBits }

    /// One password in guarded memory (``SecureBytes``), `policy.length` ASCII bytes.
    ///
    /// ```swift
    /// let password = try PasswordGenerator().generate()
    /// password.withUnsafeBytes { bytes in /* type or store it */ }
    /// ```
    public func generate() throws(CofferError) -> SecureBytes {
        var pool = try RandomBytePool(source: SystemRandomSource(), capacity: batchSize(passwords: 1))
        return try generate(using: &pool)
    }

    /// One password as a `String`.
    ///
    /// - Important: this copies the password into an ordinary Swift `String`, which can
    ///   neither be wiped nor kept out of swap. Prefer ``generate()`` for anything that
    ///   is stored or typed; use this for display and for interfaces that need a `String`.
    ///
    /// ```swift
    /// let shown = try PasswordGenerator().generateString()   // e.g. "q7#Rv`u2Lk}9aQ;mZx0E"
    /// ```
    public func generateString() throws(CofferError) -> String {
        // The bytes are printable ASCII, so they are always valid UTF-8.
        try generate().unsafeStringCopy() ?? ""
    }

    /// `count` passwords, each in its own guarded memory, drawn from one random stream.
    ///
    /// ```swift
    /// let five = try PasswordGenerator().generate(count: 5)
    /// ```
    public func generate(count: Int) throws(CofferError) -> [SecureBytes] {
        guard count >= 0 else { throw .invalidArgument("count must not be negative") }
        var pool = try RandomBytePool(source: SystemRandomSource(), capacity: batchSize(passwords: count))
        var passwords: [SecureBytes] = []
        passwords.reserveCapacity(count)
        for _ in 0..<count { passwords.append(try generate(using: &pool)) }
        return passwords
    }

    /// The fast path: fills `buffer` with passwords back to back, `policy.length` bytes
    /// each, with no separators, and returns how many it wrote. `buffer.count` must be a
    /// multiple of the length. No memory is allocated per password; the caller owns the
    /// buffer (and should keep it in guarded memory and wipe it).
    ///
    /// ```swift
    /// let generator = try PasswordGenerator()
    /// let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1000 * 20, alignment: 1)
    /// defer { buffer.initializeMemory(as: UInt8.self, repeating: 0); buffer.deallocate() }
    /// let written = try generator.generate(into: buffer)   // 1000
    /// ```
    public func generate(into buffer: UnsafeMutableRawBufferPointer) throws(CofferError) -> Int {
        var pool = try RandomBytePool(source: SystemRandomSource())
        return try generate(into: buffer, using: &pool)
    }

    // MARK: Internals (the random source is injectable here for tests)

    /// One password from `pool`.
    func generate<Source: RandomSource>(using pool: inout RandomBytePool<Source>) throws(CofferError) -> SecureBytes {
        try SecureBytes(count: alphabet.length) { (buffer: UnsafeMutableRawBufferPointer) throws(CofferError) in
            _ = try generate(into: buffer, using: &pool)
        }
    }

    /// Fills `buffer` (a multiple of the length) with passwords from `pool`.
    func generate<Source: RandomSource>(
        into buffer: UnsafeMutableRawBufferPointer, using pool: inout RandomBytePool<Source>
    ) throws(CofferError) -> Int {
        let length = alphabet.length
        guard buffer.count % length == 0 else {
            throw .invalidArgument("buffer size \(buffer.count) is not a multiple of the password length \(length)")
        }
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), buffer.count > 0 else { return 0 }
        let count = buffer.count / length
        try alphabet.pickTable.withUnsafeBufferPointer { (pick) throws(CofferError) in
            if alphabet.requiredMask == 0 {
                // Characters are independent, so all passwords are one uniform stream.
                try fill(base, count: buffer.count, pick: pick, pool: &pool)
                return
            }
            try alphabet.groupBit.withUnsafeBufferPointer { (bits) throws(CofferError) in
                let required = alphabet.requiredMask
                for index in 0..<count {
                    let password = base + index * length
                    while true {
                        try fill(password, count: length, pick: pick, pool: &pool)
                        var seen: UInt8 = 0
                        for offset in 0..<length { seen |= bits[Int(password[offset])] }
                        if seen == required { break }
                        // Rejected as a whole: redrawing keeps the result uniform over valid passwords.
                    }
                }
            }
        }
        return count
    }

    /// Writes `count` uniformly chosen characters: each random byte either maps to a
    /// character or is rejected (see `PasswordAlphabet.pickTable`).
    @inline(__always)
    private func fill<Source: RandomSource>(
        _ output: UnsafeMutablePointer<UInt8>, count: Int, pick: UnsafeBufferPointer<UInt8>,
        pool: inout RandomBytePool<Source>
    ) throws(CofferError) {
        var written = 0
        while written < count {
            let character = pick[Int(try pool.nextByte())]
            if character != 0 {
                output[written] = character
                written &+= 1
            }
        }
    }

    /// Random bytes to draw at once for `passwords` passwords: the expected need plus a
    /// margin, capped at the pool's default so small requests do not read 4 KiB.
    private func batchSize(passwords: Int) -> Int {
        let acceptance = Double(256 - 256 % alphabet.characters.count) / 256
        let expected = Double(alphabet.length * max(passwords, 1)) / acceptance
        let wanted = Int(expected * 1.25) + 32
        return min(max(wanted, 64), RandomBytePool<SystemRandomSource>.defaultCapacity)
    }
}

import Testing
@testable import CofferGenerator
import CofferTestSupport

/// Chi-square tests: generated characters (and words) are uniform.
@Suite("Generator: password uniformity")
struct GeneratorUniformityTests {
    /// Upper critical value of the chi-square distribution with `degrees` degrees of
    /// freedom at tail probability p, by the Wilson–Hilferty approximation; `z` is the
    /// standard normal quantile for p.
    static func chiSquareCritical(degrees: Int, z: Double) -> Double {
        let k = Double(degrees)
        let term = 1 - 2 / (9 * k) + z * (2 / (9 * k)).squareRoot()
        return k * term * term * term
    }
    /// z for p = 10^-6 (deterministic seeded streams: the statistic is fixed, this is a margin).
    static let zOneInAMillion = 4.753424
    /// z for p = 10^-9 (the operating system's source: a false alarm is practically impossible).
    static let zOneInABillion = 5.997807

    static func chiSquare(_ counts: [Int]) -> Double {
        let total = Double(counts.reduce(0, +))
        let expected = total / Double(counts.count)
        return counts.reduce(0.0) { sum, observed in
            let difference = Double(observed) - expected
            return sum + difference * difference / expected
        }
    }

    /// Counts of each alphabet character over `characters` generated characters.
    static func characterCounts<Source: RandomSource>(_ generator: PasswordGenerator, characters: Int,
                                                      pool: inout RandomBytePool<Source>) throws -> [Int] {
        let length = generator.policy.length
        let passwords = (characters + length - 1) / length
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: passwords * length, alignment: 1)
        defer { buffer.initializeMemory(as: UInt8.self, repeating: 0); buffer.deallocate() }
        _ = try generator.generate(into: buffer, using: &pool)
        var index = [Int](repeating: -1, count: 256)
        for (position, byte) in generator.alphabet.characters.enumerated() { index[Int(byte)] = position }
        var counts = [Int](repeating: 0, count: generator.alphabet.characters.count)
        for byte in buffer { counts[index[Int(byte)]] += 1 }
        return counts
    }

    @Test("200,000 characters are uniform over the alphabet (seeded stream)", arguments: [
        PasswordPolicy(),                                                         // 94 characters
        PasswordPolicy(includeLowercase: false, includeUppercase: false, includeSymbols: false),   // 10
        PasswordPolicy(includeUppercase: false, includeSymbols: false),           // 36
        PasswordPolicy(includeDigits: false, includeSymbols: false, excludeLookAlikes: true),      // 49
        PasswordPolicy(length: 17, includeLowercase: false, includeUppercase: false, includeSymbols: false,
                       customCharacters: "!@#$%^&*"),                             // 18
    ])
    func charactersAreUniform(policy: PasswordPolicy) throws {
        let generator = try PasswordGenerator(policy: policy)
        var pool = try RandomBytePool(source: SeededRandom(seed: UInt64(generator.characters.count)))
        let counts = try Self.characterCounts(generator, characters: 200_000, pool: &pool)
        #expect(counts.reduce(0, +) >= 200_000)
        let statistic = Self.chiSquare(counts)
        let critical = Self.chiSquareCritical(degrees: counts.count - 1, z: Self.zOneInAMillion)
        #expect(statistic < critical, "chi-square \(statistic) over \(counts.count) characters, critical \(critical)")
    }

    @Test("200,000 characters from the operating system's source are uniform")
    func systemSourceIsUniform() throws {
        let generator = try PasswordGenerator()
        var pool = try RandomBytePool(source: SystemRandomSource())
        let counts = try Self.characterCounts(generator, characters: 200_000, pool: &pool)
        let statistic = Self.chiSquare(counts)
        #expect(statistic < Self.chiSquareCritical(degrees: 93, z: Self.zOneInABillion))
    }

    @Test("The chi-square test does catch modulo bias (byte % 94), so it can fail")
    func detectsModuloBias() throws {
        let source = SeededRandom(seed: 94)
        let bytes = source.bytes(200_000)
        var counts = [Int](repeating: 0, count: 94)
        for byte in bytes { counts[Int(byte) % 94] += 1 }
        #expect(Self.chiSquare(counts) > Self.chiSquareCritical(degrees: 93, z: Self.zOneInAMillion))
    }

    @Test("With requireEachClass every valid password is equally likely")
    func requireEachClassIsUniformOverValidPasswords() throws {
        // Alphabet {0, 1, a, b}, length 4, at least one digit and one letter:
        // 4^4 − 2^4 − 2^4 = 224 valid passwords.
        let policy = PasswordPolicy(length: 4, includeUppercase: false, includeSymbols: false,
                                    excludedCharacters: "23456789cdefghijklmnopqrstuvwxyz", requireEachClass: true)
        let generator = try PasswordGenerator(policy: policy)
        #expect(generator.characters == "01ab")
        #expect(generator.alphabet.passwordCount().description == "224")
        let samples = 224 * 200
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: samples * 4, alignment: 1)
        defer { buffer.deallocate() }
        var pool = try RandomBytePool(source: SeededRandom(seed: 224))
        _ = try generator.generate(into: buffer, using: &pool)
        var counts: [[UInt8]: Int] = [:]
        for index in 0..<samples { counts[Array(buffer[(index * 4)..<(index * 4 + 4)]), default: 0] += 1 }
        #expect(counts.count == 224)
        let statistic = Self.chiSquare(Array(counts.values))
        #expect(statistic < Self.chiSquareCritical(degrees: 223, z: Self.zOneInAMillion))
    }

    @Test("Word picks (rejection sampling over 32-bit draws) are uniform")
    func wordPicksAreUniform() throws {
        var pool = try RandomBytePool(source: SeededRandom(seed: 3000))
        var counts = [Int](repeating: 0, count: 3000)
        for _ in 0..<300_000 { counts[Int(try pool.uniform(below: 3000))] += 1 }
        #expect(Self.chiSquare(counts) < Self.chiSquareCritical(degrees: 2999, z: Self.zOneInAMillion))
        #expect(try pool.uniform(below: 1) == 0)
    }
}

import Foundation
import Testing
@testable import CofferGenerator

/// Entropy values, checked against exact counts.
@Suite("Generator: exact password entropy")
struct GeneratorEntropyTests {
    static func close(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool { abs(a - b) <= tolerance }

    @Test("Known configurations without requirements: length × log2(n)")
    func withoutRequirements() throws {
        #expect(Self.close(try PasswordGenerator().entropyBits, 20 * log2(94.0)))
        let digits = PasswordPolicy(length: 4, includeLowercase: false, includeUppercase: false, includeSymbols: false)
        #expect(Self.close(try PasswordGenerator(policy: digits).entropyBits, log2(10_000.0)))
        let alnum = PasswordPolicy(length: 16, includeSymbols: false, excludeLookAlikes: true)   // 62 − 5 = 57
        #expect(Self.close(try PasswordGenerator(policy: alnum).entropyBits, 16 * log2(57.0)))
        #expect(Self.close(try PasswordGenerator(policy: PasswordPolicy(length: 1024)).entropyBits, 1024 * log2(94.0), tolerance: 1e-6))
    }

    @Test("Known configurations with requirements, as exact integers")
    func withRequirements() throws {
        // Lowercase and digits, length 4: 36^4 − 26^4 − 10^4.
        let lowerDigits = try PasswordGenerator(policy: PasswordPolicy(
            length: 4, includeUppercase: false, includeSymbols: false, requireEachClass: true))
        #expect(lowerDigits.alphabet.passwordCount().description == "1212640")
        #expect(Self.close(lowerDigits.entropyBits, log2(1_212_640.0)))

        // All four classes, length 20 (computed independently by inclusion–exclusion in Python).
        let all = try PasswordGenerator(policy: PasswordPolicy(requireEachClass: true))
        #expect(all.alphabet.passwordCount().description == "2585908648140078948280078326668093030400")
        #expect(Self.close(all.entropyBits, 130.92586701086623, tolerance: 1e-9))

        // Length 1024: missing a class is astronomically unlikely, so the entropy is just
        // below 1024 × log2(94), and the exact count has 2021 decimal digits.
        let long = try PasswordGenerator(policy: PasswordPolicy(length: 1024, requireEachClass: true))
        #expect(long.entropyBits <= 1024 * log2(94.0))
        #expect(Self.close(long.entropyBits, 1024 * log2(94.0), tolerance: 1e-6))
        #expect(long.alphabet.passwordCount().description.count == 2021)
    }

    @Test("The count with requirements equals brute-force enumeration", arguments: [
        // (policy, length): small alphabets so every string can be enumerated.
        PasswordPolicy(length: 5, includeUppercase: false, includeSymbols: false,
                       excludedCharacters: "3456789defghijklmnopqrstuvwxyz", requireEachClass: true),  // {0,1,2}{a,b,c}
        PasswordPolicy(length: 4, includeSymbols: false,
                       excludedCharacters: "23456789cdefghijklmnopqrstuvwxyzCDEFGHIJKLMNOPQRSTUVWXYZ",
                       requireEachClass: true),                                                   // 3 classes of 2
        PasswordPolicy(length: 6, includeLowercase: false, includeUppercase: false, includeSymbols: false,
                       customCharacters: "!", excludedCharacters: "56789", requireEachClass: true), // {0..4} + {!}
    ])
    func matchesEnumeration(policy: PasswordPolicy) throws {
        let alphabet = try PasswordAlphabet(policy: policy)
        let characters = alphabet.characters
        let n = characters.count
        var total = 1
        for _ in 0..<policy.length { total *= n }
        var valid = 0
        for code in 0..<total {
            var rest = code
            var seen = Set<String>()
            for _ in 0..<policy.length {
                let byte = characters[rest % n]
                rest /= n
                for group in alphabet.requiredGroups where group.bytes.contains(byte) { seen.insert(group.name) }
            }
            if seen.count == alphabet.requiredGroups.count { valid += 1 }
        }
        #expect(alphabet.passwordCount().description == String(valid))
        #expect(Self.close(alphabet.entropyBits, log2(Double(valid))))
    }

    @Test("Big integer arithmetic")
    func bigIntegers() {
        #expect(BigUnsignedInteger.power(2, 64).description == "18446744073709551616")
        #expect(BigUnsignedInteger.power(10, 40).description == "1" + String(repeating: "0", count: 40))
        #expect(BigUnsignedInteger.power(94, 0).description == "1")
        #expect(BigUnsignedInteger.power(0, 5).isZero)
        var a = BigUnsignedInteger.power(2, 130)
        a.subtract(BigUnsignedInteger(1))
        #expect(a.description == "1361129467683753853853498429727072845823")
        a.add(BigUnsignedInteger(1))
        #expect(a == BigUnsignedInteger.power(2, 130))
        #expect(abs(a.log2 - 130) < 1e-12)
        #expect(abs(BigUnsignedInteger.power(3, 1000).log2 - 1000 * log2(3.0)) < 1e-9)
        #expect(BigUnsignedInteger(5) < BigUnsignedInteger.power(2, 64))
    }
}

import Foundation

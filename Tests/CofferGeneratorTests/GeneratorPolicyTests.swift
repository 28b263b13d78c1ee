import Foundation
import Testing
@testable import CofferGenerator
import CofferTestSupport

/// Password policies: validation, the alphabet they produce, and that generated
/// passwords obey them.
@Suite("Generator: password policies")
struct GeneratorPolicyTests {
    static func bytes(_ secret: SecureBytes) -> [UInt8] { secret.withUnsafeBytes { Array($0) } }

    /// Whether `error` is a ``CofferError`` of `kind`.
    static func isKind(_ kind: CofferError.Kind) -> (any Error) -> Bool {
        { ($0 as? CofferError)?.kind == kind }
    }

    @Test("The default policy: 20 characters from all 94 printable ASCII characters")
    func defaults() throws {
        let generator = try PasswordGenerator()
        #expect(generator.policy.length == 20)
        #expect(generator.characters.count == 94)
        #expect(generator.characters.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) })
        let password = Self.bytes(try generator.generate())
        #expect(password.count == 20)
        #expect(password.allSatisfy { (0x21...0x7E).contains($0) })
        #expect(CharacterClass.symbols.characters.count == 32)
    }

    @Test("Classes, custom characters, exclusions and look-alikes shape the alphabet")
    func alphabet() throws {
        let digits = try PasswordGenerator(policy: PasswordPolicy(
            includeLowercase: false, includeUppercase: false, includeSymbols: false))
        #expect(digits.characters == "0123456789")

        let noLookAlikes = try PasswordGenerator(policy: PasswordPolicy(excludeLookAlikes: true))
        #expect(noLookAlikes.characters.count == 94 - 6)
        for character in PasswordPolicy.lookAlikeCharacters { #expect(!noLookAlikes.characters.contains(character)) }

        let custom = try PasswordGenerator(policy: PasswordPolicy(
            includeUppercase: false, includeSymbols: false, customCharacters: "!@#a", excludedCharacters: "xyz@"))
        // 'a' is already lowercase, '@' is excluded: the custom class is "!#".
        #expect(custom.characters == "!#0123456789abcdefghijklmnopqrstuvw")
        #expect(custom.alphabet.groups.map(\.name) == ["lowercase", "digits", "custom"])
    }

    @Test("Impossible policies throw invalidGeneratorPolicy", arguments: [
        PasswordPolicy(length: 3),
        PasswordPolicy(length: 1025),
        PasswordPolicy(includeLowercase: false, includeUppercase: false, includeDigits: false, includeSymbols: false),
        PasswordPolicy(includeLowercase: false, includeUppercase: false, includeSymbols: false, excludedCharacters: "012345678"),
        PasswordPolicy(customCharacters: "é"),
        PasswordPolicy(customCharacters: " "),
        PasswordPolicy(includeUppercase: false, includeSymbols: false, excludedCharacters: "0123456789", requireEachClass: true),
    ])
    func rejectsImpossible(policy: PasswordPolicy) throws {
        #expect { try policy.validate() } throws: { Self.isKind(.invalidGeneratorPolicy)($0) }
        #expect { _ = try PasswordGenerator(policy: policy) } throws: { Self.isKind(.invalidGeneratorPolicy)($0) }
    }

    @Test("Edge policies that are valid")
    func edgePolicies() throws {
        // Four required classes fit in the shortest length.
        #expect(throws: Never.self) { try PasswordPolicy(length: 4, requireEachClass: true).validate() }
        #expect(throws: Never.self) { try PasswordPolicy(length: 1024, requireEachClass: true).validate() }
        // An emptied class is simply dropped when it is not required.
        let noDigitsLeft = PasswordPolicy(excludedCharacters: "0123456789")
        #expect(try PasswordGenerator(policy: noDigitsLeft).characters.count == 84)
        // Custom characters alone are enough.
        let custom = PasswordPolicy(includeLowercase: false, includeUppercase: false, includeDigits: false,
                                    includeSymbols: false, customCharacters: "ab")
        #expect(try PasswordGenerator(policy: custom).characters == "ab")
    }

    @Test("10,000 generated passwords satisfy their policy", arguments: [
        PasswordPolicy(),
        PasswordPolicy(length: 4, requireEachClass: true),
        PasswordPolicy(length: 12, includeSymbols: false, excludeLookAlikes: true, requireEachClass: true),
        PasswordPolicy(length: 8, includeLowercase: false, includeUppercase: false, includeSymbols: false,
                       customCharacters: "!#%", excludedCharacters: "9", requireEachClass: true),
        PasswordPolicy(length: 33, includeUppercase: false, excludedCharacters: "abc{}", requireEachClass: false),
    ])
    func passwordsObeyPolicy(policy: PasswordPolicy) throws {
        let generator = try PasswordGenerator(policy: policy)
        let allowed = Set(generator.characters.utf8)
        let groups = generator.alphabet.groups
        let excluded = Set(policy.excludedCharacters.utf8)
            .union(policy.excludeLookAlikes ? Set(PasswordPolicy.lookAlikeCharacters.utf8) : [])
        let count = 10_000
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count * policy.length, alignment: 1)
        defer { buffer.initializeMemory(as: UInt8.self, repeating: 0); buffer.deallocate() }
        #expect(try generator.generate(into: buffer) == count)
        var failures = 0
        for index in 0..<count {
            let password = Array(buffer[(index * policy.length)..<((index + 1) * policy.length)])
            var ok = password.allSatisfy { allowed.contains($0) && !excluded.contains($0) }
            if policy.requireEachClass {
                ok = ok && groups.allSatisfy { group in password.contains(where: group.bytes.contains) }
            }
            if !ok { failures += 1 }
        }
        #expect(failures == 0)
    }

    @Test("generate(), generate(count:) and generateString() follow the policy")
    func otherEntryPoints() throws {
        let policy = PasswordPolicy(length: 16, includeSymbols: false, requireEachClass: true)
        let generator = try PasswordGenerator(policy: policy)
        let many = try generator.generate(count: 50)
        #expect(many.count == 50)
        #expect(Set(many.map(Self.bytes)).count == 50)
        let string = try generator.generateString()
        #expect(string.count == 16)
        #expect(string.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(string.contains(where: \.isUppercase) && string.contains(where: \.isLowercase)
                && string.contains(where: \.isNumber))
        #expect(try generator.generate(count: 0).isEmpty)
        #expect { _ = try generator.generate(count: -1) } throws: { Self.isKind(.invalidArgument)($0) }
    }

    @Test("The bulk path rejects a buffer that is not a multiple of the length")
    func bulkBufferSize() throws {
        let generator = try PasswordGenerator()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 30, alignment: 1)
        defer { buffer.deallocate() }
        #expect { _ = try generator.generate(into: buffer) } throws: { Self.isKind(.invalidArgument)($0) }
    }

    @Test("A seeded source is reproducible; the system source is not")
    func seededSource() throws {
        let generator = try PasswordGenerator()
        var first = try RandomBytePool(source: SeededRandom(seed: 7))
        var second = try RandomBytePool(source: SeededRandom(seed: 7))
        var other = try RandomBytePool(source: SeededRandom(seed: 8))
        let a = try (0..<5).map { _ in Self.bytes(try generator.generate(using: &first)) }
        let b = try (0..<5).map { _ in Self.bytes(try generator.generate(using: &second)) }
        let c = try (0..<5).map { _ in Self.bytes(try generator.generate(using: &other)) }
        #expect(a == b)
        #expect(a != c)
        #expect(Set(a).count == 5)
        #expect(Self.bytes(try generator.generate()) != Self.bytes(try generator.generate()))
    }

    @Test("Policies round-trip through Codable")
    func codable() throws {
        let policy = PasswordPolicy(length: 42, includeSymbols: false, customCharacters: "!?",
                                    excludedCharacters: "x", excludeLookAlikes: true, requireEachClass: true)
        let data = try JSONEncoder().encode(policy)
        #expect(try JSONDecoder().decode(PasswordPolicy.self, from: data) == policy)
    }
}

import Foundation

import CofferCrypto
import Foundation
/// What a generated password may contain.
///
/// The default is 20 characters drawn from all four classes (lowercase, uppercase,
/// digits, symbols). Characters are printable ASCII, so the length in characters is
/// also the length in bytes.
///
/// ```swift
/// var policy = PasswordPolicy()            // 20 characters, all classes
/// policy.length = 32
/// policy.includeSymbols = false
/// policy.excludeLookAlikes = true          // no 0 O 1 l I |
/// policy.requireEachClass = true           // at least one of each chosen class
/// try policy.validate()
/// let password = try PasswordGenerator(policy: policy).generate()
/// ```
public struct PasswordPolicy: Sendable, Hashable, Codable {
    /// Allowed lengths: 4 to 1024 characters.
    public static let lengthRange: ClosedRange<Int> = 4...1024
    /// The default length, 20 characters.
    public static let defaultLength = 20
    /// The characters that ``excludeLookAlikes`` removes: `0O1lI|`.
    public static let lookAlikeCharacters = "0O1lI|"

    /// Number of characters, within ``lengthRange``.
    public var length: Int
    /// Use `a` to `z`.
    public var includeLowercase: Bool
    /// Use `A` to `Z`.
    public var includeUppercase: Bool
    /// Use `0` to `9`.
    public var includeDigits: Bool
    /// Use the 32 ASCII punctuation characters (see ``CharacterClass/symbols``).
    public var includeSymbols: Bool
    /// Extra printable ASCII characters to choose from. Those not already in a chosen
    /// class form a class of their own (which ``requireEachClass`` also requires).
    public var customCharacters: String
    /// Characters never to use, whatever the classes say.
    public var excludedCharacters: String
    /// Leave out characters that are easy to confuse: ``lookAlikeCharacters``.
    public var excludeLookAlikes: Bool
    /// Every chosen class must appear at least once. The generator meets this by drawing
    /// whole passwords again until one qualifies, so the result stays uniform over all
    /// qualifying passwords (as 1Password's generator does).
    public var requireEachClass: Bool

    /// A policy; every argument has the default used by `coffer generate`.
    public init(
        length: Int = PasswordPolicy.defaultLength,
        includeLowercase: Bool = true,
        includeUppercase: Bool = true,
        includeDigits: Bool = true,
        includeSymbols: Bool = true,
        customCharacters: String = "",
        excludedCharacters: String = "",
        excludeLookAlikes: Bool = false,
        requireEachClass: Bool = false
    ) {
        self.length = length
        self.includeLowercase = includeLowercase
        self.includeUppercase = includeUppercase
        self.includeDigits = includeDigits
        self.includeSymbols = includeSymbols
        self.customCharacters = customCharacters
        self.excludedCharacters = excludedCharacters
        self.excludeLookAlikes = excludeLookAlikes
        self.requireEachClass = requireEachClass
    }

    /// Throws ``CofferError/Kind/invalidGeneratorPolicy`` when no password can satisfy the policy:
    /// a length outside ``lengthRange``, custom characters that are not printable ASCII,
    /// fewer than 2 characters left to choose from, or (with ``requireEachClass``) a chosen
    /// class left empty by exclusions or more classes than characters.
    ///
    /// ```swift
    /// let policy = PasswordPolicy(length: 3)
    /// try policy.validate()   // throws: length must be 4 to 1024
    /// ```
    public func validate() throws(CofferError) {
        _ = try PasswordAlphabet(policy: self)
    }
}

/// A validated policy resolved into the tables the generator's inner loop uses.
struct PasswordAlphabet: Sendable, Hashable {
    /// A set of characters that `requireEachClass` asks for; groups are disjoint.
    struct Group: Sendable, Hashable {
        let name: String
        let bytes: [UInt8]
    }

    let length: Int
    /// Every character that may appear, ascending.
    let characters: [UInt8]
    /// The classes that must each appear (empty unless `requireEachClass`).
    let requiredGroups: [Group]
    /// All non-empty groups, for reporting and the entropy formula.
    let groups: [Group]
    /// Random byte -> output character, or 0 for a byte that must be rejected.
    /// Byte b < 256 - (256 mod n) maps to characters[b mod n], so every character has
    /// exactly floor(256 / n) preimages: the pick is uniform.
    let pickTable: [UInt8]
    /// Output character -> bit of its required group (0 if none).
    let groupBit: [UInt8]
    /// The OR of all required groups' bits.
    let requiredMask: UInt8

    init(policy: PasswordPolicy) throws(CofferError) {
        guard PasswordPolicy.lengthRange.contains(policy.length) else {
            throw .invalidGeneratorPolicy("password length must be \(PasswordPolicy.lengthRange.lowerBound) to "
                                   + "\(PasswordPolicy.lengthRange.upperBound), got \(policy.length)")
        }
        var customBytes: [UInt8] = []
        for scalar in policy.customCharacters.unicodeScalars {
            guard (0x21...0x7E).contains(scalar.value) else {
                throw .invalidGeneratorPolicy("custom characters must be printable ASCII (U+0021 to U+007E)")
            }
            customBytes.append(UInt8(scalar.value))
        }
        var excluded = [Bool](repeating: false, count: 256)
        for scalar in policy.excludedCharacters.unicodeScalars where scalar.value < 128 {
            excluded[Int(scalar.value)] = true
        }
        if policy.excludeLookAlikes {
            for byte in PasswordPolicy.lookAlikeCharacters.utf8 { excluded[Int(byte)] = true }
        }

        let chosen: [(CharacterClass, Bool)] = [
            (.lowercase, policy.includeLowercase), (.uppercase, policy.includeUppercase),
            (.digits, policy.includeDigits), (.symbols, policy.includeSymbols),
        ]
        var taken = [Bool](repeating: false, count: 256)
        var groups: [Group] = []
        var required: [Group] = []
        for (characterClass, isOn) in chosen where isOn {
            let bytes = characterClass.bytes.filter { !excluded[Int($0)] }
            for byte in bytes { taken[Int(byte)] = true }
            if bytes.isEmpty {
                if policy.requireEachClass {
                    throw .invalidGeneratorPolicy("requireEachClass: the exclusions leave no \(characterClass) characters")
                }
                continue
            }
            let group = Group(name: characterClass.rawValue, bytes: bytes)
            groups.append(group)
            if policy.requireEachClass { required.append(group) }
        }
        // Custom characters already in a chosen class add nothing; the rest form a class.
        var custom: [UInt8] = []
        for byte in customBytes where !excluded[Int(byte)] && !taken[Int(byte)] {
            taken[Int(byte)] = true
            custom.append(byte)
        }
        if !custom.isEmpty {
            let group = Group(name: "custom", bytes: custom.sorted())
            groups.append(group)
            if policy.requireEachClass { required.append(group) }
        }

        let characters = (0..<256).filter { taken[$0] }.map { UInt8($0) }
        guard characters.count >= 2 else {
            throw .invalidGeneratorPolicy("the policy leaves \(characters.count) character(s) to choose from; at least 2 are needed")
        }
        guard required.count <= policy.length else {
            throw .invalidGeneratorPolicy("requireEachClass needs \(required.count) characters but the length is \(policy.length)")
        }

        let n = characters.count
        let accepted = 256 - 256 % n
        var pickTable = [UInt8](repeating: 0, count: 256)
        for byte in 0..<accepted { pickTable[byte] = characters[byte % n] }
        var groupBit = [UInt8](repeating: 0, count: 256)
        var requiredMask: UInt8 = 0
        for (index, group) in required.enumerated() {
            let bit = UInt8(1) << UInt8(index)
            requiredMask |= bit
            for byte in group.bytes { groupBit[Int(byte)] = bit }
        }

        self.length = policy.length
        self.characters = characters
        self.groups = groups
        self.requiredGroups = required
        self.pickTable = pickTable
        self.groupBit = groupBit
        self.requiredMask = requiredMask
    }

    /// Exactly how many passwords the policy allows.
    ///
    /// Without requirements it is n^L (n characters, length L). With requirements it
    /// counts strings that miss no required group, by inclusion–exclusion over the
    /// required groups G (disjoint, sizes |g|):
    ///
    ///     N = Σ_{S ⊆ G} (-1)^|S| · (n − Σ_{g ∈ S} |g|)^L
    ///
    /// The positive and negative terms are summed separately in exact integers, so
    /// nothing cancels in floating point even for L = 1024.
    func passwordCount() -> BigUnsignedInteger {
        let n = characters.count
        let k = requiredGroups.count
        var positive = BigUnsignedInteger(0)
        var negative = BigUnsignedInteger(0)
        for subset in 0..<(1 << k) {
            var removed = 0
            for index in 0..<k where subset & (1 << index) != 0 {
                removed += requiredGroups[index].bytes.count
            }
            let term = BigUnsignedInteger.power(UInt64(n - removed), length)
            if subset.nonzeroBitCount % 2 == 0 { positive.add(term) } else { negative.add(term) }
        }
        // positive >= negative always: the difference counts strings.
        positive.subtract(negative)
        return positive
    }

    /// log2 of ``passwordCount()``.
    var entropyBits: Double {
        if requiredGroups.isEmpty {
            return Double(length) * log2(Double(characters.count))
        }
        return passwordCount().log2
    }
}

import CofferCrypto
import Foundation
/// Generates passphrases: words chosen uniformly and independently from a ``Wordlist``.
///
/// Each word is an unbiased pick (rejection sampling over 32-bit draws from the
/// operating system's cryptographic source). The initialiser checks that different
/// word choices always give different texts for this list and separator, so
/// ``entropyBits`` is exact.
///
/// ```swift
/// let generator = try PassphraseGenerator()                 // 6 EFF words, "-"
/// let phrase = try generator.generate()                     // SecureBytes
/// generator.entropyBits                                     // 77.54...
///
/// let custom = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 4, separator: " "),
///                                      wordlist: Wordlist(contentsOf: "words.txt"))
/// ```
public struct PassphraseGenerator: Sendable {
    /// The policy this generator follows.
    public let policy: PassphrasePolicy
    /// The list words are drawn from.
    public let wordlist: Wordlist

    /// Every word in its final case, as UTF-8, back to back; word i is
    /// `wordBytes[wordStarts[i]..<wordStarts[i + 1]]`.
    private let wordBytes: [UInt8]
    private let wordStarts: [Int]
    private let separatorBytes: [UInt8]

    /// A generator over the EFF large wordlist.
    ///
    /// ```swift
    /// let generator = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 7))
    /// ```
    public init(policy: PassphrasePolicy = PassphrasePolicy()) throws(CofferError) {
        try self.init(policy: policy, wordlist: Wordlist.effLarge)
    }

    /// A generator over `wordlist`. Throws ``CofferError/Kind/invalidGeneratorPolicy`` when the
    /// word count is out of range, or when the separator, the case or the number could
    /// make two different choices of words read the same (see ``PassphrasePolicy/separator``).
    ///
    /// ```swift
    /// let list = try Wordlist(words: ["alpha", "bravo", "charlie", "delta"])
    /// let generator = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 3), wordlist: list)
    /// generator.entropyBits   // 6.0
    /// ```
    public init(policy: PassphrasePolicy = PassphrasePolicy(), wordlist: Wordlist) throws(CofferError) {
        guard PassphrasePolicy.wordCountRange.contains(policy.wordCount) else {
            throw .invalidGeneratorPolicy("word count must be \(PassphrasePolicy.wordCountRange.lowerBound) to "
                                   + "\(PassphrasePolicy.wordCountRange.upperBound), got \(policy.wordCount)")
        }
        let separator = Array(policy.separator.unicodeScalars)
        guard separator.count <= PassphrasePolicy.maximumSeparatorLength else {
            throw .invalidGeneratorPolicy("the separator is longer than \(PassphrasePolicy.maximumSeparatorLength) characters")
        }
        guard !separator.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil
                                          || $0.properties.generalCategory == .control }) else {
            throw .invalidGeneratorPolicy("the separator cannot contain letters, digits or control characters")
        }
        let words = wordlist.words.map { Self.applyCase(policy.wordCase, to: $0) }
        try Self.checkUnambiguous(words: words, separator: separator, policy: policy)

        var bytes: [UInt8] = []
        var starts: [Int] = [0]
        starts.reserveCapacity(words.count + 1)
        for word in words {
            bytes.append(contentsOf: word.utf8)
            starts.append(bytes.count)
        }
        self.policy = policy
        self.wordlist = wordlist
        wordBytes = bytes
        wordStarts = starts
        separatorBytes = Array(policy.separator.utf8)
    }

    /// The entropy of one passphrase in bits: `wordCount × log2(list size)`, plus
    /// `log2(10 × wordCount)` with ``PassphrasePolicy/includeNumber`` (which digit, after
    /// which word). Exact, because the initialiser ruled out ambiguous texts.
    ///
    /// ```swift
    /// try PassphraseGenerator().entropyBits   // 6 × log2(7776) = 77.548...
    /// ```
    public var entropyBits: Double {
        let words = Double(policy.wordCount) * log2(Double(wordlist.count))
        return policy.includeNumber ? words + log2(10 * Double(policy.wordCount)) : words
    }

    /// One passphrase in guarded memory (``SecureBytes``), as UTF-8.
    ///
    /// ```swift
    /// let phrase = try PassphraseGenerator().generate()
    /// ```
    public func generate() throws(CofferError) -> SecureBytes {
        // Four bytes per word plus a few for the number; refills cover rejections.
        var pool = try RandomBytePool(source: SystemRandomSource(), capacity: 4 * policy.wordCount + 32)
        return try generate(using: &pool)
    }

    /// One passphrase as a `String`.
    ///
    /// - Important: this copies the passphrase into an ordinary Swift `String`, which can
    ///   neither be wiped nor kept out of swap. Prefer ``generate()`` for anything stored.
    ///
    /// ```swift
    /// print(try PassphraseGenerator().generateString())   // e.g. "ample-cubicle-rover-gauze-rift-stump"
    /// ```
    public func generateString() throws(CofferError) -> String {
        try generate().unsafeStringCopy() ?? ""
    }

    /// `count` passphrases drawn from one random stream.
    ///
    /// ```swift
    /// let three = try PassphraseGenerator().generate(count: 3)
    /// ```
    public func generate(count: Int) throws(CofferError) -> [SecureBytes] {
        guard count >= 0 else { throw .invalidArgument("count must not be negative") }
        var pool = try RandomBytePool(source: SystemRandomSource())
        var phrases: [SecureBytes] = []
        phrases.reserveCapacity(count)
        for _ in 0..<count { phrases.append(try generate(using: &pool)) }
        return phrases
    }

    // MARK: Internals

    /// One passphrase from `pool` (tests inject a seeded pool here).
    func generate<Source: RandomSource>(using pool: inout RandomBytePool<Source>) throws(CofferError) -> SecureBytes {
        let wordCount = policy.wordCount
        var chosen = [Int](repeating: 0, count: wordCount)
        // The indices are the secret; zero them once the bytes are copied out.
        defer { SecureBytes.wipe(&chosen) }
        let listSize = UInt32(wordlist.count)
        for index in 0..<wordCount { chosen[index] = Int(try pool.uniform(below: listSize)) }
        var numberAfter = -1
        var digit = UInt8(0)
        if policy.includeNumber {
            numberAfter = Int(try pool.uniform(below: UInt32(wordCount)))
            digit = UInt8(ascii: "0") + UInt8(try pool.uniform(below: 10))
        }
        var total = separatorBytes.count * (wordCount - 1) + (policy.includeNumber ? 1 : 0)
        for word in chosen { total += wordStarts[word + 1] - wordStarts[word] }

        return try SecureBytes(count: total) { (buffer: UnsafeMutableRawBufferPointer) throws(CofferError) in
            var offset = 0
            func put(_ bytes: ArraySlice<UInt8>) {
                for byte in bytes {
                    buffer[offset] = byte
                    offset += 1
                }
            }
            for (position, word) in chosen.enumerated() {
                if position > 0 { put(separatorBytes[...]) }
                put(wordBytes[wordStarts[word]..<wordStarts[word + 1]])
                if position == numberAfter { put([digit][...]) }
            }
        }
    }

    static func applyCase(_ wordCase: PassphrasePolicy.WordCase, to word: String) -> String {
        switch wordCase {
        case .lowercase: return word.lowercased()
        case .uppercase: return word.uppercased()
        case .capitalized: return word.prefix(1).uppercased() + word.dropFirst().lowercased()
        }
    }

    /// Throws unless every sequence of words maps to a different text, which is what makes
    /// ``entropyBits`` exact. Sufficient conditions, checked in O(total length):
    /// - the cased words are distinct;
    /// - with a number, no word contains an ASCII digit (so the digit is recognisable);
    /// - with an empty separator, each capitalized word has exactly one uppercase letter,
    ///   its first, so word boundaries are the uppercase letters;
    /// - with a separator of several characters, no word contains any of its characters,
    ///   so every separator in the text is a boundary;
    /// - with a one-character separator `c`, words may contain `c` inside (the EFF list
    ///   has `drop-down` and `t-shirt`), as long as the first piece of such a word is
    ///   never a word itself (`drop`, `t` are not; `down`, `shirt` may be) and no such word
    ///   is a piece-by-piece prefix of another. Reading pieces from the left, each word
    ///   start is then either a word or the start of exactly one compound word, so the
    ///   reading is unique.
    static func checkUnambiguous(words: [String], separator: [Unicode.Scalar],
                                 policy: PassphrasePolicy) throws(CofferError) {
        let distinct = Set(words)
        guard distinct.count == words.count else {
            throw .invalidGeneratorPolicy("two words of the list are the same once written in \(policy.wordCase) case")
        }
        if policy.includeNumber {
            if let word = words.first(where: { $0.utf8.contains(where: { (0x30...0x39).contains($0) }) }) {
                throw .invalidGeneratorPolicy("includeNumber needs a word list without digits, but it has \"\(word)\"")
            }
        }
        if separator.isEmpty {
            guard policy.wordCase == .capitalized else {
                throw .invalidGeneratorPolicy("an empty separator needs capitalized words, so that word boundaries stay visible")
            }
            for word in words {
                let scalars = Array(word.unicodeScalars)
                guard let first = scalars.first, first.properties.isUppercase,
                      !scalars.dropFirst().contains(where: { $0.properties.isUppercase }) else {
                    throw .invalidGeneratorPolicy("with an empty separator every word must start with its only capital letter, "
                                           + "but \"\(word)\" does not")
                }
            }
            return
        }
        let separatorSet = Set(separator)
        let compounds = words.filter { $0.unicodeScalars.contains(where: separatorSet.contains) }
        if compounds.isEmpty { return }
        guard separator.count == 1, let mark = separator.first else {
            throw .invalidGeneratorPolicy("the word \"\(compounds[0])\" contains a character of the separator")
        }
        var pieceSequences: [[Substring]] = []
        for word in compounds {
            let pieces = word.unicodeScalars.split(separator: mark, omittingEmptySubsequences: false)
                .map { Substring($0) }
            guard !pieces.contains(where: \.isEmpty) else {
                throw .invalidGeneratorPolicy("the word \"\(word)\" starts, ends or doubles the separator")
            }
            if let first = pieces.first, distinct.contains(String(first)) {
                throw .invalidGeneratorPolicy("the word \"\(word)\" starts with \"\(first)\", itself a word, and the separator")
            }
            pieceSequences.append(pieces)
        }
        // No compound may be a piece-prefix of another (e.g. "a-b" and "a-b-c").
        let sorted = pieceSequences.sorted { $0.lexicographicallyPrecedes($1) }
        for (shorter, longer) in zip(sorted, sorted.dropFirst()) where longer.starts(with: shorter) {
            throw .invalidGeneratorPolicy("the words \"\(shorter.joined(separator: String(mark)))\" and "
                                   + "\"\(longer.joined(separator: String(mark)))\" can be read in two ways")
        }
    }
}

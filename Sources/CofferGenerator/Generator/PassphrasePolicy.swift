import CofferCrypto
/// The shape of a generated passphrase.
///
/// The default is six lowercase words from the EFF large wordlist joined by `-`
/// (about 77.5 bits).
///
/// ```swift
/// var policy = PassphrasePolicy()          // 6 words, "-", lowercase
/// policy.wordCount = 8
/// policy.separator = " "
/// policy.wordCase = .capitalized
/// policy.includeNumber = true              // one digit after one of the words
/// let phrase = try PassphraseGenerator(policy: policy).generateString()
/// // e.g. "Unwind Sketch Mousy Pushover7 Cabbage Lusty Dreamland Ooze"
/// ```
public struct PassphrasePolicy: Sendable, Hashable, Codable {
    /// How each word is written.
    public enum WordCase: String, Sendable, Hashable, Codable, CaseIterable {
        /// `correct-horse`
        case lowercase
        /// `CORRECT-HORSE`
        case uppercase
        /// `Correct-Horse`
        case capitalized
    }

    /// Allowed word counts: 1 to 64.
    public static let wordCountRange: ClosedRange<Int> = 1...64
    /// The default word count, 6 (77.5 bits with the EFF large wordlist).
    public static let defaultWordCount = 6
    /// The longest separator accepted, in Unicode scalars.
    public static let maximumSeparatorLength = 32

    /// Number of words, within ``wordCountRange``.
    public var wordCount: Int
    /// Put between words. It may be empty only with ``WordCase/capitalized`` words, and it
    /// may not contain letters, digits or control characters, so that the words can
    /// always be told apart and the entropy is honest.
    public var separator: String
    /// How each word is written.
    public var wordCase: WordCase
    /// Append one random digit (0–9) to one randomly chosen word, adding
    /// log2(10 × wordCount) bits.
    public var includeNumber: Bool

    /// A policy; every argument has the default used by `coffer passphrase`.
    public init(
        wordCount: Int = PassphrasePolicy.defaultWordCount,
        separator: String = "-",
        wordCase: WordCase = .lowercase,
        includeNumber: Bool = false
    ) {
        self.wordCount = wordCount
        self.separator = separator
        self.wordCase = wordCase
        self.includeNumber = includeNumber
    }
}

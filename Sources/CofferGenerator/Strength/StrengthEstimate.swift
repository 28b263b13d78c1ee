import CofferCrypto
/// How hard a password is to guess, as estimated by ``StrengthEstimator``.
///
/// The estimate models an attacker who tries common passwords, dictionary words (also
/// reversed, in l33t or misspelt), keyboard walks, repeats, sequences and dates before
/// brute force, and counts the guesses the cheapest such attack needs.
///
/// It holds no characters of the password, but ``patterns`` tells where its weak parts
/// are; treat the estimate as private to the person who typed it.
///
/// ```swift
/// let estimate = StrengthEstimator.estimate("Tr0ub4dor&3")
/// estimate.score                    // 2
/// estimate.bits                     // about 26
/// estimate.feedback.warning         // nil, or a sentence such as "This is a very common password."
/// estimate.feedback.suggestions     // ["Add another word or two. Uncommon words are better.", ...]
/// ```
public struct StrengthEstimate: Sendable, Hashable, Codable {
    /// The estimated number of guesses to find the password (at most `Double.greatestFiniteMagnitude`).
    public var guesses: Double
    /// log10 of ``guesses``, exact even where ``guesses`` is capped.
    public var guessesLog10: Double
    /// log2 of ``guesses``: the estimate in bits.
    public var bits: Double
    /// 0 to 4, with zxcvbn's thresholds:
    /// 0 under 10^3 guesses (too guessable), 1 under 10^6 (very guessable),
    /// 2 under 10^8 (somewhat guessable), 3 under 10^10 (safely unguessable),
    /// 4 from 10^10 (very unguessable).
    public var score: Int
    /// What to tell the person choosing the password.
    public var feedback: Feedback
    /// The parts the estimate was built from, in order; together they cover the password.
    public var patterns: [Pattern]

    /// A warning about the weakest part, if any, and short suggestions.
    ///
    /// ```swift
    /// let feedback = StrengthEstimator.estimate("qwerty").feedback
    /// feedback.warning       // "This is a top-10 common password."
    /// ```
    public struct Feedback: Sendable, Hashable, Codable {
        /// One sentence naming the main weakness, or nil.
        public var warning: String?
        /// Short advice, most useful first; empty for strong passwords.
        public var suggestions: [String]

        /// Feedback with a warning (or nil) and suggestions, most useful first.
        public init(warning: String?, suggestions: [String]) {
            self.warning = warning
            self.suggestions = suggestions
        }
    }

    /// One part of the password and how it would be guessed.
    ///
    /// ```swift
    /// for pattern in StrengthEstimator.estimate("qwerty1985").patterns {
    ///     print(pattern.kind, pattern.range)     // dictionary 0..<6 ("qwerty"), then year 6..<10
    /// }
    /// ```
    public struct Pattern: Sendable, Hashable, Codable {
        /// The kind of guessing that finds this part.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// A word from a dictionary (see ``Pattern/dictionary``).
            case dictionary
            /// Adjacent keys on a QWERTY keyboard or a numeric keypad, such as `qwerty` or `asdf`.
            case keyboard
            /// A repeated character or string, such as `aaaa` or `abcabc`.
            case `repeat`
            /// Evenly spaced characters, such as `abcd`, `4321` or `aceg`.
            case sequence
            /// A calendar date, with or without separators, such as `1985-07-19` or `190785`.
            case date
            /// A recent year, such as `1999` or `2024`.
            case year
            /// Nothing recognisable: guessed character by character.
            case bruteforce
        }

        /// The dictionaries the estimator knows.
        public enum Dictionary: String, Sendable, Hashable, Codable, CaseIterable {
            /// The 30,000 most common passwords (from zxcvbn).
            case commonPasswords
            /// About 61,000 English words (from SCOWL).
            case englishWords
            /// The EFF large wordlist that ``PassphraseGenerator`` uses.
            case effWordlist
            /// Words passed as `userInputs`, such as a user name or a site name.
            case userInputs
        }

        /// The kind of pattern.
        public var kind: Kind
        /// Where the part is, in Unicode scalars (characters) from the start.
        public var range: Range<Int>
        /// log10 of the guesses for this part alone.
        public var guessesLog10: Double
        /// For ``Kind/dictionary``: which dictionary.
        public var dictionary: Dictionary?
        /// For ``Kind/dictionary``: the word appears reversed.
        public var isReversed: Bool
        /// For ``Kind/dictionary``: the word appears with l33t substitutions such as `4` for `a`.
        public var isL33t: Bool
        /// For ``Kind/dictionary``: the word appears with one letter left out.
        public var isMisspelt: Bool

        /// A pattern; the dictionary fields apply to ``Kind/dictionary`` only.
        public init(kind: Kind, range: Range<Int>, guessesLog10: Double, dictionary: Dictionary? = nil,
                    isReversed: Bool = false, isL33t: Bool = false, isMisspelt: Bool = false) {
            self.kind = kind
            self.range = range
            self.guessesLog10 = guessesLog10
            self.dictionary = dictionary
            self.isReversed = isReversed
            self.isL33t = isL33t
            self.isMisspelt = isMisspelt
        }
    }
}

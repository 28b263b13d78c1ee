import CofferCrypto
internal import CSodium

/// Estimates how many guesses a password would take, in the manner of Dropbox's zxcvbn.
///
/// It finds every part of the password that a smart attacker would guess cheaply —
/// common passwords, English words and EFF passphrase words (also reversed, in l33t such
/// as `p4ssw0rd`, or with a vowel or doubled letter left out), keyboard walks on QWERTY
/// and the numeric keypad (`qwerty`, `asdf`, `zxcvbn`), repeats (`aaaa`, `abcabc`),
/// sequences (`abcd`, `4321`), dates and recent years — and then picks, by dynamic
/// programming over the string, the cheapest way to cover the whole password with
/// those parts and brute force.
///
/// Only the first ``maximumAnalyzedLength`` characters are analysed; each character
/// after that adds one brute-force character (×10) to the estimate.
///
/// ```swift
/// StrengthEstimator.estimate("password1").score                            // 0
/// StrengthEstimator.estimate("Tr0ub4dor&3").score                          // 2
/// StrengthEstimator.estimate("cubicle-ample-rover-gauze-rift-stump").score // 4
///
/// let secret = try SecureBytes(copying: "hunter2")
/// let estimate = StrengthEstimator.estimate(secret, userInputs: ["alice", "example.com"])
/// ```
public enum StrengthEstimator {
    /// The number of characters (Unicode scalars) analysed for patterns: 256.
    public static let maximumAnalyzedLength = 256

    /// Estimates a password held in guarded memory. Invalid UTF-8 bytes count as one
    /// unknown character each. Temporary copies of the characters are zeroed afterwards.
    ///
    /// - Parameters:
    ///   - password: the password, as UTF-8.
    ///   - userInputs: words the attacker may know, such as the user name, e-mail or
    ///     site name; parts of the password matching them count as very weak.
    public static func estimate(_ password: SecureBytes, userInputs: [String] = []) -> StrengthEstimate {
        var scalars = password.withUnsafeBytes { bytes in decodeScalars(bytes) }
        defer { SecureBytes.wipe(&scalars) }
        return estimate(scalars: scalars, userInputs: userInputs)
    }

    /// Estimates a password given as a `String` (which Swift cannot wipe; prefer the
    /// ``SecureBytes`` overload for real secrets).
    ///
    /// ```swift
    /// let estimate = StrengthEstimator.estimate("qwerty123")
    /// print(estimate.score, estimate.feedback.warning ?? "")   // 0 This is a very common password.
    /// ```
    public static func estimate(_ password: String, userInputs: [String] = []) -> StrengthEstimate {
        var scalars = password.unicodeScalars.map(\.value)
        defer { SecureBytes.wipe(&scalars) }
        return estimate(scalars: scalars, userInputs: userInputs)
    }

    // MARK: Internals

    static func estimate(scalars: [UInt32], userInputs: [String]) -> StrengthEstimate {
        var dictionaries = RankedDictionary.bundled
        if let inputs = RankedDictionary.userInputs(userInputs) { dictionaries.append(inputs) }
        let matcher = DictionaryMatcher(dictionaries: dictionaries)

        var analysed = Array(scalars.prefix(maximumAnalyzedLength))
        defer { SecureBytes.wipe(&analysed) }
        let result = analyse(analysed, matcher: matcher)

        var guessesLog10 = result.guessesLog10
        var patterns = result.sequence.map { entry in pattern(entry.match, guessesLog10: entry.guessesLog10) }
        let rest = scalars.count - analysed.count
        if rest > 0 {
            // Beyond the analysed prefix: one more brute-force part.
            let restLog10 = Double(rest) * log10(GuessEstimates.bruteforceCardinality)
            guessesLog10 += restLog10
            patterns.append(.init(kind: .bruteforce, range: analysed.count..<scalars.count, guessesLog10: restLog10))
        }
        let guesses = guessesLog10 < log10(Double.greatestFiniteMagnitude)
            ? pow(10, guessesLog10) : Double.greatestFiniteMagnitude
        let score = Self.score(guesses: guesses)
        return StrengthEstimate(
            guesses: guesses,
            guessesLog10: guessesLog10,
            bits: guessesLog10 * log2(10),
            score: score,
            feedback: StrengthFeedback.make(score: score, sequence: result.sequence, password: analysed),
            patterns: patterns)
    }

    /// All matches and the cheapest cover of `password` (also used, recursively, for the
    /// unit of a repeat).
    static func analyse(_ password: [UInt32], matcher: DictionaryMatcher) -> MatchSequenceSearch.Result {
        var lower = password.map(lowercaseScalar)
        defer { SecureBytes.wipe(&lower) }
        var matches = matcher.matches(lowercased: lower)
        matches += KeyboardMatcher.matches(password)
        matches += SequenceMatcher.matches(password)
        matches += DateMatcher.yearMatches(password)
        matches += DateMatcher.dateMatches(password)
        matches += RepeatMatcher.matches(password) { unit in
            analyse(unit, matcher: matcher).guessesLog10
        }
        return MatchSequenceSearch.search(password: password, lowercased: lower, matches: matches)
    }

    /// zxcvbn's thresholds, with its small margin (δ = 5) so that exact powers of ten
    /// fall in the lower score.
    static func score(guesses: Double) -> Int {
        let delta = 5.0
        if guesses < 1e3 + delta { return 0 }
        if guesses < 1e6 + delta { return 1 }
        if guesses < 1e8 + delta { return 2 }
        if guesses < 1e10 + delta { return 3 }
        return 4
    }

    private static func pattern(_ match: PasswordMatch, guessesLog10: Double) -> StrengthEstimate.Pattern {
        let range = match.start..<(match.end + 1)
        switch match.pattern {
        case .dictionary(let detail):
            return .init(kind: .dictionary, range: range, guessesLog10: guessesLog10, dictionary: detail.dictionary,
                         isReversed: detail.reversed, isL33t: !detail.l33t.isEmpty, isMisspelt: detail.misspelt)
        case .keyboard: return .init(kind: .keyboard, range: range, guessesLog10: guessesLog10)
        case .repeated: return .init(kind: .repeat, range: range, guessesLog10: guessesLog10)
        case .sequence: return .init(kind: .sequence, range: range, guessesLog10: guessesLog10)
        case .year: return .init(kind: .year, range: range, guessesLog10: guessesLog10)
        case .date: return .init(kind: .date, range: range, guessesLog10: guessesLog10)
        case .bruteforce: return .init(kind: .bruteforce, range: range, guessesLog10: guessesLog10)
        }
    }

    /// UTF-8 to scalar values without making a String; each invalid byte sequence
    /// becomes U+FFFD.
    private static func decodeScalars(_ bytes: UnsafeRawBufferPointer) -> [UInt32] {
        var scalars: [UInt32] = []
        scalars.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        decoding: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar.value)
            case .error: scalars.append(0xFFFD)
            case .emptyInput: break decoding
            }
        }
        return scalars
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

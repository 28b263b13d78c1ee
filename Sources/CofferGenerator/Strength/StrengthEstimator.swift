import CofferCrypto
import Foundation
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
/// A long password is analysed in windows of ``maximumAnalyzedLength`` characters, so the
/// work per window stays bounded. A window that only goes on repeating what came before it
/// (with any period up to a window) costs just the guess of that period, so `"a"` × 300 or
/// `"password"` × 40 rate as weak as their start. After ``maximumAnalyzedWindows`` windows
/// with new content, each further character counts as one brute-force character (×10).
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
    /// The size of one analysis window, in characters (Unicode scalars): 256.
    public static let maximumAnalyzedLength = 256
    /// How many windows with new content are analysed for patterns (16,384 characters): this
    /// bounds the work for any input. Repetition is recognised at any length.
    public static let maximumAnalyzedWindows = 64

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

        var guessesLog10 = 0.0
        var patterns: [StrengthEstimate.Pattern] = []
        var first: MatchSequenceSearch.Result?
        var firstWindow: [UInt32] = []
        defer { SecureBytes.wipe(&firstWindow) }
        var analysedWindows = 0
        var start = 0
        while start < scalars.count {
            let end = min(start + maximumAnalyzedLength, scalars.count)
            if let period = continuedPeriod(scalars, start: start, end: end) {
                // The window goes on repeating what came before it (`"ab"` × 200, a copy of an
                // earlier window): an attacker who guessed the start guesses only the period.
                let log = log10(Double(max(2, period)))
                guessesLog10 += log
                patterns.append(.init(kind: .repeat, range: start..<end, guessesLog10: log))
            } else if analysedWindows < maximumAnalyzedWindows {
                analysedWindows += 1
                var window = Array(scalars[start..<end])
                defer { SecureBytes.wipe(&window) }
                let result = analyse(window, matcher: matcher)
                guessesLog10 += result.guessesLog10
                patterns += result.sequence.map { entry in
                    pattern(entry.match, guessesLog10: entry.guessesLog10, offset: start)
                }
                if first == nil { first = result; firstWindow = Array(scalars[start..<end]) }
            } else {
                // Past the analysed windows: brute force for the rest.
                let restLog10 = Double(scalars.count - start) * log10(GuessEstimates.bruteforceCardinality)
                guessesLog10 += restLog10
                patterns.append(.init(kind: .bruteforce, range: start..<scalars.count, guessesLog10: restLog10))
                break
            }
            start = end
        }
        let result = first ?? analyse([], matcher: matcher)
        if first == nil { guessesLog10 = result.guessesLog10 }
        let guesses = guessesLog10 < log10(Double.greatestFiniteMagnitude)
            ? pow(10, guessesLog10) : Double.greatestFiniteMagnitude
        let score = Self.score(guesses: guesses)
        return StrengthEstimate(
            guesses: guesses,
            guessesLog10: guessesLog10,
            bits: guessesLog10 * log2(10),
            score: score,
            feedback: StrengthFeedback.make(score: score, sequence: result.sequence, password: firstWindow),
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

    /// The smallest period `p` (at most one window) such that every character of
    /// `scalars[start..<end]` equals the one `p` places before it; nil when there is none.
    /// Each period is compared over the whole window, without an early exit.
    static func continuedPeriod(_ scalars: [UInt32], start: Int, end: Int) -> Int? {
        guard start > 0 else { return nil }
        for period in 1...min(start, maximumAnalyzedLength) {
            var difference: UInt32 = 0
            for index in start..<end { difference |= scalars[index] ^ scalars[index - period] }
            if difference == 0 { return period }
        }
        return nil
    }

    private static func pattern(_ match: PasswordMatch, guessesLog10: Double, offset: Int = 0) -> StrengthEstimate.Pattern {
        let range = (offset + match.start)..<(offset + match.end + 1)
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

import Foundation
import Testing
@testable import CofferGenerator
import CofferTestSupport

/// The zxcvbn-style strength estimate.
@Suite("Generator: strength estimator")
struct GeneratorStrengthEstimatorTests {
    static func kinds(_ estimate: StrengthEstimate) -> [StrengthEstimate.Pattern.Kind] { estimate.patterns.map(\.kind) }

    @Test("The shipped dictionaries load")
    func dictionaries() {
        let byName = Dictionary(uniqueKeysWithValues: RankedDictionary.bundled.map { ($0.name, $0.count) })
        #expect(byName[.commonPasswords] == 30_000)
        #expect((60_000...62_000).contains(byName[.englishWords] ?? 0))
        #expect(byName[.effWordlist] == 7776)
    }

    @Test("Well-known weak passwords score low", arguments: [
        ("password1", 0), ("qwerty123", 0), ("Tr0ub4dor&3", 2), ("P@ssw0rd", 0), ("123456", 0),
        ("iloveyou", 0), ("letmein!", 1), ("monkey", 0), ("dragon2024", 1),
    ])
    func weakPasswords(password: String, maximumScore: Int) {
        let estimate = StrengthEstimator.estimate(password)
        #expect(estimate.score <= maximumScore, "\(password): score \(estimate.score), 10^\(estimate.guessesLog10)")
        #expect(estimate.feedback.suggestions.contains(StrengthFeedback.addWord))
    }

    @Test("Tr0ub4dor&3 is found as a l33t, misspelt English word (xkcd 936: about 28 bits)")
    func troubadour() {
        let estimate = StrengthEstimator.estimate("Tr0ub4dor&3")
        #expect(estimate.bits < 30)
        let word = estimate.patterns.first
        #expect(word?.kind == .dictionary && word?.isL33t == true && word?.isMisspelt == true)
        #expect(word?.range == 0..<9)
    }

    @Test("A 6-word passphrase scores high")
    func passphrases() throws {
        #expect(StrengthEstimator.estimate("cubicle-ample-rover-gauze-rift-stump").score == 4)
        #expect(StrengthEstimator.estimate("correct horse battery staple abacus zoom").score == 4)
        var pool = try RandomBytePool(source: SeededRandom(seed: 6))
        let generator = try PassphraseGenerator()
        for _ in 0..<10 {
            let phrase = try generator.generate(using: &pool)
            let estimate = StrengthEstimator.estimate(phrase)
            #expect(estimate.score == 4)
            #expect(estimate.bits > 64)
        }
    }

    @Test("Random generated passwords score high")
    func randomPasswords() throws {
        let generator = try PasswordGenerator(policy: PasswordPolicy(length: 16))
        var pool = try RandomBytePool(source: SeededRandom(seed: 16))
        for _ in 0..<10 {
            #expect(StrengthEstimator.estimate(try generator.generate(using: &pool)).score == 4)
        }
    }

    @Test("Patterns are recognised", arguments: [
        ("abcdefgh", StrengthEstimate.Pattern.Kind.sequence),
        ("98765432", .sequence),
        ("zyxwvuts", .sequence),
        ("aaaaaaaaaa", .repeat),
        ("xkxkxkxkxk", .repeat),
        ("qwertyuiop", .dictionary),   // a top-30 common password: cheaper than the walk
        ("asdfghjkl;", .keyboard),
        ("0olkiujm", .keyboard),       // with four turns
        ("13/07/1989", .date),
        ("19890713", .date),
        ("sunflower", .dictionary),
    ])
    func recognisesPatterns(password: String, kind: StrengthEstimate.Pattern.Kind) {
        let estimate = StrengthEstimator.estimate(password)
        #expect(Self.kinds(estimate) == [kind], "\(password): \(Self.kinds(estimate))")
        #expect(estimate.score <= 2)
    }

    @Test("Each matcher finds its pattern", arguments: [
        ("zxcvfdsa", StrengthEstimate.Pattern.Kind.keyboard),
        ("qwerty", .keyboard),
        ("7896541230", .keyboard),    // numeric keypad
        ("!@#$%^", .keyboard),        // shifted number row
        ("abcd", .sequence),
        ("4321", .sequence),
        ("aceg", .sequence),
        ("zzzz", .repeat),
        ("abcabc", .repeat),
        ("1987", .year),
        ("07.13.89", .date),
        ("1989-07-13", .date),
    ])
    func matchers(password: String, kind: StrengthEstimate.Pattern.Kind) {
        let scalars = password.unicodeScalars.map(\.value)
        let found: [PasswordMatch]
        switch kind {
        case .keyboard: found = KeyboardMatcher.matches(scalars)
        case .sequence: found = SequenceMatcher.matches(scalars)
        case .repeat: found = RepeatMatcher.matches(scalars) { _ in 1 }
        case .year: found = DateMatcher.yearMatches(scalars)
        default: found = DateMatcher.dateMatches(scalars)
        }
        #expect(found.contains { $0.start == 0 && $0.end == scalars.count - 1 }, "\(password)")
        #expect(SequenceMatcher.matches(Array("kq7x".unicodeScalars.map(\.value))).allSatisfy { $0.length == 2 })
        #expect(KeyboardMatcher.matches(Array("qaz".unicodeScalars.map(\.value))).count == 1)
        #expect(KeyboardMatcher.matches(Array("qpz".unicodeScalars.map(\.value))).isEmpty)
        #expect(DateMatcher.dateMatches(Array("99/99/99".unicodeScalars.map(\.value))).isEmpty)
    }

    @Test("Keyboard walks, dates, reversed, l33t and misspelt words inside longer passwords")
    func composite() {
        let walk = StrengthEstimator.estimate("xqwfm#zxcvbgfdsa")
        #expect(walk.patterns.contains { $0.kind == .keyboard && $0.range == 6..<16 })

        let date = StrengthEstimator.estimate("Kqzvxj13.07.1989")
        #expect(date.patterns.last?.kind == .date && date.patterns.last?.range == 6..<16)

        let year = StrengthEstimator.estimate("Kqzvxj1987")
        #expect(year.patterns.last?.kind == .year)

        let reversed = StrengthEstimator.estimate("ecnalabnu")   // "unbalance" backwards
        #expect(reversed.patterns.first?.isReversed == true)

        let l33t = StrengthEstimator.estimate("$unsh1ne")
        #expect(l33t.patterns.first?.isL33t == true)
        #expect(l33t.feedback.suggestions.contains { $0.contains("substitutions") })

        let typo = StrengthEstimator.estimate("elephnt")
        #expect(typo.patterns.first?.isMisspelt == true)
    }

    @Test("Feedback names the weakness")
    func feedback() {
        #expect(StrengthEstimator.estimate("password").feedback.warning == "This is a top-10 common password.")
        #expect(StrengthEstimator.estimate("zxcvbn").feedback.warning != nil)
        #expect(StrengthEstimator.estimate("aaaaaaaa").feedback.warning?.contains("Repeats") == true)
        #expect(StrengthEstimator.estimate("Sunflower").feedback.suggestions.contains("Capitalization doesn't help very much."))
        let strong = StrengthEstimator.estimate("x7#Kq!v9Lm@2zR$w4Tb&")
        #expect(strong.score == 4 && strong.feedback.warning == nil && strong.feedback.suggestions.isEmpty)
        let empty = StrengthEstimator.estimate("")
        #expect(empty.score == 0 && empty.guesses == 1 && empty.patterns.isEmpty && !empty.feedback.suggestions.isEmpty)
    }

    @Test("User inputs count as weak words")
    func userInputs() {
        let without = StrengthEstimator.estimate("Zorbulator77")
        let with = StrengthEstimator.estimate("Zorbulator77", userInputs: ["zorbulator"])
        #expect(with.guessesLog10 < without.guessesLog10 - 3)
        #expect(with.patterns.first?.dictionary == .userInputs)
    }

    @Test("SecureBytes and String give the same estimate; invalid UTF-8 is handled")
    func secureBytes() throws {
        let secret = try SecureBytes(copying: "Tr0ub4dor&3")
        #expect(StrengthEstimator.estimate(secret) == StrengthEstimator.estimate("Tr0ub4dor&3"))
        let invalid = try SecureBytes(copying: [0x61, 0xFF, 0xFE, 0x62])
        let estimate = StrengthEstimator.estimate(invalid)
        #expect(estimate.patterns.last?.range.upperBound == 4)
    }

    @Test("Patterns cover the password, guesses and bits agree, score follows the thresholds")
    func consistency() {
        for password in ["Tr0ub4dor&3", "qwerty1985!", "horse-battery", "ÄÖÜ-straße-2024", "a"] {
            let estimate = StrengthEstimator.estimate(password)
            let count = password.unicodeScalars.count
            var next = 0
            for pattern in estimate.patterns {
                #expect(pattern.range.lowerBound == next)
                next = pattern.range.upperBound
            }
            #expect(next == count)
            #expect(abs(estimate.bits - estimate.guessesLog10 * log2(10)) < 1e-9)
            #expect(abs(log10(estimate.guesses) - estimate.guessesLog10) < 1e-9)
        }
        #expect(StrengthEstimator.score(guesses: 1_000) == 0)
        #expect(StrengthEstimator.score(guesses: 1_006) == 1)
        #expect(StrengthEstimator.score(guesses: 99_999_999) == 2)
        #expect(StrengthEstimator.score(guesses: 1e10 + 6) == 4)
    }

    @Test("Long inputs: 'a' × 300 and 'password' × 40 are weak (the pattern analysis covers the whole input)",
          arguments: [String(repeating: "a", count: 300), String(repeating: "password", count: 40)])
    func longRepeatedWeakInput(_ long: String) {
        let estimate = StrengthEstimator.estimate(long)
        #expect(estimate.score <= 1, "\(long.prefix(12))… × \(long.count) characters rated \(estimate.score)")
        #expect(estimate.patterns.last?.range.upperBound == long.unicodeScalars.count)
        #expect(!estimate.patterns.contains { $0.kind == .bruteforce && $0.range.count > 20 })
    }

    @Test("Long inputs: repeating a password many times adds little more than guessing the period",
          arguments: ["correcthorse", "Tr0ub4dor&3", "x7#Lq9", "password1", String(repeating: "k", count: 255) + "Z"])
    func longRepeatedInput(_ unit: String) {
        let long = String(repeating: unit, count: 2_000 / unit.count + 1)
        let estimate = StrengthEstimator.estimate(long)
        let start = StrengthEstimator.estimate(String(long.prefix(StrengthEstimator.maximumAnalyzedLength)))
        let windows = Double(long.count / StrengthEstimator.maximumAnalyzedLength)
        // Every window after the first costs at most the guess of a period (≤ 256).
        #expect(estimate.guessesLog10 <= start.guessesLog10 + windows * log10(256) + 1e-9)
        #expect(estimate.guesses.isFinite)
        #expect(!estimate.patterns.contains { $0.kind == .bruteforce && $0.range.count > 20 })
    }

    @Test("Long inputs: a long random password stays strong, and a huge one is analysed in bounded windows")
    func longRandomInput() throws {
        let generator = SeededRandom(seed: 7)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#%&*+-=?@^_")
        let random = String((0..<600).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        let estimate = StrengthEstimator.estimate(random)
        #expect(estimate.score == 4)
        #expect(estimate.guessesLog10 > 300)
        // 100,000 characters: 64 windows analysed, the rest brute force; a window that repeats
        // an analysed one anywhere later is still recognised.
        let huge = String((0..<100_000).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
        let hugeEstimate = StrengthEstimator.estimate(huge)
        #expect(hugeEstimate.score == 4)
        #expect(hugeEstimate.patterns.last?.kind == .bruteforce)
        #expect(hugeEstimate.patterns.last?.range.lowerBound == StrengthEstimator.maximumAnalyzedLength * StrengthEstimator.maximumAnalyzedWindows)
    }

    @Test("Estimates round-trip through Codable")
    func codable() throws {
        let estimate = StrengthEstimator.estimate("Tr0ub4dor&3")
        let data = try JSONEncoder().encode(estimate)
        #expect(try JSONDecoder().decode(StrengthEstimate.self, from: data) == estimate)
    }
}

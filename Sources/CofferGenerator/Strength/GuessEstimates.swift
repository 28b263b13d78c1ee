import CofferCrypto
import Foundation
/// How many guesses each kind of match costs an attacker, following zxcvbn's scoring.
/// Results are log10 of the guesses, so that very long passwords cannot overflow.
enum GuessEstimates {
    /// Guesses for one character of brute force.
    static let bruteforceCardinality = 10.0
    /// A match that is part of a longer password costs at least this much, so that
    /// short matches do not fragment the password into many cheap pieces.
    static let minimumSubmatchGuessesSingleCharacter = 10.0
    static let minimumSubmatchGuessesMultiCharacter = 50.0

    /// log10 of the guesses for `match` within a password of `passwordLength` scalars.
    static func log10Guesses(_ match: PasswordMatch, in password: [UInt32], lowercased: [UInt32],
                             passwordLength: Int) -> Double {
        var minimum = 1.0
        if match.length < passwordLength {
            minimum = match.length == 1 ? minimumSubmatchGuessesSingleCharacter : minimumSubmatchGuessesMultiCharacter
        }
        let estimate: Double
        switch match.pattern {
        case .bruteforce:
            estimate = bruteforceLog10(length: match.length)
        case .dictionary(let detail):
            let token = password[match.start...match.end]
            let lowerToken = lowercased[match.start...match.end]
            estimate = log10(Double(detail.rank)) + log10(uppercaseVariations(token))
                + log10(l33tVariations(lowerToken, detail.l33t)) + (detail.reversed ? log10(2) : 0)
        case .keyboard(let kind, let turns, let shifted):
            estimate = log10(keyboardGuesses(kind: kind, length: match.length, turns: turns, shifted: shifted))
        case .repeated(let base, let count, _):
            estimate = base + log10(Double(count))
        case .sequence(let ascending):
            estimate = log10(sequenceGuesses(first: password[match.start], length: match.length, ascending: ascending))
        case .year(let year):
            estimate = log10(Double(max(abs(year - DateMatcher.referenceYear), DateMatcher.minimumYearSpace)))
        case .date(let year, let hasSeparator):
            let space = Double(max(abs(year - DateMatcher.referenceYear), DateMatcher.minimumYearSpace))
            estimate = log10(space * 365 * (hasSeparator ? 4 : 1))
        }
        return max(estimate, log10(minimum))
    }

    /// 10^length, but at least 11 for one character and 51 for more, so that a
    /// brute-force run always costs more than the minimum for a recognised match.
    static func bruteforceLog10(length: Int) -> Double {
        let minimum = length == 1 ? minimumSubmatchGuessesSingleCharacter + 1 : minimumSubmatchGuessesMultiCharacter + 1
        return max(Double(length) * log10(bruteforceCardinality), log10(minimum))
    }

    /// 1 for no capitals; 2 for the usual forms (first, last or all capital); otherwise
    /// the number of ways to capitalise up to min(U, L) of the letters.
    static func uppercaseVariations(_ token: ArraySlice<UInt32>) -> Double {
        let upper = token.lazy.filter(isUppercase).count
        if upper == 0 { return 1 }
        let lower = token.lazy.filter(isLowercase).count
        if let first = token.first, isUppercase(first), token.count > 1, upper == 1 { return 2 }  // Start upper
        if let last = token.last, isUppercase(last), token.count > 1, upper == 1 { return 2 }     // End upper
        if lower == 0 { return 2 }                                                              // All upper
        return choices(upper, lower)
    }

    /// Σ C(a + b, i) for i = 1 … min(a, b): the ways to mark up to min(a, b) of a + b
    /// characters (capitals, substitutions, shifted keys), as zxcvbn counts them.
    static func choices(_ a: Int, _ b: Int) -> Double {
        var total = 0.0
        for i in 1...min(a, b) { total += binomial(a + b, i) }
        return total
    }

    /// For each substitution used: 2 when the token has only substituted (or only plain)
    /// forms of the letter, else the ways to choose which occurrences were substituted.
    static func l33tVariations(_ lowerToken: ArraySlice<UInt32>, _ substitutions: [(character: UInt32, letter: UInt32)]) -> Double {
        var variations = 1.0
        for (character, letter) in substitutions {
            let substituted = lowerToken.lazy.filter { $0 == character }.count
            let plain = lowerToken.lazy.filter { $0 == letter }.count
            if substituted == 0 || plain == 0 {
                variations *= 2
            } else {
                variations *= choices(substituted, plain)
            }
        }
        return variations
    }

    /// zxcvbn's count of keyboard walks up to this length with at most this many turns,
    /// times the ways to place the shifted characters.
    static func keyboardGuesses(kind: KeyboardGraph.Kind, length: Int, turns: Int, shifted: Int) -> Double {
        let graph = kind == .qwerty ? KeyboardGraph.qwerty : KeyboardGraph.keypad
        let starts = graph.startingPositions
        let degree = graph.averageDegree
        var guesses = 0.0
        if length >= 2 {
            for i in 2...length {
                let possibleTurns = min(turns, i - 1)
                guard possibleTurns >= 1 else { continue }
                for j in 1...possibleTurns {
                    guesses += binomial(i - 1, j - 1) * starts * pow(degree, Double(j))
                }
            }
        }
        if shifted > 0 {
            let unshifted = length - shifted
            if unshifted <= 0 {
                guesses *= 2
            } else {
                guesses *= choices(shifted, unshifted)
            }
        }
        return guesses
    }

    /// Obvious starts (a, z, 0, 1, 9) cost 4, digits 10, anything else 26; descending doubles it.
    static func sequenceGuesses(first: UInt32, length: Int, ascending: Bool) -> Double {
        var base: Double
        switch first {
        case 0x61, 0x41, 0x7A, 0x5A, 0x30, 0x31, 0x39: base = 4    // a A z Z 0 1 9
        case 0x30...0x39: base = 10
        default: base = 26
        }
        if !ascending { base *= 2 }
        return base * Double(length)
    }

    static func binomial(_ n: Int, _ k: Int) -> Double {
        if k > n || k < 0 { return 0 }
        if k == 0 { return 1 }
        var result = 1.0
        for d in 1...min(k, n - k) {
            result = result * Double(n - min(k, n - k) + d) / Double(d)
        }
        return result.rounded()
    }

    static func isUppercase(_ scalar: UInt32) -> Bool {
        if scalar < 0x80 { return (0x41...0x5A).contains(scalar) }
        return Unicode.Scalar(scalar)?.properties.isUppercase ?? false
    }

    static func isLowercase(_ scalar: UInt32) -> Bool {
        if scalar < 0x80 { return (0x61...0x7A).contains(scalar) }
        return Unicode.Scalar(scalar)?.properties.isLowercase ?? false
    }
}

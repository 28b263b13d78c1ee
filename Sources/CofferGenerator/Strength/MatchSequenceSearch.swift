import CofferCrypto
import Foundation
/// Finds the sequence of non-overlapping matches covering the password that needs the
/// fewest guesses, with zxcvbn's dynamic program:
///
///     guesses(sequence of l matches) = l! × Π guesses(match) + 10000^(l − 1)
///
/// The factorial counts the orders the attacker must try the l patterns in; the
/// additive term makes longer sequences of tiny matches cost more. Gaps between
/// matches are filled by brute force. Everything is computed in log10.
enum MatchSequenceSearch {
    static let minimumGuessesBeforeGrowingSequence = 10_000.0

    struct Result {
        var guessesLog10: Double
        /// The chosen matches with their own log10 guesses, in order.
        var sequence: [(match: PasswordMatch, guessesLog10: Double)]
    }

    static func search(password: [UInt32], lowercased: [UInt32], matches: [PasswordMatch]) -> Result {
        let n = password.count
        guard n > 0 else { return Result(guessesLog10: 0, sequence: []) }
        var byEnd = [[PasswordMatch]](repeating: [], count: n)
        for match in matches { byEnd[match.end].append(match) }
        for index in byEnd.indices { byEnd[index].sort { ($0.start, $0.end) < ($1.start, $1.end) } }

        // Per end position k and sequence length l: the best last match, the product of
        // the guesses so far (log10), and the total (log10).
        var bestMatch = [[Int: (match: PasswordMatch, guessesLog10: Double)]](repeating: [:], count: n)
        var product = [[Int: Double]](repeating: [:], count: n)
        var total = [[Int: Double]](repeating: [:], count: n)
        var factorialLog10: [Double] = [0]
        func logFactorial(_ l: Int) -> Double {
            while factorialLog10.count <= l {
                factorialLog10.append(factorialLog10[factorialLog10.count - 1] + log10(Double(factorialLog10.count)))
            }
            return factorialLog10[l]
        }

        func update(_ match: PasswordMatch, _ l: Int) {
            let k = match.end
            let own = GuessEstimates.log10Guesses(match, in: password, lowercased: lowercased, passwordLength: n)
            var pi = own
            if l > 1 {
                guard let previous = product[match.start - 1][l - 1] else { return }
                pi += previous
            }
            let g = log10Sum(logFactorial(l) + pi, Double(l - 1) * log10(minimumGuessesBeforeGrowingSequence))
            // Keep it only if no sequence of at most l matches ending here is as cheap.
            for (otherL, otherG) in total[k] where otherL <= l && otherG <= g { return }
            total[k][l] = g
            product[k][l] = pi
            bestMatch[k][l] = (match, own)
        }

        func bruteforceUpdate(_ k: Int) {
            update(PasswordMatch(start: 0, end: k, pattern: .bruteforce), 1)
            guard k >= 1 else { return }
            for start in 1...k {
                let match = PasswordMatch(start: start, end: k, pattern: .bruteforce)
                // Never follow brute force with brute force: one longer run is the same.
                for (l, last) in bestMatch[start - 1] {
                    if case .bruteforce = last.match.pattern { continue }
                    update(match, l + 1)
                }
            }
        }

        for k in 0..<n {
            for match in byEnd[k] {
                if match.start > 0 {
                    for l in Array(bestMatch[match.start - 1].keys) { update(match, l + 1) }
                } else {
                    update(match, 1)
                }
            }
            bruteforceUpdate(k)
        }

        // Unwind from the cheapest total at the end.
        var k = n - 1
        guard let (bestL, bestG) = total[k].min(by: { $0.value < $1.value }) else {
            return Result(guessesLog10: Double(n), sequence: [])
        }
        var l = bestL
        var sequence: [(match: PasswordMatch, guessesLog10: Double)] = []
        while k >= 0, l >= 1, let entry = bestMatch[k][l] {
            sequence.append(entry)
            k = entry.match.start - 1
            l -= 1
        }
        return Result(guessesLog10: bestG, sequence: sequence.reversed())
    }

    /// log10(10^a + 10^b) without overflow.
    static func log10Sum(_ a: Double, _ b: Double) -> Double {
        let high = max(a, b), low = min(a, b)
        return high + log10(1 + pow(10, low - high))
    }
}

import CofferCrypto
/// Finds repeats: the shortest unit that repeats at least twice, such as `aaa`
/// (unit `a`) or `abcabcabc` (unit `abc`), as zxcvbn's greedy and lazy regexes do.
enum RepeatMatcher {
    /// `baseGuessesLog10` estimates the unit on its own (the estimator recurses).
    static func matches(_ password: [UInt32], baseGuessesLog10: ([UInt32]) -> Double) -> [PasswordMatch] {
        let n = password.count
        var found: [PasswordMatch] = []
        var from = 0
        while from < n {
            // The leftmost start at or after `from` where some unit repeats right away.
            var start = from
            var lazyUnit = 0
            while start < n {
                lazyUnit = smallestRepeatingUnit(password, at: start)
                if lazyUnit > 0 { break }
                start += 1
            }
            guard lazyUnit > 0 else { break }
            let greedyUnit = largestRepeatingUnit(password, at: start)
            let lazyLength = lazyUnit * repeats(password, at: start, unit: lazyUnit)
            let greedyLength = greedyUnit * repeats(password, at: start, unit: greedyUnit)
            let unit: Int
            let length: Int
            if greedyLength > lazyLength {
                // "aabaab": the greedy match is longer; its unit is its own shortest period.
                length = greedyLength
                unit = shortestPeriod(password[start..<(start + length)])
            } else {
                length = lazyLength
                unit = lazyUnit
            }
            var base = Array(password[start..<(start + unit)])
            let baseLog10 = baseGuessesLog10(base)
            SecureBytes.wipe(&base)
            found.append(PasswordMatch(start: start, end: start + length - 1, pattern: .repeated(
                baseGuessesLog10: baseLog10, repeatCount: length / unit, baseLength: unit)))
            from = start + length
        }
        return found
    }

    /// How many times the unit of `unit` characters at `start` occurs back to back.
    private static func repeats(_ text: [UInt32], at start: Int, unit: Int) -> Int {
        var count = 1
        while start + (count + 1) * unit <= text.count,
              (0..<unit).allSatisfy({ text[start + $0] == text[start + count * unit + $0] }) {
            count += 1
        }
        return count
    }

    private static func unitRepeats(_ text: [UInt32], at start: Int, unit: Int) -> Bool {
        start + 2 * unit <= text.count && (0..<unit).allSatisfy { text[start + $0] == text[start + unit + $0] }
    }

    private static func smallestRepeatingUnit(_ text: [UInt32], at start: Int) -> Int {
        let limit = (text.count - start) / 2
        guard limit >= 1 else { return 0 }
        for unit in 1...limit where unitRepeats(text, at: start, unit: unit) { return unit }
        return 0
    }

    private static func largestRepeatingUnit(_ text: [UInt32], at start: Int) -> Int {
        let limit = (text.count - start) / 2
        guard limit >= 1 else { return 0 }
        for unit in stride(from: limit, through: 1, by: -1) where unitRepeats(text, at: start, unit: unit) { return unit }
        return 0
    }

    /// The shortest unit that, repeated, is exactly `text`.
    private static func shortestPeriod(_ text: ArraySlice<UInt32>) -> Int {
        let n = text.count
        let base = text.startIndex
        for unit in 1...max(n / 2, 1) where n % unit == 0 {
            if (unit..<n).allSatisfy({ text[base + $0] == text[base + $0 - unit] }) { return unit }
        }
        return n
    }
}

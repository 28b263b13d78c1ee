import CofferCrypto
import Foundation
/// Finds dates (`13/2/1987`, `1987-02-13`, `130287`, `2/13/87`...) and recent years,
/// with zxcvbn's rules for splitting digits into day, month and year.
enum DateMatcher {
    static let minimumYear = 1000
    static let maximumYear = 2050
    /// Years closer than this to the reference year all cost this many guesses.
    static let minimumYearSpace = 20

    /// The current year (UTC), the year people are likeliest to pick dates around.
    static let referenceYear: Int = {
        var now = time(nil)
        var parts = tm()
        guard gmtime_r(&now, &parts) != nil else { return 2025 }
        return Int(parts.tm_year) + 1900
    }()

    /// Splits of 4 to 8 digits without separators into three numbers: (k, l) means
    /// digits[0..<k], digits[k..<l], digits[l...].
    private static let splits: [Int: [(Int, Int)]] = [
        4: [(1, 2), (2, 3)],
        5: [(1, 3), (2, 3)],
        6: [(1, 2), (2, 4), (4, 5)],
        7: [(1, 3), (2, 3), (4, 5), (4, 6)],
        8: [(2, 4), (4, 6)],
    ]

    static func yearMatches(_ password: [UInt32]) -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        var start = 0
        while start + 4 <= password.count {
            if let year = number(password[start..<(start + 4)]), (1900...2049).contains(year) {
                found.append(PasswordMatch(start: start, end: start + 3, pattern: .year(year)))
                start += 4
            } else {
                start += 1
            }
        }
        return found
    }

    static func dateMatches(_ password: [UInt32]) -> [PasswordMatch] {
        let n = password.count
        var found: [PasswordMatch] = []
        // Without separators: 4 ("1191") to 8 ("11111991") digits.
        if n >= 4 {
            for start in 0...(n - 4) {
                for end in (start + 3)...min(start + 7, n - 1) {
                    let token = password[start...end]
                    guard token.allSatisfy(isDigit), let options = splits[token.count] else { continue }
                    var best: (year: Int, distance: Int)?
                    for (k, l) in options {
                        guard let a = number(token.prefix(k)), let b = number(token.dropFirst(k).prefix(l - k)),
                              let c = number(token.dropFirst(l)), let year = dateYear([a, b, c]) else { continue }
                        let distance = abs(year - referenceYear)
                        if best == nil || distance < (best?.distance ?? .max) { best = (year, distance) }
                    }
                    if let best {
                        found.append(PasswordMatch(start: start, end: end, pattern: .date(year: best.year, hasSeparator: false)))
                    }
                }
            }
        }
        // With separators: 6 ("1/1/91") to 10 ("11/11/1991") characters, both separators equal.
        if n >= 6 {
            for start in 0...(n - 6) {
                for end in (start + 5)...min(start + 9, n - 1) {
                    if let year = separatedDateYear(password[start...end]) {
                        found.append(PasswordMatch(start: start, end: end, pattern: .date(year: year, hasSeparator: true)))
                    }
                }
            }
        }
        // Drop dates inside longer dates ("2015_06_04" also holds "15_06_04" and more).
        return found.filter { match in
            !found.contains { other in
                (other.start != match.start || other.end != match.end)
                    && other.start <= match.start && other.end >= match.end
            }
        }
    }

    /// `^(\d{1,4})([\s/\\_.-])(\d{1,2})\2(\d{1,4})$`, read in place (no copy of the characters).
    private static func separatedDateYear(_ token: ArraySlice<UInt32>) -> Int? {
        let base = token.startIndex
        let count = token.count
        guard let firstSeparator = token.firstIndex(where: { !isDigit($0) }).map({ $0 - base }),
              (1...4).contains(firstSeparator) else { return nil }
        let separator = token[base + firstSeparator]
        guard isSeparator(separator),
              let second = token[(base + firstSeparator + 1)...].firstIndex(where: { !isDigit($0) }).map({ $0 - base }),
              token[base + second] == separator else { return nil }
        let middleLength = second - firstSeparator - 1
        let lastLength = count - second - 1
        guard (1...2).contains(middleLength), (1...4).contains(lastLength),
              let a = number(token[base..<(base + firstSeparator)]),
              let b = number(token[(base + firstSeparator + 1)..<(base + second)]),
              let c = number(token[(base + second + 1)...]) else { return nil }
        return dateYear([a, b, c])
    }

    /// zxcvbn's `map_ints_to_dmy`: the year of the date three numbers can form, or nil.
    static func dateYear(_ numbers: [Int]) -> Int? {
        // The middle number is never a year; a day or month is never 0.
        guard numbers[1] <= 31, numbers[1] > 0 else { return nil }
        var over12 = 0, over31 = 0, under1 = 0
        for value in numbers {
            if (100..<minimumYear).contains(value) || value > maximumYear { return nil }
            if value > 31 { over31 += 1 }
            if value > 12 { over12 += 1 }
            if value <= 0 { under1 += 1 }
        }
        if over31 >= 2 || over12 == 3 || under1 >= 2 { return nil }
        let candidates = [(numbers[2], [numbers[0], numbers[1]]), (numbers[0], [numbers[1], numbers[2]])]
        // A four-digit year first: if one is there, the rest must be a day and month.
        for (year, rest) in candidates where (minimumYear...maximumYear).contains(year) {
            return isDayMonth(rest) ? year : nil
        }
        // Otherwise a two-digit year: 87 -> 1987, 15 -> 2015.
        for (year, rest) in candidates where isDayMonth(rest) {
            if year > 99 { return year }
            return year > 50 ? year + 1900 : year + 2000
        }
        return nil
    }

    private static func isDayMonth(_ pair: [Int]) -> Bool {
        (1...31).contains(pair[0]) && (1...12).contains(pair[1])
            || (1...31).contains(pair[1]) && (1...12).contains(pair[0])
    }

    private static func isDigit(_ scalar: UInt32) -> Bool { (0x30...0x39).contains(scalar) }

    /// Whitespace, `/`, `\`, `_`, `.` or `-`.
    private static func isSeparator(_ scalar: UInt32) -> Bool {
        [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C, 0x2F, 0x5C, 0x5F, 0x2E, 0x2D].contains(scalar)
    }

    private static func number<C: Collection>(_ digits: C) -> Int? where C.Element == UInt32 {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for digit in digits {
            guard isDigit(digit) else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value
    }
}

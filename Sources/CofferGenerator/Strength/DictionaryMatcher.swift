import CofferCrypto
/// Finds dictionary words in a password: as typed (any case), reversed, with l33t
/// substitutions, and with one letter left out.
struct DictionaryMatcher {
    let dictionaries: [RankedDictionary]

    /// zxcvbn's l33t table: letter -> characters that stand for it.
    static let l33tTable: [(letter: Character, substitutes: [Character])] = [
        ("a", ["4", "@"]), ("b", ["8"]), ("c", ["(", "{", "[", "<"]), ("e", ["3"]),
        ("g", ["6", "9"]), ("i", ["1", "!", "|"]), ("l", ["1", "|", "7"]), ("o", ["0"]),
        ("s", ["$", "5"]), ("t", ["+", "7"]), ("x", ["%"]), ("z", ["2"]),
    ]

    /// l33t character -> the letters it may stand for.
    private static let l33tCandidates: [UInt32: [UInt32]] = {
        var candidates: [UInt32: [UInt32]] = [:]
        for (letter, substitutes) in l33tTable {
            for substitute in substitutes {
                guard let from = substitute.unicodeScalars.first, let to = letter.unicodeScalars.first else { continue }
                candidates[from.value, default: []].append(to.value)
            }
        }
        return candidates
    }()

    /// Misspellings tried: one vowel left out, or one doubled letter written once.
    private static let vowels: [UInt32] = Array("aeiou".unicodeScalars.map(\.value))
    /// Shorter fragments than this are not tried as misspellings (too many false finds).
    static let minimumMisspeltLength = 5

    func matches(lowercased lower: [UInt32]) -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let n = lower.count
        if n == 0 { return found }

        // As typed (case was folded; the guess estimate adds case variations back).
        found += matchWords(in: lower) { start, end, dictionary, rank, misspelt in
            PasswordMatch(start: start, end: end,
                          pattern: .dictionary(.init(dictionary: dictionary, rank: rank, misspelt: misspelt)))
        }

        // Reversed.
        var reversed = Array(lower.reversed())
        defer { SecureBytes.wipe(&reversed) }
        found += matchWords(in: reversed, misspellings: false) { start, end, dictionary, rank, _ in
            PasswordMatch(start: n - 1 - end, end: n - 1 - start,
                          pattern: .dictionary(.init(dictionary: dictionary, rank: rank, reversed: true)))
        }

        // l33t: every consistent reading of the l33t characters present.
        let hasL33t = lower.map { Self.l33tCandidates[$0] != nil }
        for substitution in l33tSubstitutions(present: lower) {
            var translated = lower.map { substitution[$0] ?? $0 }
            defer { SecureBytes.wipe(&translated) }
            found += matchWords(in: translated, changed: hasL33t) { start, end, dictionary, rank, misspelt in
                // Keep only words that used a substitution, and longer than one character.
                guard end > start else { return nil }
                var used: [(character: UInt32, letter: UInt32)] = []
                for (character, letter) in substitution.sorted(by: { $0.key < $1.key })
                where lower[start...end].contains(character) {
                    used.append((character, letter))
                }
                if used.isEmpty { return nil }
                return PasswordMatch(start: start, end: end, pattern: .dictionary(
                    .init(dictionary: dictionary, rank: rank, l33t: used, misspelt: misspelt)))
            }
        }
        return found
    }

    /// Every word of every dictionary in `text`, plus (when asked) words with a vowel or
    /// a doubled letter left out, for the word dictionaries only. With `changed`, only
    /// slices that contain a changed position are reported (the others were found in
    /// the unchanged text already).
    private func matchWords(
        in text: [UInt32], misspellings: Bool = true, changed: [Bool]? = nil,
        _ make: (Int, Int, StrengthEstimate.Pattern.Dictionary, Int, Bool) -> PasswordMatch?
    ) -> [PasswordMatch] {
        var found: [PasswordMatch] = []
        let n = text.count
        // nextChange[i]: the first changed position at or after i (n if none).
        var nextChange = [Int](repeating: n, count: n + 1)
        if let changed {
            for index in stride(from: n - 1, through: 0, by: -1) {
                nextChange[index] = changed[index] ? index : nextChange[index + 1]
            }
        }
        var scratch = [UInt32](repeating: 0, count: 64)
        defer { SecureBytes.wipe(&scratch) }
        text.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for dictionary in dictionaries {
                let longest = dictionary.maximumLength
                let misspell = misspellings && dictionary.name != .commonPasswords && dictionary.name != .userInputs
                for start in 0..<n {
                    let firstEnd = changed == nil ? start : nextChange[start]
                    if firstEnd - start >= longest { continue }
                    var hash = RollingHash()
                    var end = start
                    while end < n, end - start < longest {
                        hash.append(base[end])
                        if end >= firstEnd {
                            let slice = UnsafeBufferPointer(start: base + start, count: end - start + 1)
                            if let rank = dictionary.rank(of: slice, hash: hash) {
                                if let match = make(start, end, dictionary.name, rank, false) { found.append(match) }
                            } else if misspell, slice.count >= Self.minimumMisspeltLength, slice.count < longest,
                                      slice.count < scratch.count,
                                      let rank = misspeltRank(slice, in: dictionary, scratch: &scratch) {
                                if let match = make(start, end, dictionary.name, rank, true) { found.append(match) }
                            }
                        }
                        end += 1
                    }
                }
            }
        }
        return found
    }

    /// The best rank of a word that `slice` spells with one vowel dropped or one doubled
    /// letter undoubled; letters a-z only.
    private func misspeltRank(_ slice: UnsafeBufferPointer<UInt32>, in dictionary: RankedDictionary,
                              scratch: inout [UInt32]) -> Int? {
        guard slice.allSatisfy({ (0x61...0x7A).contains($0) }) else { return nil }
        var best: Int?
        let length = slice.count
        // Where the letter goes past the first three (or before the last three), those
        // three are the slice's own: if no word starts (ends) with them, skip the lookup.
        let sliceStarts = RankedDictionary.trigramIndex(slice[0], slice[1], slice[2])
            .map { dictionary.startTrigrams[$0] } ?? false
        let sliceEnds = RankedDictionary.trigramIndex(slice[length - 3], slice[length - 2], slice[length - 1])
            .map { dictionary.endTrigrams[$0] } ?? false
        if !sliceStarts && !sliceEnds { return nil }
        scratch.withUnsafeMutableBufferPointer { candidate in
            for index in 0..<length { candidate[index + 1] = slice[index] }
            for insertAt in 0...length {
                // candidate = slice[..<insertAt] + letter + slice[insertAt...]
                if insertAt > 0 { candidate[insertAt - 1] = slice[insertAt - 1] }
                if insertAt >= 3 && !sliceStarts { continue }
                if insertAt <= length - 3 && !sliceEnds { continue }
                let word = UnsafeBufferPointer(rebasing: candidate[0...length])
                func attempt(_ letter: UInt32) {
                    candidate[insertAt] = letter
                    guard let head = RankedDictionary.trigramIndex(candidate[0], candidate[1], candidate[2]),
                          dictionary.startTrigrams[head],
                          let tail = RankedDictionary.trigramIndex(candidate[length - 2], candidate[length - 1], candidate[length]),
                          dictionary.endTrigrams[tail] else { return }
                    if let rank = dictionary.rank(of: word), rank < (best ?? .max) { best = rank }
                }
                for vowel in Self.vowels { attempt(vowel) }
                if insertAt > 0, !Self.vowels.contains(slice[insertAt - 1]) { attempt(slice[insertAt - 1]) }
                if insertAt < length, !Self.vowels.contains(slice[insertAt]),
                   insertAt == 0 || slice[insertAt] != slice[insertAt - 1] {
                    attempt(slice[insertAt])
                }
            }
        }
        return best
    }

    /// All ways of reading the l33t characters that occur in `text`: one letter per
    /// l33t character (`1` may be `i` or `l`, so it yields two readings).
    private func l33tSubstitutions(present text: [UInt32]) -> [[UInt32: UInt32]] {
        // Walk the (public) table rather than collect the password's characters.
        let present = Self.l33tCandidates.sorted { $0.key < $1.key }.filter { text.contains($0.key) }
        guard !present.isEmpty else { return [] }
        var readings: [[UInt32: UInt32]] = [[:]]
        for (character, letters) in present {
            readings = readings.flatMap { reading in
                letters.map { letter in
                    var next = reading
                    next[character] = letter
                    return next
                }
            }
            // At most 2 x 2 x 2 readings: '1', '|' and '7' are the ambiguous characters.
        }
        return readings
    }
}

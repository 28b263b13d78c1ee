import CofferCrypto
import Foundation
/// A dictionary of lowercase words with their guess ranks (1 = guessed first).
///
/// A bundled list's words are read where they are, in the string literal's own ASCII bytes
/// (lowercased as they are compared); other words (the caller's inputs, or a list that is
/// not plain ASCII) are kept as scalar values in one flat array. An open-addressing hash table
/// over the words lets any slice of a password be looked up in place: no String is made from
/// password characters.
///
/// Why in place: a password change or `coffer init` estimates one password, and copying the
/// lists into scalar arrays first was most of the estimate (80 million instructions of its
/// 83 at 10,000 entries' `coffer passwd`, and 3.7 MB held for the process's life).
struct RankedDictionary: @unchecked Sendable {
    // @unchecked: `text` points into a string literal, constant for the process's life;
    // every other stored property is an immutable value.
    let name: StrengthEstimate.Pattern.Dictionary
    /// A bundled list's bytes (ASCII) that the words are ranges of, or nil when they are
    /// ranges of `scalars`.
    private let text: UnsafePointer<UInt8>?
    /// Lowercase scalar values that the words are ranges of, when `text` is nil.
    private let scalars: [UInt32]
    /// Word i is characters `starts[i]..<ends[i]` of `text` or `scalars`.
    private let starts: [Int32]
    private let ends: [Int32]
    private let ranks: [Int32]
    /// Word index + 1, or 0 for an empty slot. The size is a power of two.
    private let table: [Int32]
    /// The longest word, in scalars.
    let maximumLength: Int
    /// Which a–z trigrams begin (and end) some word, indexed by ``trigramIndex(_:_:_:)``:
    /// a cheap filter that rules out most candidate misspellings before any lookup.
    let startTrigrams: [Bool]
    let endTrigrams: [Bool]

    var count: Int { ranks.count }
    /// Whether the words are read in place from a bundled list's literal.
    var readsInPlace: Bool { text != nil }

    /// Every word (lowercase scalar values) with its rank, in the order they were added.
    var words: [(word: [UInt32], rank: Int)] {
        (0..<count).map { index in
            let range = Int(starts[index])..<Int(ends[index])
            let word = text.map { text in range.map { ASCIICharacters(base: text)[$0] } } ?? Array(scalars[range])
            return (word, Int(ranks[index]))
        }
    }

    /// Builds a dictionary of the words at `words`' ranges of `source` (lowercase scalar
    /// values); the first occurrence of a word keeps its rank.
    init(name: StrengthEstimate.Pattern.Dictionary, source: [UInt32], words: [(range: Range<Int>, rank: Int)]) {
        self = source.withUnsafeBufferPointer { buffer in
            RankedDictionary(name: name, characters: ScalarCharacters(base: buffer), text: nil, scalars: source, words: words)
        }
    }

    private init<C: WordCharacters>(name: StrengthEstimate.Pattern.Dictionary, characters: C, text: UnsafePointer<UInt8>?,
                                    scalars: [UInt32], words: [(range: Range<Int>, rank: Int)]) {
        var capacity = 16
        while capacity < words.count * 2 { capacity <<= 1 }
        // Sized once, and written through pointers: kept for the process's life (grown by
        // doubling they held up to twice this), and appending cost more than hashing.
        var starts = [Int32](repeating: 0, count: words.count), ends = starts, ranks = starts
        var table = [Int32](repeating: 0, count: capacity)
        var startTrigrams = [Bool](repeating: false, count: 26 * 26 * 26), endTrigrams = startTrigrams
        var added = 0, longest = 0
        let mask = capacity - 1
        starts.withUnsafeMutableBufferPointer { starts in
        ends.withUnsafeMutableBufferPointer { ends in
        ranks.withUnsafeMutableBufferPointer { ranks in
        table.withUnsafeMutableBufferPointer { table in
        startTrigrams.withUnsafeMutableBufferPointer { startTrigrams in
        endTrigrams.withUnsafeMutableBufferPointer { endTrigrams in
            for (range, rank) in words where !range.isEmpty {
                var hash = RollingHash()
                for index in range { hash.append(characters[index]) }
                var slot = Int(truncatingIfNeeded: hash.value) & mask
                var duplicate = false
                while table[slot] != 0 {
                    let existing = Int(table[slot]) - 1
                    if Self.equal(characters, Int(starts[existing])..<Int(ends[existing]), range) {
                        duplicate = true
                        break
                    }
                    slot = (slot + 1) & mask
                }
                if duplicate { continue }
                starts[added] = Int32(truncatingIfNeeded: range.lowerBound)
                ends[added] = Int32(truncatingIfNeeded: range.upperBound)
                ranks[added] = Int32(clamping: max(rank, 1))
                added += 1
                table[slot] = Int32(truncatingIfNeeded: added)
                let n = range.count, first = range.lowerBound
                longest = max(longest, n)
                if n >= 3, let head = Self.trigramIndex(characters[first], characters[first + 1], characters[first + 2]),
                   let tail = Self.trigramIndex(characters[first + n - 3], characters[first + n - 2], characters[first + n - 1]) {
                    startTrigrams[head] = true
                    endTrigrams[tail] = true
                }
            }
        }}}}}}
        if added < words.count {
            starts.removeLast(words.count - added)
            ends.removeLast(words.count - added)
            ranks.removeLast(words.count - added)
        }
        self.name = name
        self.text = text
        self.scalars = scalars
        self.starts = starts
        self.ends = ends
        self.ranks = ranks
        self.table = table
        maximumLength = longest
        self.startTrigrams = startTrigrams
        self.endTrigrams = endTrigrams
    }

    @inline(__always)
    private static func equal<C: WordCharacters>(_ characters: C, _ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        for offset in 0..<a.count where characters[a.lowerBound + offset] != characters[b.lowerBound + offset] { return false }
        return true
    }

    /// The index of three letters a–z in the trigram tables, or nil for anything else.
    @inline(__always)
    static func trigramIndex(_ a: UInt32, _ b: UInt32, _ c: UInt32) -> Int? {
        let lowest: UInt32 = 0x61, count: UInt32 = 26
        guard a &- lowest < count, b &- lowest < count, c &- lowest < count else { return nil }
        return Int((a - lowest) * 676 + (b - lowest) * 26 + (c - lowest))
    }

    /// The rank of the word equal to `slice`, or nil.
    func rank(of slice: UnsafeBufferPointer<UInt32>) -> Int? {
        rank(of: slice, hash: Self.hash(slice))
    }

    /// Same, with the slice's ``RollingHash`` already computed (matchers extend a slice
    /// one character at a time and update the hash as they go).
    func rank(of slice: UnsafeBufferPointer<UInt32>, hash: RollingHash) -> Int? {
        guard !slice.isEmpty, slice.count <= maximumLength else { return nil }
        if let text { return rank(of: slice, hash: hash, in: ASCIICharacters(base: text)) }
        return scalars.withUnsafeBufferPointer { rank(of: slice, hash: hash, in: ScalarCharacters(base: $0)) }
    }

    private func rank<C: WordCharacters>(of slice: UnsafeBufferPointer<UInt32>, hash: RollingHash, in characters: C) -> Int? {
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash.value) & mask
        while true {
            let entry = Int(table[slot])
            if entry == 0 { return nil }
            let start = Int(starts[entry - 1]), end = Int(ends[entry - 1])
            if end - start == slice.count {
                var same = true
                for offset in 0..<slice.count where characters[start + offset] != slice[offset] {
                    same = false
                    break
                }
                if same { return Int(ranks[entry - 1]) }
            }
            slot = (slot + 1) & mask
        }
    }

    static func hash<C: Collection>(_ scalars: C) -> RollingHash where C.Element == UInt32 {
        var hash = RollingHash()
        for scalar in scalars { hash.append(scalar) }
        return hash
    }
}

/// The characters words are ranges of, as lowercase scalar values (the builder and the
/// lookup are written once over both kinds of storage, and specialised for each).
private protocol WordCharacters {
    subscript(_ index: Int) -> UInt32 { get }
}

/// ASCII bytes, lowercased as read.
private struct ASCIICharacters: WordCharacters {
    let base: UnsafePointer<UInt8>
    @inline(__always)
    subscript(_ index: Int) -> UInt32 {
        let byte = base[index]
        return UInt32(byte &- 0x41 < 26 ? byte | 0x20 : byte)
    }
}

/// A list's characters while its words are picked from its lines: either kind.
private enum ListCharacters {
    case ascii(ASCIICharacters)
    case scalars(ScalarCharacters)

    subscript(_ index: Int) -> UInt32 {
        switch self {
        case .ascii(let characters): return characters[index]
        case .scalars(let characters): return characters[index]
        }
    }
}

/// Scalar values, already lowercase.
private struct ScalarCharacters: WordCharacters {
    let base: UnsafeBufferPointer<UInt32>
    @inline(__always)
    subscript(_ index: Int) -> UInt32 { base[index] }
}

/// FNV-1a over scalar values, extendable one scalar at a time.
struct RollingHash {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func append(_ scalar: UInt32) {
        state = (state ^ UInt64(scalar)) &* 0x0000_0100_0000_01b3
    }

    /// The state with its high bits folded down, since the table uses the low bits.
    var value: UInt64 { state ^ (state >> 29) }
}

extension RankedDictionary {
    /// The dictionaries compiled into the library (``BundledWordList``), built once on first
    /// use (swift_once). Building them cannot fail, so no estimate runs with one left out.
    static let bundled: [RankedDictionary] = [
        ranked(BundledWordList.commonPasswords.text, name: .commonPasswords),
        tiered(BundledWordList.englishWords.text, name: .englishWords),
        // Passphrase words are picked uniformly: each costs the list size to guess.
        ranked(BundledWordList.effLarge.text, name: .effWordlist, everyRank: Wordlist.effLargeCount),
    ]

    /// A dictionary of the caller's words (user name, site name...), ranked in order given.
    static func userInputs(_ inputs: [String]) -> RankedDictionary? {
        var source: [UInt32] = []
        var words: [(range: Range<Int>, rank: Int)] = []
        for (offset, input) in inputs.enumerated() {
            let start = source.count
            source += lowercaseScalars(input)
            if source.count > start { words.append((start..<source.count, offset + 1)) }
        }
        return words.isEmpty ? nil : RankedDictionary(name: .userInputs, source: source, words: words)
    }

    /// One word per line, most common first (or, with `everyRank`, all equally likely);
    /// `#` lines are comments. A `dice<TAB>word` line (the EFF list) counts its word.
    static func ranked(_ text: StaticString, name: StrengthEstimate.Pattern.Dictionary,
                       everyRank: Int? = nil, inPlace: Bool = true) -> RankedDictionary {
        let tab = UInt32(UInt8(ascii: "\t")), hash = UInt32(UInt8(ascii: "#"))
        return withLines(of: text, name: name, inPlace: inPlace) { characters, lines in
            var words: [(range: Range<Int>, rank: Int)] = []
            words.reserveCapacity(lines.count)
            for line in lines where !line.isEmpty && characters[line.lowerBound] != hash {
                var start = line.lowerBound
                for index in line where characters[index] == tab { start = index + 1 }
                words.append((start..<line.upperBound, everyRank ?? words.count + 1))
            }
            return words
        }
    }

    /// Words in frequency tiers, each started by a `## ...` line and alphabetical inside.
    /// The order within a tier says nothing about frequency, so every word of a tier gets
    /// the tier's middle rank: the words before the tier plus half the tier.
    static func tiered(_ text: StaticString, name: StrengthEstimate.Pattern.Dictionary,
                       inPlace: Bool = true) -> RankedDictionary {
        let hash = UInt32(UInt8(ascii: "#"))
        return withLines(of: text, name: name, inPlace: inPlace) { characters, lines in
            var tiers: [[Range<Int>]] = []
            for line in lines where !line.isEmpty {
                if line.count >= 2 && characters[line.lowerBound] == hash && characters[line.lowerBound + 1] == hash {
                    tiers.append([])
                } else if characters[line.lowerBound] != hash {
                    if tiers.isEmpty { tiers.append([]) }
                    tiers[tiers.count - 1].append(line)
                }
            }
            var words: [(range: Range<Int>, rank: Int)] = []
            words.reserveCapacity(lines.count)
            var before = 0
            for tier in tiers {
                let rank = before + (tier.count + 1) / 2
                for word in tier { words.append((word, rank)) }
                before += tier.count
            }
            return words
        }
    }

    /// A dictionary of the words `pick` chooses among the lines of `text`. A list that is ASCII
    /// without CR (every bundled list; the tests check) is read in place from its literal;
    /// any other text is lowercased into scalar values first (``BundledWordList/lowercasedText(of:)``),
    /// as every list is with `inPlace` false (the tests compare the two).
    private static func withLines(of text: StaticString, name: StrengthEstimate.Pattern.Dictionary, inPlace: Bool,
                                  _ pick: (_ characters: ListCharacters, _ lines: [Range<Int>]) -> [(range: Range<Int>, rank: Int)]) -> RankedDictionary {
        if inPlace && text.hasPointerRepresentation {
            let bytes = UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
            if let base = bytes.baseAddress, ASCIIBytes.all(bytes), memchr(base, 0x0D, bytes.count) == nil {
                var lines: [Range<Int>] = []
                lines.reserveCapacity(bytes.count / 8)
                var start = 0
                while start < bytes.count, let found = memchr(base + start, 0x0A, bytes.count - start) {
                    let end = base.distance(to: UnsafeRawPointer(found))
                    lines.append(start..<end)
                    start = end + 1
                }
                if bytes.count > start { lines.append(start..<bytes.count) }
                let words = pick(.ascii(ASCIICharacters(base: text.utf8Start)), lines)
                return RankedDictionary(name: name, characters: ASCIICharacters(base: text.utf8Start), text: text.utf8Start,
                                        scalars: [], words: words)
            }
        }
        let (scalars, lines) = BundledWordList.lowercasedText(of: text)
        let words = scalars.withUnsafeBufferPointer { pick(.scalars(ScalarCharacters(base: $0)), lines) }
        return RankedDictionary(name: name, source: scalars, words: words)
    }
}

/// Lowercases one scalar the way dictionary lookups need: ASCII directly, others by
/// their Unicode lowercase mapping when that is a single scalar.
@inline(__always)
func lowercaseScalar(_ value: UInt32) -> UInt32 {
    if value < 0x80 {
        return (0x41...0x5A).contains(value) ? value + 0x20 : value
    }
    guard let scalar = Unicode.Scalar(value) else { return value }
    let mapping = scalar.properties.lowercaseMapping.unicodeScalars
    if mapping.count == 1, let lower = mapping.first { return lower.value }
    return value
}

func lowercaseScalars(_ text: String) -> [UInt32] {
    text.unicodeScalars.map { lowercaseScalar($0.value) }
}

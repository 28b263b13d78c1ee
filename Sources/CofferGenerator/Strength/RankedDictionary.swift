import CofferCrypto
/// A dictionary of lowercase words with their guess ranks (1 = guessed first).
///
/// Words are stored as Unicode scalar values in one flat array with an open-addressing
/// hash table over them, so that any slice of a password can be looked up in place:
/// no String is made from password characters.
struct RankedDictionary: Sendable {
    let name: StrengthEstimate.Pattern.Dictionary
    /// All words, back to back.
    private let scalars: [UInt32]
    /// Word i is `scalars[starts[i]..<starts[i + 1]]`.
    private let starts: [Int32]
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

    /// Builds a dictionary of the words at `words`' ranges of `source` (lowercase scalar
    /// values); the first occurrence of a word keeps its rank.
    init(name: StrengthEstimate.Pattern.Dictionary, source: [UInt32], words: [(range: Range<Int>, rank: Int)]) {
        var capacity = 16
        while capacity < words.count * 2 { capacity <<= 1 }
        // Sized once: kept for the process's life, grown by doubling they held up to twice this.
        var scalars: [UInt32] = []
        scalars.reserveCapacity(words.reduce(0) { $0 + $1.range.count })
        var starts: [Int32] = [0]
        starts.reserveCapacity(words.count + 1)
        var ranks: [Int32] = []
        ranks.reserveCapacity(words.count)
        var table = [Int32](repeating: 0, count: capacity)
        var longest = 0
        var startTrigrams = [Bool](repeating: false, count: 26 * 26 * 26)
        var endTrigrams = [Bool](repeating: false, count: 26 * 26 * 26)
        let mask = capacity - 1
        for (range, rank) in words where !range.isEmpty {
            let word = source[range]
            var slot = Int(truncatingIfNeeded: Self.hash(word).value) & mask
            var duplicate = false
            while table[slot] != 0 {
                let existing = Int(table[slot]) - 1
                if scalars[Int(starts[existing])..<Int(starts[existing + 1])].elementsEqual(word) {
                    duplicate = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if duplicate { continue }
            scalars.append(contentsOf: word)
            starts.append(Int32(scalars.count))
            ranks.append(Int32(clamping: max(rank, 1)))
            table[slot] = Int32(ranks.count)
            longest = max(longest, word.count)
            let n = word.count, first = word.startIndex
            if n >= 3, let head = Self.trigramIndex(word[first], word[first + 1], word[first + 2]),
               let tail = Self.trigramIndex(word[first + n - 3], word[first + n - 2], word[first + n - 1]) {
                startTrigrams[head] = true
                endTrigrams[tail] = true
            }
        }
        self.name = name
        self.scalars = scalars
        self.starts = starts
        self.ranks = ranks
        self.table = table
        maximumLength = longest
        self.startTrigrams = startTrigrams
        self.endTrigrams = endTrigrams
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
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash.value) & mask
        while true {
            let entry = Int(table[slot])
            if entry == 0 { return nil }
            let start = Int(starts[entry - 1]), end = Int(starts[entry])
            if end - start == slice.count, scalars[start..<end].elementsEqual(slice) {
                return Int(ranks[entry - 1])
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
        ranked(BundledWordList.commonPasswords, name: .commonPasswords),
        tiered(BundledWordList.englishWords, name: .englishWords),
        // Passphrase words are picked uniformly: each costs the list size to guess.
        ranked(BundledWordList.effLarge, name: .effWordlist, everyRank: Wordlist.effLargeCount),
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
    static func ranked(_ list: BundledWordList, name: StrengthEstimate.Pattern.Dictionary,
                       everyRank: Int? = nil) -> RankedDictionary {
        let tab = UInt32(UInt8(ascii: "\t"))
        let (scalars, lines) = list.lowercasedText()
        var words: [(range: Range<Int>, rank: Int)] = []
        for line in lines where !line.isEmpty && scalars[line.lowerBound] != UInt32(UInt8(ascii: "#")) {
            let word = scalars[line].lastIndex(of: tab).map { ($0 + 1)..<line.upperBound } ?? line
            words.append((word, everyRank ?? words.count + 1))
        }
        return RankedDictionary(name: name, source: scalars, words: words)
    }

    /// Words in frequency tiers, each started by a `## ...` line and alphabetical inside.
    /// The order within a tier says nothing about frequency, so every word of a tier gets
    /// the tier's middle rank: the words before the tier plus half the tier.
    static func tiered(_ list: BundledWordList, name: StrengthEstimate.Pattern.Dictionary) -> RankedDictionary {
        let hash = UInt32(UInt8(ascii: "#"))
        let (scalars, lines) = list.lowercasedText()
        var tiers: [[Range<Int>]] = []
        for line in lines where !line.isEmpty {
            if line.count >= 2 && scalars[line.lowerBound] == hash && scalars[line.lowerBound + 1] == hash {
                tiers.append([])
            } else if scalars[line.lowerBound] != hash {
                if tiers.isEmpty { tiers.append([]) }
                tiers[tiers.count - 1].append(line)
            }
        }
        var words: [(range: Range<Int>, rank: Int)] = []
        var before = 0
        for tier in tiers {
            let rank = before + (tier.count + 1) / 2
            for word in tier { words.append((word, rank)) }
            before += tier.count
        }
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

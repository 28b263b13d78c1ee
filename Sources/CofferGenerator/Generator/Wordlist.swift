import CofferCrypto
import Foundation
/// A list of distinct words for passphrases.
///
/// ``effLarge`` is the EFF large wordlist (7,776 words, 12.92 bits each), shipped with
/// the package. Custom lists load from a file with one word per line, either plain
/// (`abacus`) or in the EFF dice format (`11111<TAB>abacus`). Blank lines are skipped;
/// words cannot contain spaces or control characters, and duplicates (ignoring case)
/// are rejected, so the entropy computed from ``count`` is the real one.
///
/// ```swift
/// let eff = try Wordlist.effLarge
/// eff.count                                              // 7776
/// let mine = try Wordlist(contentsOf: "/usr/share/dict/my-words.txt")
/// let tiny = try Wordlist(words: ["red", "green", "blue"])
/// ```
public struct Wordlist: Sendable, Hashable {
    /// The words, in the order given.
    public let words: [String]

    /// The number of words.
    public var count: Int { words.count }

    /// The entropy of one uniformly chosen word: log2(``count``).
    public var bitsPerWord: Double { log2(Double(words.count)) }

    /// A list from words in memory. Throws ``CofferError/Kind/invalidWordList`` for an
    /// empty word, a word with whitespace or control characters, a duplicate (ignoring
    /// case), or fewer than 2 words.
    ///
    /// ```swift
    /// let colours = try Wordlist(words: ["red", "green", "blue", "cyan"])   // 2 bits a word
    /// ```
    public init(words: [String]) throws(CofferError) {
        try self.init(validating: words.enumerated().map { (line: $0.offset + 1, word: $0.element) },
                      source: "word list")
    }

    /// A list from the bytes of a UTF-8 text, plain (one word per line) or in the EFF dice
    /// format (`11111<TAB>abacus`); `source` names it in errors. Throws
    /// ``CofferError/Kind/invalidWordList`` (naming the line) for bad content. Reading a
    /// file is the Store's business: with the `Coffer` product, ``Wordlist/init(contentsOf:)``
    /// reads one through it.
    ///
    /// ```swift
    /// let list = try Wordlist(text: Array("red\ngreen\nblue\n".utf8), source: "colours")
    /// ```
    public init(text bytes: [UInt8], source: String) throws(CofferError) {
        try self.init(parsing: bytes, source: source)
    }

    /// The EFF large wordlist: 7,776 words chosen for memorability by the Electronic
    /// Frontier Foundation (CC BY 3.0 US; see NOTICE). It is compiled into the library, so a
    /// copied or installed program has it; it is parsed once, on first use, thread-safely,
    /// and would throw ``CofferError/Kind/invalidWordList`` only if the compiled-in copy
    /// were damaged (the tests check its SHA-256).
    ///
    /// ```swift
    /// let words = try Wordlist.effLarge.words   // ["abacus", "abdomen", ...]
    /// ```
    public static var effLarge: Wordlist {
        get throws(CofferError) { try loadedEFFLarge.get() }
    }

    /// The size the EFF large list must have: 6^5, one word per roll of five dice.
    static let effLargeCount = 7776

    // A static let is initialised once, thread-safely (swift_once).
    private static let loadedEFFLarge: Result<Wordlist, CofferError> = Result { () throws(CofferError) -> Wordlist in
        let eff = BundledWordList.effLarge
        let list = try Wordlist(parsing: eff.bytes, source: eff.name)
        guard list.count == effLargeCount else {
            throw .invalidWordList("\(eff.name) has \(list.count) words, not \(effLargeCount)")
        }
        return list
    }

    init(parsing bytes: [UInt8], source: String) throws(CofferError) {
        var entries: [(line: Int, word: String)] = []
        for (index, line) in try WordListText.lines(bytes, source: source).enumerated() {
            let fields = line.split(whereSeparator: { $0.isWhitespace })
            switch fields.count {
            case 0:
                continue
            case 1:
                entries.append((index + 1, String(fields[0])))
            case 2 where fields[0].allSatisfy({ $0.isASCII && $0.isNumber }):
                // EFF dice format: the dice roll, then the word.
                entries.append((index + 1, String(fields[1])))
            default:
                throw .invalidWordList("\(source), line \(index + 1): a word cannot contain spaces")
            }
        }
        try self.init(validating: entries, source: source)
    }

    private init(validating entries: [(line: Int, word: String)], source: String) throws(CofferError) {
        var firstLine: [String: Int] = [:]
        firstLine.reserveCapacity(entries.count)
        for (line, word) in entries {
            guard !word.isEmpty else { throw .invalidWordList("\(source), line \(line): empty word") }
            guard !word.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
                throw .invalidWordList("\(source), line \(line): a word cannot contain spaces or control characters")
            }
            // Case-insensitive, because passphrases may change the case of every word.
            let key = word.lowercased()
            if let earlier = firstLine[key] {
                throw .invalidWordList("\(source), line \(line): duplicate of the word on line \(earlier)")
            }
            firstLine[key] = line
        }
        guard entries.count >= 2 else {
            throw .invalidWordList("\(source): a word list needs at least 2 distinct words, found \(entries.count)")
        }
        guard entries.count <= Int(UInt32.max) else { throw .invalidWordList("\(source): too many words") }
        words = entries.map(\.word)
    }
}

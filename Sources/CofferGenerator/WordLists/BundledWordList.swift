import CofferCrypto

/// The word lists compiled into the library: the strength estimator's dictionaries and the
/// EFF list for passphrases.
///
/// Each list is the text of a string literal in this folder, so a program has it wherever it
/// is copied or installed, with no resource bundle to lose; and reading one cannot fail, so
/// the estimator never runs with a list left out. (The lists were package resources before:
/// a `coffer` copied without its bundle rated `password123` "very unguessable".)
enum BundledWordList: CaseIterable, Sendable {
    /// The 30,000 most common passwords, most common first (zxcvbn).
    case commonPasswords
    /// English words in frequency tiers (SCOWL).
    case englishWords
    /// The EFF large wordlist, `dice<TAB>word` (7,776 lines).
    case effLarge

    /// The list's text: UTF-8, one entry per line (LF), no final line break.
    var text: StaticString {
        switch self {
        case .commonPasswords: return Self.commonPasswordsText
        case .englishWords: return Self.englishWordsText
        case .effLarge: return Self.effLargeText
        }
    }

    /// The list's name in messages.
    var name: String {
        switch self {
        case .commonPasswords: return "the common-passwords list"
        case .englishWords: return "the English-words list"
        case .effLarge: return "the EFF large wordlist"
        }
    }

    /// The text's bytes.
    var bytes: [UInt8] { text.withUTF8Buffer { Array($0) } }

    /// The lines, lowercased the way dictionary lookups need, as Unicode scalar values.
    func lowercasedLines() -> [[UInt32]] { Self.lowercasedLines(of: text) }

    /// The lines, lowercased, in one array of scalar values with each line's range in it.
    func lowercasedText() -> (scalars: [UInt32], lines: [Range<Int>]) { Self.lowercasedText(of: text) }

    /// The lines of `text`, lowercased, as Unicode scalar values; `\r` is dropped.
    static func lowercasedLines(of text: StaticString) -> [[UInt32]] {
        let (scalars, lines) = lowercasedText(of: text)
        return lines.map { Array(scalars[$0]) }
    }

    /// The lines of `text`, lowercased, back to back in one array of Unicode scalar values,
    /// with each line's range in it (no line breaks; `\r` is dropped; no empty last line). ASCII
    /// text is read byte by byte; anything else is decoded as UTF-8. Total: it cannot fail.
    ///
    /// The estimator's dictionaries read a list that is ASCII without CR (every bundled list)
    /// in place instead (``RankedDictionary``); this is for any other text.
    static func lowercasedText(of text: StaticString) -> (scalars: [UInt32], lines: [Range<Int>]) {
        text.withUTF8Buffer { buffer -> (scalars: [UInt32], lines: [Range<Int>]) in
            var scalars: [UInt32] = []
            scalars.reserveCapacity(buffer.count)
            var lines: [Range<Int>] = []
            var start = 0
            func take(_ scalar: UInt32) {
                switch scalar {
                case 0x0A:
                    lines.append(start..<scalars.count)
                    start = scalars.count
                case 0x0D:
                    return
                default:
                    scalars.append(lowercaseScalar(scalar))
                }
            }
            if ASCIIBytes.all(UnsafeRawBufferPointer(buffer)) {
                for byte in buffer { take(UInt32(byte)) }
            } else {
                for scalar in String(decoding: buffer, as: UTF8.self).unicodeScalars { take(scalar.value) }
            }
            if scalars.count > start { lines.append(start..<scalars.count) }
            return (scalars, lines)
        }
    }
}

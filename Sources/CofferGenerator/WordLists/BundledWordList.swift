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

    /// The lines of `text`, lowercased, as Unicode scalar values; `\r` is dropped. ASCII
    /// text (all the lists, which the tests check) is read byte by byte, which keeps the one
    /// load per process fast; anything else is decoded as UTF-8. Total: it cannot fail.
    static func lowercasedLines(of text: StaticString) -> [[UInt32]] {
        text.withUTF8Buffer { buffer -> [[UInt32]] in
            let scalars: [UInt32] = buffer.allSatisfy { $0 < 0x80 }
                ? buffer.map { UInt32($0) }
                : String(decoding: buffer, as: UTF8.self).unicodeScalars.map(\.value)
            var lines: [[UInt32]] = []
            var line: [UInt32] = []
            for scalar in scalars {
                switch scalar {
                case 0x0A:
                    lines.append(line)
                    line.removeAll(keepingCapacity: true)
                case 0x0D:
                    continue
                default:
                    line.append(lowercaseScalar(scalar))
                }
            }
            if !line.isEmpty { lines.append(line) }
            return lines
        }
    }
}

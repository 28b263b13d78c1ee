import CofferFormat
import Foundation

/// How Coffer compares text that people type to find things, in one place: search
/// (``ItemQuery/text``) and naming (``Vault/item(named:)``) ignore case, diacritics and
/// width, and search also accepts the typed letters of a name in order with gaps (a typo
/// such as `gthub` for `github`); listings sort by the same folding
/// (`sortedForReading(locale:)`); tags (``ItemQuery/tag``,
/// ``Vault/tags()``) ignore case only.
///
/// ```swift
/// SearchFolding.fold("Ünïcödé")                          // "unicode"
/// SearchFolding.isSubsequence("gthub", of: "github.com")  // true
/// ```
public enum SearchFolding {
    /// `text` with case, diacritics and width folded away (`"Ünïcödé"` → `"unicode"`).
    public static func fold(_ text: String) -> String {
        fold(text, locale: nil)
    }

    /// `text` folded as ``fold(_:)`` does, with `locale`'s rules for non-ASCII text (a
    /// listing's reading order). ASCII text folds by lowercasing its letters in every
    /// locale: that is what the folding gives it, without Foundation's tables.
    public static func fold(_ text: String, locale: Locale?) -> String {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: locale)
        }
        guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(decoding: text.utf8.map(foldASCII), as: UTF8.self)
    }

    /// One ASCII byte folded: a capital letter lowercased, anything else as it is.
    @inline(__always)
    package static func foldASCII(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Whether the folded forms of two UTF-8 texts are equal, decided from the bytes when
    /// both are ASCII; nil when either is not (then fold the strings).
    package static func foldedEqual(ascii a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool? {
        guard a.allSatisfy({ $0 < 0x80 }), b.allSatisfy({ $0 < 0x80 }) else { return nil }
        return a.count == b.count && zip(a, b).allSatisfy { foldASCII($0) == foldASCII($1) }
    }

    /// Whether two texts are equal once folded (``fold(_:)``): how a typed name matches.
    package static func foldedEqual(_ a: String, _ b: String) -> Bool {
        foldedEqual(ascii: a.utf8, b.utf8) ?? (fold(a) == fold(b))
    }

    /// `tag` with only case folded: tags are names people choose, so `"Work"` is `"work"`,
    /// but `"café"` stays apart from `"cafe"`.
    public static func foldTag(_ tag: String) -> String {
        tag.folding(options: [.caseInsensitive], locale: nil)
    }

    /// True when the characters of `needle` appear in `haystack` in order, gaps allowed
    /// (both already folded).
    public static func isSubsequence(_ needle: String, of haystack: String) -> Bool {
        var rest = needle[...]
        for character in haystack where character == rest.first {
            rest = rest.dropFirst()
            if rest.isEmpty { return true }
        }
        return rest.isEmpty
    }

    /// The shortest folded text tried as a subsequence: shorter ones match nearly everything.
    public static let minimumFuzzyLength = 3

    /// How well `attributes` match the folded search text `folded`: 0 for a substring of
    /// any searched attribute, 1 for a subsequence of a name (label, service, server,
    /// account), nil for no match.
    static func rank(_ attributes: ItemAttributes, folded: String) -> Int? {
        let a = attributes
        let names = [a.label, a.service, a.server, a.account].compactMap { $0 }.map(fold)
        let others = ([a.comment].compactMap { $0 } + a.urls + a.tags + a.fields.map(\.value)).map(fold)
        if (names + others).contains(where: { $0.contains(folded) }) { return 0 }
        if folded.count >= minimumFuzzyLength, names.contains(where: { isSubsequence(folded, of: $0) }) { return 1 }
        return nil
    }
}

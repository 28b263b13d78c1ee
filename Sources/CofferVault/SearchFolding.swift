import CofferFormat
import Foundation

/// How Coffer compares text that people type to find things, in one place: search
/// (``ItemQuery/text``) ignores case and diacritics and, for names, also accepts the typed
/// letters in order with gaps (a typo such as `gthub` for `github`); tags
/// (``ItemQuery/tag``, ``Vault/tags()``) ignore case.
///
/// ```swift
/// SearchFolding.fold("Ünïcödé")                          // "unicode"
/// SearchFolding.isSubsequence("gthub", of: "github.com")  // true
/// ```
public enum SearchFolding {
    /// `text` with case, diacritics and width folded away (`"Ünïcödé"` → `"unicode"`).
    public static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
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

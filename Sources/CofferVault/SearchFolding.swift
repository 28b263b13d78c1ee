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

    /// Whether two texts are equal once folded (``fold(_:)``): how a typed name matches an
    /// item's name, and a field's name (`--field ip` names the field `IP`).
    ///
    /// ```swift
    /// SearchFolding.foldedEqual("ip", "IP")   // true
    /// ```
    public static func foldedEqual(_ a: String, _ b: String) -> Bool {
        foldedEqual(ascii: a.utf8, b.utf8) ?? (fold(a) == fold(b))
    }

    /// The words of `text` once folded: runs of letters and digits (`"Wi-Fi (home)"` →
    /// `["wi", "fi", "home"]`).
    static func words(_ text: String) -> [String] {
        // ASCII (the usual name) by its bytes: its letters and digits are A–Z, a–z and 0–9,
        // and folding lowercases them. A typo that names nothing compares every item's name.
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return unicodeWords(text) }
        var out: [String] = []
        var word: [UInt8] = []
        for byte in text.utf8 {
            let folded = foldASCII(byte)
            if (folded >= 0x61 && folded <= 0x7A) || (folded >= 0x30 && folded <= 0x39) {
                word.append(folded)
            } else if !word.isEmpty {
                out.append(String(decoding: word, as: UTF8.self))
                word.removeAll(keepingCapacity: true)
            }
        }
        if !word.isEmpty { out.append(String(decoding: word, as: UTF8.self)) }
        return out
    }

    /// ``words(_:)`` of any text, by its characters' Unicode properties.
    static func unicodeWords(_ text: String) -> [String] {
        fold(text).split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Whether `typed` names one of `names` approximately, as search finds it: its letters
    /// and digits (folded, punctuation and spaces left out) are how a name, or a word of it
    /// with the words after, begins; or are after swapping one pair of neighbouring
    /// letters. From ``minimumFuzzyLength`` letters and digits.
    ///
    /// ```swift
    /// SearchFolding.nameStarts("wifi", in: ["Wi-Fi"])                // true
    /// SearchFolding.nameStarts("netflix.com", in: ["www.netflix.com"]) // true
    /// SearchFolding.nameStarts("githbu", in: ["github.com"])          // true (one swap)
    /// ```
    public static func nameStarts(_ typed: String, in names: [String]) -> Bool {
        let wanted = Array(words(typed).joined())
        guard wanted.count >= minimumFuzzyLength else { return false }
        let starts = names.flatMap { name -> [[Character]] in
            let parts = words(name)
            return parts.indices.map { Array(parts[$0...].joined()) }
        }
        if starts.contains(where: { $0.starts(with: wanted) }) { return true }
        for index in wanted.indices.dropLast() where wanted[index] != wanted[index + 1] {
            var swapped = wanted
            swapped.swapAt(index, index + 1)
            if starts.contains(where: { $0.starts(with: swapped) }) { return true }
        }
        return false
    }

    /// How many typing mistakes (letters added, dropped, changed, or two neighbours swapped)
    /// separate `typed` from the closest of `names` (or from how it begins), when at most
    /// about one in three of its letters (two at most); nil when none is that close. For suggestions.
    static func nameDistance(_ typed: String, _ names: [String]) -> Int? {
        let wanted = Array(words(typed).joined())
        guard !wanted.isEmpty else { return nil }
        let allowed = max(1, min(2, wanted.count / 3))
        var best: Int?
        for name in names {
            let compact = Array(words(name).joined())
            guard !compact.isEmpty else { continue }
            for candidate in [compact, Array(compact.prefix(wanted.count))] {
                let distance = editDistance(wanted, candidate)
                if distance <= allowed, distance < (best ?? .max) { best = distance }
            }
        }
        return best
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours, each 1.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// `tag` with only case folded: tags are names people choose, so `"Work"` is `"work"`,
    /// but `"café"` stays apart from `"cafe"`.
    public static func foldTag(_ tag: String) -> String {
        tag.folding(options: [.caseInsensitive], locale: nil)
    }

    /// Whether the tag `stored` is `wanted` or a tag under it, tags being folders
    /// separated by `/`: `Work` holds `work` and `Work/Email`, not `Workshop`. Case is
    /// ignored (``foldTag(_:)``); a trailing `/` in `wanted` is the folder itself.
    ///
    /// ```swift
    /// SearchFolding.tag("Work/Email", isWithin: "work")   // true
    /// SearchFolding.tag("Workshop", isWithin: "Work")     // false
    /// ```
    public static func tag(_ stored: String, isWithin wanted: String) -> Bool {
        let folder = foldTag(folderName(wanted)), folded = foldTag(stored)
        return folded == folder || (!folder.isEmpty && folded.hasPrefix(folder + "/"))
    }

    /// `tag` without trailing `/`s: `Work/` names the folder `Work`.
    static func folderName(_ tag: String) -> String {
        var name = Substring(tag)
        while name.count > 1, name.hasSuffix("/") { name = name.dropLast() }
        return String(name)
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

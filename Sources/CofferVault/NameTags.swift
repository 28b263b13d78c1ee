import CofferCrypto
import CofferFormat
import Foundation

/// The lookup tags (SPEC.md §8.1) whose rows may hold an item of a kind named `name`, by
/// any rule Coffer compares names with: exactly (canonical equivalence, a unique key),
/// lowercased (a server's host, ``ServerAddress/sameHost(_:_:)``) or folded as search folds
/// (``SearchFolding/foldedEqual(_:_:)``: case, accents, width). Tags only narrow: the
/// records of these rows are opened and compared by those same rules, so a lookup by tag
/// finds exactly what reading every overview finds (`VaultTagLookupTests`).
///
/// Why these tags are enough: the tag folds an ASCII name by lowercasing `A`–`Z` and puts
/// every other name under one tag per kind. A stored name that is not ASCII is always
/// under that tag, which is always asked for. A stored ASCII name `s` equal to `name` by
/// one of the rules is equal to one of the ASCII forms of `name` below once lowercased:
/// canonical equivalence compares NFC forms (NFC of ASCII is itself, and the Kelvin sign
/// U+212A composes to `K`); `lowercased()` and search's folding of `name` are compared
/// the same way with the lowercased `s`. Each form that is ASCII gives its tag.
///
/// ```swift
/// let tags = NameTags.tags(kind: .genericPassword, name: "GitHub.com", keys: keys)
/// // the tag of "github.com", and the tag of every non-ASCII generic-password name
/// ```
enum NameTags {
    static func tags(kind: ItemKind, name: String, keys: EpochKeys) throws(CofferError) -> Set<UInt64> {
        var forms: [String] = [name]
        if !isASCII(name) {
            let lower = name.lowercased()
            let folded = SearchFolding.fold(name)
            forms += [name.precomposedStringWithCanonicalMapping, name.decomposedStringWithCanonicalMapping,
                      lower, lower.precomposedStringWithCanonicalMapping,
                      folded, folded.precomposedStringWithCanonicalMapping].filter(isASCII)
        }
        var tags: Set<UInt64> = []
        try formatCall { () throws(FormatError) in
            // The one tag every non-ASCII name of the kind shares.
            tags.insert(try LookupTag.tag(kind: kind, name: [0xFF], keys: keys))
            for form in forms { tags.insert(try LookupTag.tag(kind: kind, name: Array(form.utf8), keys: keys)) }
        }
        return tags
    }

    /// The kind and name key of a unique key (what its items' rows are tagged by).
    static func nameKey(of key: UniquenessKey) -> (ItemKind, String) {
        switch key {
        case .generic(let service, _): return (.genericPassword, service)
        case .internet(let server, _, _, _, _): return (.internetPassword, server)
        }
    }

    private static func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }
}

import CofferCrypto

/// A tag and how many items carry it (``Vault/tags()``).
public struct TagCount: Sendable, Hashable {
    /// The tag as most items spell it (tags that differ only in case are one tag).
    public var tag: String
    /// How many items carry it.
    public var count: Int
}

extension Vault {
    /// Every tag in the vault with the number of items carrying it, ordered by tag
    /// ignoring case. Spellings that differ only in case count as one tag
    /// (``SearchFolding/foldTag(_:)``), shown as most items spell it. Decrypts no secret.
    ///
    /// ```swift
    /// for entry in try vault.tags() { print(entry.count, entry.tag) }   // 3 work, 1 bank
    /// ```
    public func tags() throws(CofferError) -> [TagCount] {
        var spellings: [String: [String: Int]] = [:]
        for item in try items() {
            // An item tagged "Work" and "work" counts once.
            var seen = Set<String>()
            for tag in item.attributes.tags where seen.insert(SearchFolding.foldTag(tag)).inserted {
                spellings[SearchFolding.foldTag(tag), default: [:]][tag, default: 0] += 1
            }
        }
        return spellings.sorted { $0.key < $1.key }.map { _, counts in
            let shown = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
            return TagCount(tag: shown, count: counts.values.reduce(0, +))
        }
    }
}

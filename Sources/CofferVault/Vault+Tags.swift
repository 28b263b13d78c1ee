import CofferCrypto

/// A tag and how many items carry it (``Vault/tags()``). Tags are folders separated by
/// `/` (KeePassXC's groups import as `Work/Email`): a folder that no item carries itself
/// is listed too, with ``count`` 0, so that the list is a tree.
public struct TagCount: Sendable, Hashable {
    /// The tag as most items spell it (tags that differ only in case are one tag).
    public var tag: String
    /// How many items carry it.
    public var count: Int
    /// How many items carry it or a tag under it: what `ItemQuery(tag:)` finds.
    public var total: Int

    /// The folder names of ``tag``, outermost first: `["Work", "Email"]`.
    public var path: [Substring] { TagCount.path(of: tag) ?? [Substring(tag)] }

    /// The folders of `tag`, or nil when it is no path (an empty part: `/x`, `a//b`).
    static func path(of tag: String) -> [Substring]? {
        let parts = tag.split(separator: "/", omittingEmptySubsequences: false)
        return parts.contains(where: \.isEmpty) ? nil : parts
    }
}

extension Vault {
    /// Every tag in the vault with the number of items carrying it and carrying it or a
    /// tag under it, as a tree: each folder before the tags under it, siblings ordered
    /// ignoring case. Spellings that differ only in case count as one tag
    /// (``SearchFolding/foldTag(_:)``), shown as most items spell it. Decrypts no secret.
    ///
    /// ```swift
    /// for entry in try vault.tags() {   // 3 Work (1 itself), 2 Work/Email, 1 bank
    ///     print(String(repeating: "  ", count: entry.path.count - 1) + entry.path.last!, entry.total)
    /// }
    /// ```
    public func tags() throws(CofferError) -> [TagCount] {
        var spellings: [String: [String: Int]] = [:], counts: [String: Int] = [:], totals: [String: Int] = [:]
        for item in try items() {
            // An item tagged "Work" and "work" counts once; one in two folders under Work counts once for Work.
            var carried = Set<String>(), within = Set<String>()
            for tag in item.attributes.tags {
                let folded = SearchFolding.foldTag(tag)
                if carried.insert(folded).inserted { counts[folded, default: 0] += 1 }
                let parts = TagCount.path(of: tag) ?? [Substring(tag)]
                for depth in 1...parts.count {
                    let folder = parts[..<depth].joined(separator: "/")
                    let key = depth == parts.count ? folded : SearchFolding.foldTag(folder)
                    spellings[key, default: [:]][folder, default: 0] += 1
                    within.insert(key)
                }
            }
            for key in within { totals[key, default: 0] += 1 }
        }
        func order(_ key: String) -> [Substring] { TagCount.path(of: key) ?? [Substring(key)] }
        return spellings.keys.sorted { order($0).lexicographicallyPrecedes(order($1)) }.map { key in
            let shown = spellings[key]?.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
            return TagCount(tag: shown, count: counts[key] ?? 0, total: totals[key] ?? 0)
        }
    }
}

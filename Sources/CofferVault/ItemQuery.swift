import CofferCrypto
import CofferFormat
import CofferStore
/// Which items to find. Every attribute set must match; `nil` matches anything.
///
/// ```swift
/// let work = try vault.items(matching: ItemQuery(tag: "work"))
/// let one = try vault.items(matching: ItemQuery(service: "github.com", account: "octocat", limit: 1))
/// let search = try vault.items(matching: ItemQuery(text: "bank"))   // case- and accent-insensitive, attributes only
/// let typo = try vault.items(matching: ItemQuery(text: "gthub"))     // finds "github", after exact substrings
/// let site = try vault.items(matching: ItemQuery(server: "GitHub.com"))   // finds "github.com" too
/// ```
///
/// `server` and `protocol` compare as ``ServerAddress`` normalises them (ignoring case);
/// `tag` ignores case and `text` case and diacritics (``SearchFolding``); every other
/// attribute compares exactly.
public struct ItemQuery: Sendable, Hashable {
    public var kind: ItemKind?
    public var service: String?
    public var account: String?
    /// A host; case is ignored (``ServerAddress/normalizedHost(_:)``).
    public var server: String?
    /// A scheme such as `"https"`; case is ignored.
    public var `protocol`: String?
    public var port: UInt16?
    public var path: String?
    public var label: String?
    /// Matches items carrying this tag or a tag under it (`Work` matches `Work/Email`:
    /// tags are folders separated by `/`), ignoring case (``SearchFolding/tag(_:isWithin:)``).
    public var tag: String?
    public var isFavorite: Bool?
    /// Ignoring case and diacritics (``SearchFolding``): a substring of label, service,
    /// account, server, URLs, tags, comment or field values; or, from 3 characters, its
    /// letters in order with gaps in a name (label, service, server, account). Substring
    /// matches come first in the results, then these.
    public var text: String?
    /// At most this many results.
    public var limit: Int?

    public init(kind: ItemKind? = nil, service: String? = nil, account: String? = nil, server: String? = nil,
                protocol: String? = nil, port: UInt16? = nil, path: String? = nil, label: String? = nil,
                tag: String? = nil, isFavorite: Bool? = nil, text: String? = nil, limit: Int? = nil) {
        self.kind = kind
        self.service = service
        self.account = account
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.label = label
        self.tag = tag
        self.isFavorite = isFavorite
        self.text = text
        self.limit = limit
    }

    /// Every item.
    public static let all = ItemQuery()

    /// True when no attribute filter is set (a limit aside): every item matches.
    var selectsEverything: Bool {
        (text ?? "").isEmpty && kind == nil && service == nil && account == nil && server == nil && self.protocol == nil
            && port == nil && path == nil && label == nil && tag == nil && isFavorite == nil
    }

    /// `matches(_:)` from an item's overview field list, without decoding it: false or
    /// true when the list's bytes decide, nil when only the attributes can tell (a text
    /// search, or non-ASCII text that differs in bytes but may be canonically equal).
    func matches(overview list: [UInt8]) -> Bool? {
        if let text, !text.isEmpty { return nil }
        if selectsEverything { return true }
        return list.withUnsafeBytes { (raw) -> Bool? in
            guard let f = OverviewFields(raw) else { return nil }
            var unsure = false
            func check(_ wanted: String?, _ range: Range<Int>?) -> Bool {
                guard let wanted else { return true }
                guard let range else { return false }
                switch OverviewFields.compare(range, in: raw, with: wanted) {
                case true?: return true
                case false?: return false
                case nil: unsure = true; return true
                }
            }
            // A host, scheme or tag: equal once ASCII letters are lowercased; other text is
            // left to the attributes. `folder`: a tag under the wanted one matches too.
            func checkIgnoringCase(_ wanted: String?, _ range: Range<Int>?, folder: Bool = false) -> Bool {
                guard let wanted else { return true }
                guard let range else { return false }
                let stored = UnsafeRawBufferPointer(rebasing: raw[range])
                func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                guard wanted.utf8.allSatisfy({ $0 < 0x80 }), stored.allSatisfy({ $0 < 0x80 }) else { unsure = true; return true }
                let count = wanted.utf8.count
                guard wanted.utf8.count == stored.count
                        || (folder && stored.count > count && stored[count] == UInt8(ascii: "/")) else { return false }
                return zip(wanted.utf8, stored).allSatisfy { lower($0) == lower($1) }
            }
            if let kind, kind.code != f.kind { return false }
            if let port, f.port != port { return false }
            if let isFavorite, f.isFavorite != isFavorite { return false }
            guard check(service, f.service), check(account, f.account), checkIgnoringCase(server, f.server),
                  checkIgnoringCase(self.protocol, f.protocol), check(path, f.path), check(label, f.label) else { return false }
            if let tag {
                // (checkIgnoringCase marks non-ASCII tags unsure: the attributes decide.)
                let folder = SearchFolding.folderName(tag)
                let found = f.tags.contains { checkIgnoringCase(folder, $0, folder: !folder.isEmpty) }
                if !found && !unsure { return false }
            }
            return unsure ? nil : true
        }
    }

    func matches(_ a: ItemAttributes) -> Bool {
        if let kind, a.kind != kind { return false }
        if let service, a.service != service { return false }
        if let account, a.account != account { return false }
        if let server, !(a.server.map { ServerAddress.sameHost($0, server) } ?? false) { return false }
        if let p = self.protocol, !(a.protocol.map { ServerAddress.sameHost($0, p) } ?? false) { return false }
        if let port, a.port != port { return false }
        if let path, a.path != path { return false }
        if let label, a.label != label { return false }
        if let tag {
            guard a.tags.contains(where: { SearchFolding.tag($0, isWithin: tag) }) else { return false }
        }
        if let isFavorite, a.isFavorite != isFavorite { return false }
        if let text, !text.isEmpty, SearchFolding.rank(a, folded: SearchFolding.fold(text)) == nil { return false }
        return true
    }

    /// Substring matches of ``text`` before subsequence ones, each in reading order
    /// (`sortedForReading()`, as `list` shows items).
    func ranked(_ items: [Item]) -> [Item] {
        guard let text, !text.isEmpty else { return items }
        let folded = SearchFolding.fold(text)
        var groups: [[Item]] = [[], [], []]
        for item in items { groups[SearchFolding.rank(item.attributes, folded: folded) ?? 2].append(item) }
        return groups.flatMap { $0.sortedForReading() }
    }
}

import Foundation

import CofferCrypto
import CofferFormat
import CofferStore
/// Which items to find. Every attribute set must match; `nil` matches anything.
///
/// ```swift
/// let work = try vault.items(matching: ItemQuery(tag: "work"))
/// let one = try vault.items(matching: ItemQuery(service: "github.com", account: "octocat", limit: 1))
/// let search = try vault.items(matching: ItemQuery(text: "bank"))   // case-insensitive, attributes only
/// let site = try vault.items(matching: ItemQuery(server: "GitHub.com"))   // finds "github.com" too
/// ```
///
/// `server` and `protocol` compare as ``ServerAddress`` normalises them (ignoring case);
/// every other attribute compares exactly.
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
    /// Matches items carrying this tag.
    public var tag: String?
    public var isFavorite: Bool?
    /// Case-insensitive substring of label, service, account, server, URLs, tags, comment or field values.
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
            // A host or scheme: equal once ASCII letters are lowercased; other text is
            // left to the attributes.
            func checkHost(_ wanted: String?, _ range: Range<Int>?) -> Bool {
                guard let wanted else { return true }
                guard let range else { return false }
                let stored = UnsafeRawBufferPointer(rebasing: raw[range])
                func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
                guard wanted.utf8.allSatisfy({ $0 < 0x80 }), stored.allSatisfy({ $0 < 0x80 }) else { unsure = true; return true }
                return wanted.utf8.count == stored.count && zip(wanted.utf8, stored).allSatisfy { lower($0) == lower($1) }
            }
            if let kind, kind.code != f.kind { return false }
            if let port, f.port != port { return false }
            if let isFavorite, f.isFavorite != isFavorite { return false }
            guard check(service, f.service), check(account, f.account), checkHost(server, f.server),
                  checkHost(self.protocol, f.protocol), check(path, f.path), check(label, f.label) else { return false }
            if let tag {
                var found = false
                for range in f.tags {
                    switch OverviewFields.compare(range, in: raw, with: tag) {
                    case true?: found = true
                    case false?: break
                    case nil: unsure = true
                    }
                    if found { break }
                }
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
        if let tag, !a.tags.contains(tag) { return false }
        if let isFavorite, a.isFavorite != isFavorite { return false }
        if let text, !text.isEmpty {
            let haystack = [a.label, a.service, a.account, a.server, a.comment].compactMap { $0 }
                + a.urls + a.tags + a.fields.map(\.value)
            guard haystack.contains(where: { $0.range(of: text, options: .caseInsensitive) != nil }) else { return false }
        }
        return true
    }
}

import Foundation

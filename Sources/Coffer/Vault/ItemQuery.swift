/// Which items to find. Every attribute set must match; `nil` matches anything.
///
/// ```swift
/// let work = try vault.items(matching: ItemQuery(tag: "work"))
/// let one = try vault.items(matching: ItemQuery(service: "github.com", account: "octocat", limit: 1))
/// let search = try vault.items(matching: ItemQuery(text: "bank"))   // case-insensitive, attributes only
/// ```
public struct ItemQuery: Sendable, Hashable {
    public var kind: ItemKind?
    public var service: String?
    public var account: String?
    public var server: String?
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

    func matches(_ a: ItemAttributes) -> Bool {
        if let kind, a.kind != kind { return false }
        if let service, a.service != service { return false }
        if let account, a.account != account { return false }
        if let server, a.server != server { return false }
        if let p = self.protocol, a.protocol != p { return false }
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

import CofferCrypto
import Foundation

/// The searchable, non-secret part of an item: everything except passwords,
/// notes, secret fields, password history and attachments.
///
/// Listing and searching a vault decrypts only attributes; secrets are decrypted
/// one item at a time, when asked for.
///
/// ```swift
/// var attributes = ItemAttributes.genericPassword(service: "github.com", account: "octocat")
/// attributes.label = "GitHub"
/// attributes.tags = ["work"]
/// attributes.urls = ["https://github.com/login"]
/// ```
public struct ItemAttributes: Sendable, Hashable, Codable {
    /// What the item is: generic password, internet password or secure note.
    public var kind: ItemKind
    /// A display name. For secure notes, the title.
    public var label: String?
    /// Generic passwords: the service, e.g. `"github.com"` or `"com.example.app"`.
    public var service: String?
    /// The account or user name.
    public var account: String?
    /// Internet passwords: the host, e.g. `"example.com"`.
    public var server: String?
    /// Internet passwords: the protocol, e.g. `"https"`.
    public var `protocol`: String?
    /// Internet passwords: the port, if not the protocol's default.
    public var port: UInt16?
    /// Internet passwords: the path on the server.
    public var path: String?
    /// A short, non-secret comment.
    public var comment: String?
    /// Web addresses where the item is used.
    public var urls: [String]
    /// Free-form labels to group and find items (``ItemQuery/tag``).
    public var tags: [String]
    /// Marked as a favourite (``ItemQuery/isFavorite``).
    public var isFavorite: Bool
    /// Non-secret custom fields.
    public var fields: [CustomField]
    /// When the item was created (millisecond precision).
    public var created: Date
    /// When the item last changed; set by every update.
    public var modified: Date
    /// When the item's secret should be replaced (KeePass's "expires"); nil: never.
    /// Stored with millisecond precision; ``isExpired(at:)`` compares it with a time.
    ///
    /// ```swift
    /// var attributes = ItemAttributes.genericPassword(service: "vpn.example.com", account: "ada")
    /// attributes.expires = ISO8601DateFormatter().date(from: "2027-01-31T00:00:00Z")
    /// attributes.isExpired(at: Date())   // false until then
    /// ```
    public var expires: Date? {
        get { _expires }
        set { _expires = newValue?.roundedToMilliseconds }
    }
    private var _expires: Date?
    /// Fields written by a newer Coffer that this version does not know, kept on save.
    package var preservedFields: [PreservedField] = []

    /// Attributes with every field given; see the kind-specific factories for the usual cases.
    public init(kind: ItemKind, label: String? = nil, service: String? = nil, account: String? = nil,
                server: String? = nil, protocol: String? = nil, port: UInt16? = nil, path: String? = nil,
                comment: String? = nil, urls: [String] = [], tags: [String] = [], isFavorite: Bool = false,
                fields: [CustomField] = [], created: Date = Date(), modified: Date? = nil) {
        self.kind = kind
        self.label = label
        self.service = service
        self.account = account
        self.server = server
        self.protocol = `protocol`
        self.port = port
        self.path = path
        self.comment = comment
        self.urls = urls
        self.tags = tags
        self.isFavorite = isFavorite
        self.fields = fields
        // Stored with millisecond precision; round now so a saved item equals itself.
        self.created = created.roundedToMilliseconds
        self.modified = (modified ?? created).roundedToMilliseconds
    }

    /// Attributes of a generic password.
    public static func genericPassword(service: String, account: String) -> ItemAttributes {
        ItemAttributes(kind: .genericPassword, service: service, account: account)
    }

    /// Attributes of an internet password.
    public static func internetPassword(server: String, account: String, protocol: String? = nil,
                                        port: UInt16? = nil, path: String? = nil) -> ItemAttributes {
        ItemAttributes(kind: .internetPassword, account: account, server: server, protocol: `protocol`, port: port, path: path)
    }

    /// Attributes of a secure note; the title is stored as the label.
    public static func secureNote(title: String) -> ItemAttributes {
        ItemAttributes(kind: .secureNote, label: title)
    }

    /// True when the item has an expiry date at or before `now`.
    public func isExpired(at now: Date = Date()) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    private enum CodingKeys: String, CodingKey {
        case kind, label, service, account, server, `protocol`, port, path, comment, urls, tags, isFavorite, fields, created, modified
        case _expires = "expires"
    }
}

/// A field the format carries but this version does not interpret (SPEC.md §Forward compatibility).
package struct PreservedField: Sendable, Hashable {
    let tag: UInt16
    let value: [UInt8]
}

extension Date {
    package var millisecondsSince1970: Int64 {
        let ms = (timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return 0 }
        // Int64(ms) traps outside its range; dates that far out are clamped.
        if ms >= 9.2e18 { return .max }
        if ms <= -9.2e18 { return .min }
        return Int64(ms)
    }

    package init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }

    package var roundedToMilliseconds: Date { Date(millisecondsSince1970: millisecondsSince1970) }
}

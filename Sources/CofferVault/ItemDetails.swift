import CofferCrypto
import CofferFormat
import Foundation

/// The whole of an item as it can be shown without a secret: its attributes, and of its
/// secret part what is there but not the values (whether it has a password and notes, the
/// names of its secret fields, when earlier passwords were replaced, attachment names and
/// sizes). What `coffer show` prints; the values stay in ``Vault/secrets(for:)``.
///
/// ```swift
/// let details = try vault.details(of: item.id)
/// print(details.secretFieldNames)            // ["API token", "otp"]
/// print(details.passwordHistory.count)       // 3 earlier passwords
/// for file in details.attachments { print(file.name, file.size) }
/// ```
public struct ItemDetails: Sendable, Hashable {
    /// The item: id, revision and every attribute (label, tags, favourite, dates…).
    public var item: Item
    /// True when the item has a password.
    public var hasPassword: Bool
    /// True when the item has notes (a secure note's text).
    public var hasNotes: Bool
    /// The names of the secret custom fields, in the item's order.
    public var secretFieldNames: [String]
    /// When each earlier password was replaced, newest first (``ItemSecrets/passwordHistory``).
    public var passwordHistory: [Date]
    /// The attachments' names and sizes, in the item's order.
    public var attachments: [AttachmentSummary]

    public init(item: Item, secrets: ItemSecrets) {
        self.item = item
        hasPassword = secrets.password != nil
        hasNotes = secrets.notes != nil
        secretFieldNames = secrets.fields.map(\.name)
        passwordHistory = secrets.passwordHistory.map(\.replaced)
        attachments = secrets.attachments.map { AttachmentSummary(name: $0.name, size: $0.data.count) }
    }
}

/// An attachment without its bytes: its file name and size.
public struct AttachmentSummary: Sendable, Hashable {
    public var name: String
    /// The size in bytes.
    public var size: Int

    public init(name: String, size: Int) {
        self.name = name
        self.size = size
    }
}

extension Vault {
    /// The item with `id` and a secret-free summary of its secret part, read together
    /// (``ItemDetails``); throws ``CofferError/itemNotFound``.
    ///
    /// ```swift
    /// let details = try vault.details(of: try vault.item(named: ItemName("github")).id)
    /// ```
    public func details(of id: ItemID) throws(CofferError) -> ItemDetails {
        try read { (tx) throws(CofferError) in ItemDetails(item: try tx.item(id), secrets: try tx.secrets(for: id)) }
    }
}

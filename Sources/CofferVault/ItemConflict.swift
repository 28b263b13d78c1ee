import CofferCrypto
import CofferFormat
import Foundation

/// A value of an item that lost to a concurrent edit of the same field on another replica
/// of the vault (SPEC.md §17.5). Nothing is lost in a merge: the newer edit wins, and
/// the other value is kept here until the conflict is resolved
/// (``VaultTransaction/resolveConflicts(for:)``). A losing password also appears in the
/// item's ``ItemSecrets/passwordHistory``.
///
/// ```swift
/// for conflict in try vault.conflicts(for: item.id) {
///     print(conflict.field, conflict.name ?? "", conflict.date, conflict.attributes?.label ?? "")
/// }
/// try vault.resolveConflicts(for: item.id)
/// ```
public struct ItemConflict: Sendable {
    /// The field that was edited on two replicas at once: `label`, `service`, `account`,
    /// `server`, `protocol`, `port`, `path`, `comment`, `urls`, `tags`, `favorite`, `fields`,
    /// `kind`, `password`, `notes`, `secret-fields`, `attachments` (or `unknown-attributes`,
    /// `unknown-secrets` for fields of a newer Coffer).
    public let field: String
    /// For a named field (`fields`, `secret-fields`, `attachments`): its name, also when the
    /// losing edit removed it (taken from the item's other values of that field); nil for
    /// other fields, or when no value of the item names it (two devices both removed it).
    public let name: String?
    /// When the losing edit was made, by its device's clock (for display only: merges do
    /// not trust wall clocks).
    public let date: Date
    /// For an attribute: the losing value, as the only field set in otherwise empty
    /// attributes (kind `genericPassword` unless the conflict is about the kind).
    public let attributes: ItemAttributes?
    /// For a secret field: the losing value, as the only part set in otherwise empty secrets.
    public let secrets: ItemSecrets?
    /// True when the losing edit removed the field's value.
    public let isRemoval: Bool

    init(_ conflict: ItemParts.Conflict, name: String?) throws(CofferError) {
        field = conflict.register.description
        self.name = name
        date = Date(millisecondsSince1970: conflict.stamp.milliseconds)
        isRemoval = conflict.value.range.isEmpty
        let value = try formatCall { () throws(FormatError) in try conflict.value.copy() }
        if conflict.register.isSecret {
            secrets = try formatCall { () throws(FormatError) in
                try value.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            }
            attributes = nil
        } else {
            let bytes = value.withUnsafeBytes { Array($0) }
            attributes = try formatCall { () throws(FormatError) in try ItemParts.attributes(of: conflict.register, fields: bytes) }
            secrets = nil
        }
    }
}

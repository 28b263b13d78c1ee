import CofferCrypto
import Foundation

/// The secret part of an item, held in guarded memory.
///
/// ```swift
/// var secrets = ItemSecrets(password: try SecureBytes(copying: "s3cret"))
/// secrets.fields.append(SecretField(name: "PIN", value: try SecureBytes(copying: "1234")))
/// ```
public struct ItemSecrets: Sendable, Equatable {
    /// The item's password, if it has one.
    public var password: SecureBytes?
    /// Free text, e.g. a secure note's body.
    public var notes: SecureBytes?
    /// Secret custom fields (one-time-password seeds, PINs, recovery codes).
    public var fields: [SecretField]
    /// Earlier passwords, newest first; bounded by the vault (see ``VaultOptions/passwordHistoryLimit``).
    public var passwordHistory: [PasswordHistoryEntry]
    /// Files kept with the item, e.g. recovery-code PDFs or key files.
    public var attachments: [Attachment]
    package var preservedFields: [PreservedSecretField] = []

    /// Secrets for a new or updated item; every part is optional.
    public init(password: SecureBytes? = nil, notes: SecureBytes? = nil, fields: [SecretField] = [],
                passwordHistory: [PasswordHistoryEntry] = [], attachments: [Attachment] = []) {
        self.password = password
        self.notes = notes
        self.fields = fields
        self.passwordHistory = passwordHistory
        self.attachments = attachments
    }

    /// The secret field named `name`, if any.
    public func field(named name: String) -> SecureBytes? {
        fields.first { $0.name == name }?.value
    }
}

/// A named secret value.
public struct SecretField: Sendable, Equatable {
    /// The field's name, e.g. `"PIN"` or `"otp"`.
    public var name: String
    /// The secret value, in guarded memory.
    public var value: SecureBytes
    /// A secret field named `name`.
    public init(name: String, value: SecureBytes) {
        self.name = name
        self.value = value
    }
}

/// A password the item had before, and when it was replaced.
public struct PasswordHistoryEntry: Sendable, Equatable {
    /// The earlier password.
    public var password: SecureBytes
    /// When it was replaced (millisecond precision).
    public var replaced: Date
    /// A history entry; `replaced` is rounded to milliseconds as stored.
    public init(password: SecureBytes, replaced: Date) {
        self.password = password
        self.replaced = replaced.roundedToMilliseconds
    }
}

/// A file kept inside an item's secret part.
public struct Attachment: Sendable, Equatable {
    /// The attachment's file name.
    public var name: String
    /// The attachment's bytes, in guarded memory.
    public var data: SecureBytes
    /// An attachment named `name`.
    public init(name: String, data: SecureBytes) {
        self.name = name
        self.data = data
    }
}

/// An unknown secret-part field kept on save; its value may be secret, so it stays guarded.
package struct PreservedSecretField: Sendable, Equatable {
    let tag: UInt16
    let value: SecureBytes
}

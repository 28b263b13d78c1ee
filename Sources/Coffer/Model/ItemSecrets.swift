import Foundation

/// The secret part of an item, held in guarded memory.
///
/// ```swift
/// var secrets = ItemSecrets(password: try SecureBytes(copying: "s3cret"))
/// secrets.fields.append(SecretField(name: "PIN", value: try SecureBytes(copying: "1234")))
/// ```
public struct ItemSecrets: Sendable, Equatable {
    public var password: SecureBytes?
    /// Free text, e.g. a secure note's body.
    public var notes: SecureBytes?
    /// Secret custom fields (one-time-password seeds, PINs, recovery codes).
    public var fields: [SecretField]
    /// Earlier passwords, newest first; bounded by the vault (see ``VaultOptions/passwordHistoryLimit``).
    public var passwordHistory: [PasswordHistoryEntry]
    public var attachments: [Attachment]
    var preservedFields: [PreservedSecretField] = []

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
    public var name: String
    public var value: SecureBytes
    public init(name: String, value: SecureBytes) {
        self.name = name
        self.value = value
    }
}

/// A password the item had before, and when it was replaced.
public struct PasswordHistoryEntry: Sendable, Equatable {
    public var password: SecureBytes
    public var replaced: Date
    public init(password: SecureBytes, replaced: Date) {
        self.password = password
        self.replaced = replaced.roundedToMilliseconds
    }
}

/// A file kept inside an item's secret part.
public struct Attachment: Sendable, Equatable {
    public var name: String
    public var data: SecureBytes
    public init(name: String, data: SecureBytes) {
        self.name = name
        self.data = data
    }
}

/// An unknown secret-part field kept on save; its value may be secret, so it stays guarded.
struct PreservedSecretField: Sendable, Equatable {
    let tag: UInt16
    let value: SecureBytes
}

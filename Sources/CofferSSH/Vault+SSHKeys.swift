import CofferCrypto
import CofferFormat
import CofferVault

/// An SSH key kept in a vault: its item and public key, read from the item's attributes
/// alone (no secret is decrypted to list keys).
public struct StoredSSHKey: Sendable {
    public let item: Item
    public let publicKey: SSHPublicKey
}

/// SSH keys in a vault, by one convention and no change to the file format: a secure note
/// whose non-secret field ``Vault/sshPublicKeyField`` holds the public key line
/// (`ssh-ed25519 AAAA… comment`) and whose secret field ``Vault/sshPrivateKeyField`` holds
/// the OpenSSH private key file, tagged ``Vault/sshKeyTag``. `coffer get VAULT NAME --field
/// ssh-private-key` gives the key file back.
///
/// ```swift
/// let file = try SecureBytes.readSecretFile(at: keyPath, maximumSize: SSHPrivateKey.maximumFileSize)
/// let item = try vault.addSSHKey(try SSHPrivateKey(openSSHFile: file), file: file, label: "laptop")
/// for key in try vault.sshKeys() { print(key.publicKey.fingerprint, key.item.displayName) }
/// let signer = try vault.sshPrivateKey(for: try vault.sshKeys()[0])
/// ```
extension Vault {
    /// The non-secret field holding the public key line.
    public static let sshPublicKeyField = "ssh-public-key"
    /// The secret field holding the OpenSSH private key file.
    public static let sshPrivateKeyField = "ssh-private-key"
    /// The tag of SSH key items.
    public static let sshKeyTag = "ssh-key"

    /// Every SSH key of the vault, in listing order: the items with a readable
    /// ``sshPublicKeyField`` (an item whose field is not an Ed25519 key line is skipped).
    public func sshKeys() throws(CofferError) -> [StoredSSHKey] {
        try items(matching: ItemQuery(kind: .secureNote)).compactMap { item in
            guard let line = item.fields.first(where: { $0.name == Self.sshPublicKeyField })?.value,
                  let key = try? SSHPublicKey(openSSHLine: line) else { return nil }
            return StoredSSHKey(item: item, publicKey: key)
        }
    }

    /// Adds `key`, read from `file` (kept whole as the secret field), as a secure note
    /// titled `label`, else the key's comment, else its fingerprint. A key the vault already
    /// holds is ``CofferError/duplicateItem``.
    @discardableResult
    public func addSSHKey(_ key: SSHPrivateKey, file: SecureBytes, label: String? = nil) throws(CofferError) -> Item {
        guard try !sshKeys().contains(where: { $0.publicKey.blob == key.publicKey.blob }) else { throw .duplicateItem }
        let title = label ?? (key.publicKey.comment.isEmpty ? "SSH key \(key.publicKey.fingerprint)" : key.publicKey.comment)
        var attributes = ItemAttributes.secureNote(title: title)
        attributes.tags = [Self.sshKeyTag]
        attributes.fields = [CustomField(name: Self.sshPublicKeyField, value: key.publicKey.openSSHLine)]
        return try add(attributes, secrets: ItemSecrets(fields: [SecretField(name: Self.sshPrivateKeyField, value: file)]))
    }

    /// The private key of a stored key, read from its secret field into guarded memory. It
    /// must be the key the item's public field names (an edited field is
    /// ``CofferError/invalidKey(_:)``), so an agent never signs with a key it did not list.
    public func sshPrivateKey(for stored: StoredSSHKey) throws(CofferError) -> SSHPrivateKey {
        guard let file = try secrets(for: stored.item.id).field(named: Self.sshPrivateKeyField) else {
            throw .invalidKey("\(stored.item.displayName) has no \(Self.sshPrivateKeyField) field")
        }
        let key = try SSHPrivateKey(openSSHFile: file)
        guard key.publicKey.blob == stored.publicKey.blob else {
            throw .invalidKey("the private key of \(stored.item.displayName) is not the key its \(Self.sshPublicKeyField) field names")
        }
        return key
    }
}

import CofferCrypto
import CofferFormat
import CofferStore

/// Files kept in an item's secret part (``Attachment``): add, list, read and remove one
/// by name. They are sealed with the item's other secrets, merge and export as the rest
/// of the secret part does, and are never in the overview (names and sizes are secret too).
///
/// One attachment is at most ``Vault/maximumAttachmentSize`` bytes; an item's whole
/// secret part, attachments included, is bounded by the format (SPEC.md: 64 MiB of
/// ciphertext), so a save past it fails with a typed error.
///
/// ```swift
/// try vault.attach(try SecureBytes.readSecretFile(at: "codes.pdf"), named: "codes.pdf", to: item.id)
/// let names = try vault.details(of: item.id).attachments.map(\.name)   // ["codes.pdf"]
/// try vault.writeAttachment(named: "codes.pdf", of: item.id, toFile: "/tmp/codes.pdf")   // mode 0600
/// try vault.detach(named: "codes.pdf", from: item.id)
/// ```
extension Vault {
    /// The largest attachment ``attach(_:named:to:replacing:)`` takes: 16 MiB.
    public static let maximumAttachmentSize = 16 << 20

    /// Adds `data` to the item as the attachment `name`. A name the item already has is
    /// ``CofferError/Kind/duplicateItem`` unless `replacing`; an empty name, or one with a
    /// `/` or a control character, is ``CofferError/Kind/invalidArgument``; more than
    /// ``maximumAttachmentSize`` bytes is ``CofferError/Kind/fileTooLarge``.
    @discardableResult
    public func attach(_ data: SecureBytes, named name: String, to id: ItemID, replacing: Bool = false) throws(CofferError) -> Item {
        guard !name.isEmpty, !name.contains("/"), !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("an attachment's name must be a file name: not empty, no / and no control characters")
        }
        guard data.count <= Self.maximumAttachmentSize else {
            throw .fileTooLarge("an attachment holds at most \(Self.maximumAttachmentSize >> 20) MiB")
        }
        return try write { (tx) throws(CofferError) -> Item in
            var secrets = try tx.secrets(for: id)
            if let index = secrets.attachments.firstIndex(where: { $0.name == name }) {
                guard replacing else { throw CofferError(CofferError.Kind.duplicateItem, detail: "the item already has an attachment named \(name)") }
                secrets.attachments[index].data = data
            } else {
                secrets.attachments.append(Attachment(name: name, data: data))
            }
            return try tx.replaceSecrets(of: id, with: secrets)
        }
    }

    /// The attachment `name` of the item (its bytes in guarded memory), or nil when it has none so named.
    public func attachment(named name: String, of id: ItemID) throws(CofferError) -> Attachment? {
        try secrets(for: id).attachments.first { $0.name == name }
    }

    /// Writes the attachment `name` to a new file at `path` with mode 0600 (never over an
    /// existing file or through a symbolic link; flushed to disk). No attachment so named
    /// is ``CofferError/itemNotFound``; an existing file ``CofferError/fileExists(_:)``.
    public func writeAttachment(named name: String, of id: ItemID, toFile path: String) throws(CofferError) {
        guard let attachment = try attachment(named: name, of: id) else { throw .itemNotFound }
        try attachment.data.writeNewSecretFile(at: path)
    }

    /// Removes the attachment `name` from the item; ``CofferError/itemNotFound`` when it has none so named.
    @discardableResult
    public func detach(named name: String, from id: ItemID) throws(CofferError) -> Item {
        try write { (tx) throws(CofferError) -> Item in
            var secrets = try tx.secrets(for: id)
            guard let index = secrets.attachments.firstIndex(where: { $0.name == name }) else { throw .itemNotFound }
            secrets.attachments.remove(at: index)
            return try tx.replaceSecrets(of: id, with: secrets)
        }
    }
}

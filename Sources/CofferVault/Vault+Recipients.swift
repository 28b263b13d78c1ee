import Foundation
import CofferCrypto
import CofferFormat

/// A recipient slot as ``Vault/recipients`` lists it: whom the vault is shared with.
///
/// ```swift
/// for share in vault.recipients {
///     print(share.label, share.recipient.kind, share.recipient.fingerprint, share.added)
/// }
/// ```
public struct VaultShare: Sendable, Hashable {
    /// The public key the slot wraps the vault key for.
    public let recipient: VaultRecipient
    /// The name it was shared under (`coffer share --name`); may be empty. Labels are
    /// stored in the file's header, readable without a key, like the public key itself.
    public let label: String
    /// When it was shared (by the clock of the device that shared it).
    public let added: Date
}

extension VaultTransaction {
    /// Adds a recipient slot for `recipient` under `label` (SPEC.md §4.11). Throws
    /// ``CofferError/Kind/slotUnavailable`` when the vault is already shared with that key
    /// or another share has that label, or the vault has 32 slots.
    public func addRecipient(_ recipient: VaultRecipient, label: String = "") throws(CofferError) {
        try ensureOpen()
        var header = self.header
        let shares = header.slots.compactMap(\.recipientSlot)
        if shares.contains(where: { $0.recipient == recipient }) {
            throw .slotUnavailable("the vault is already shared with \(recipient.fingerprint)")
        }
        if !label.isEmpty, shares.contains(where: { $0.label == label }) {
            throw .slotUnavailable("another share is labelled \(label); choose another --name")
        }
        guard header.slots.count < FormatV1.maxSlots else { throw .slotUnavailable("a vault has at most \(FormatV1.maxSlots) key slots") }
        let added = UInt64(max(0, vault.now().millisecondsSince1970))
        header.slots.append(try formatCall { () throws(FormatError) in
            try KeySlotV2.make(recipient: recipient, label: label, added: added, vaultID: header.vaultID, epoch: keys, entropy: vault.entropy)
        })
        setHeader(header)
    }

    /// Removes every recipient slot `matches` accepts; returns how many. None is
    /// ``CofferError/Kind/noSuchKeySlot``; the last slot of the vault cannot be removed
    /// (``CofferError/Kind/slotUnavailable``).
    @discardableResult
    public func removeRecipients(where matches: (VaultShare) -> Bool) throws(CofferError) -> Int {
        try ensureOpen()
        var header = self.header
        let kept = header.slots.filter { slot in !(slot.recipientSlot.map { matches($0.share) } ?? false) }
        let removed = header.slots.count - kept.count
        guard removed > 0 else { throw CofferError(CofferError.Kind.noSuchKeySlot, detail: "the vault is not shared with that recipient") }
        guard !kept.isEmpty else { throw .slotUnavailable("cannot remove the last key slot") }
        header.slots = kept
        setHeader(header)
        return removed
    }
}

extension RecipientSlot {
    var share: VaultShare {
        VaultShare(recipient: recipient, label: label, added: Date(millisecondsSince1970: Int64(clamping: added)))
    }
}

/// Sharing a vault by public key (SPEC.md §4.11): each recipient gets a slot that wraps the
/// vault key for their age or SSH key, so they open the vault with their identity and no
/// password. Taking a share back rotates the vault key, like every removal.
extension Vault {
    /// The recipients the vault is shared with, in header order.
    ///
    /// ```swift
    /// let names = vault.recipients.map { $0.label.isEmpty ? $0.recipient.fingerprint : $0.label }
    /// ```
    public var recipients: [VaultShare] {
        withLock { engine.snapshot.header.slots.compactMap(\.recipientSlot).map(\.share) }
    }

    /// Shares the vault with `recipient`: adds a slot that its identity opens. Adding a way
    /// in does not rotate the key. Throws ``CofferError/Kind/slotUnavailable`` when it is
    /// already shared with that key or `label` is taken.
    ///
    /// ```swift
    /// let bob = try VaultRecipient("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFQkfMVE46NcZ8O7UneMHjEy5PLkFwKWkweyJ5HrW53v bob@laptop")
    /// try vault.addRecipient(bob, label: "bob")
    /// // Bob: Vault.open(at: path, credential: .identity(try VaultIdentity(contentsOf: "/home/bob/.ssh/id_ed25519")))
    /// ```
    @discardableResult
    public func addRecipient(_ recipient: VaultRecipient, label: String = "") throws(CofferError) -> VaultShare {
        try write { (tx) throws(CofferError) in try tx.addRecipient(recipient, label: label) }
        return recipients.last { $0.recipient == recipient } ?? VaultShare(recipient: recipient, label: label, added: now())
    }

    /// Takes the share of `recipient` back: removes its slot and rotates the vault key in the
    /// same save (unless `rotatingKey` is false), so nothing saved from now on opens with
    /// that key, nor with a copy its holder kept. ``CofferError/Kind/noSuchKeySlot`` when the
    /// vault is not shared with it.
    ///
    /// ```swift
    /// let change = try vault.removeRecipient(bob)
    /// // change.removed == [.sshRecipient], change.rotated == true
    /// ```
    @discardableResult
    public func removeRecipient(_ recipient: VaultRecipient, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.removeRecipients { $0.recipient == recipient }
            return []
        }
    }

    /// Takes back every share labelled `label` (as ``removeRecipient(_:rotatingKey:)``).
    ///
    /// ```swift
    /// try vault.removeRecipient(labeled: "bob")
    /// ```
    @discardableResult
    public func removeRecipient(labeled label: String, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.removeRecipients { !label.isEmpty && $0.label == label }
            return []
        }
    }
}

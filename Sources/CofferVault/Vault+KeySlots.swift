import CofferCrypto
import CofferFormat

/// What a key-slot change did: which slots it changed, added and removed (by kind, in
/// header order), and the rotation made in the same save (nil when it was skipped).
///
/// ```swift
/// let change = try vault.changePassword(from: oldPassword, to: newPassword)
/// print("changed \(change.changed.count) slot(s); key rotated: \(change.rotated)")
/// ```
public struct KeySlotChange: Sendable, Hashable, Codable {
    /// Slots given a new password (a password slot, or a password and key-file slot's
    /// password factor); empty for other changes.
    public let changed: [KeySlotKind]
    /// Slots added.
    public let added: [KeySlotKind]
    /// Slots removed (not counting those the rotation removed: see ``rotation``).
    public let removed: [KeySlotKind]
    /// The rotation made in the same save, or nil when the caller skipped it.
    public let rotation: KeyRotation?

    /// True when the epoch key was rotated in the same save: nothing saved from now on
    /// opens with a removed or changed credential, nor with a copy made before.
    public var rotated: Bool { rotation != nil }
}

/// Key slots: who can open the vault.
///
/// Every change that takes a way in away (a password change, a removed slot, a required
/// key file) rotates the vault's key in the same save by default (SPEC.md §11.2, §11.3):
/// whoever kept the old credential and a copy of the file (or the vault key it unwrapped)
/// reads nothing saved afterwards. Pass `rotatingKey: false` to skip it; the old key then
/// stays valid for what is saved later, as before.
extension Vault {
    /// Changes the master password in every slot `old` opens: password slots, and the
    /// password factor of password and key-file slots, which keep their key file (not
    /// needed here, and still required). Rotates the key in the same save unless
    /// `rotatingKey` is false. Throws ``CofferError/wrongPassword`` when `old` opens no slot.
    ///
    /// ```swift
    /// let change = try vault.changePassword(from: oldPassword, to: try SecureBytes(copying: "a new, longer passphrase"))
    /// // change.changed: e.g. [.password, .passwordAndKeyFile]; change.rotated: true
    /// ```
    @discardableResult
    public func changePassword(from old: SecureBytes, to new: SecureBytes, keyFile: KeyFile? = nil,
                               rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.changePassword(from: old, to: new, keyFile: keyFile)
        }
    }

    /// Replaces the slots of one kind with a single one for `newPassword`: the password
    /// slot, or with `keyFile` the password and key-file slot. Without the old password it
    /// cannot tell which other slots share it; ``changePassword(from:to:keyFile:rotatingKey:)``
    /// changes every slot the old password opens. Rotates the key unless `rotatingKey` is false.
    ///
    /// ```swift
    /// try vault.changePassword(to: try SecureBytes(copying: "a new, longer passphrase"))
    /// ```
    @discardableResult
    public func changePassword(to newPassword: SecureBytes, keyFile: KeyFile? = nil,
                               rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.changePassword(to: newPassword, keyFile: keyFile)
            return []
        }
    }

    /// Makes `keyFile` a required second factor: adds a password and key-file slot and
    /// removes every slot the password alone opens, in one save (with a rotation unless
    /// `rotatingKey` is false), so the password alone no longer opens the vault.
    /// `password` must be one the vault knows (``CofferError/wrongPassword`` otherwise).
    ///
    /// ```swift
    /// let file = try KeyFile.generate(at: "/media/usb/vault.key")
    /// try vault.requireKeyFile(file, password: password)
    /// // from now on: Vault.open(at: path, credential: .passwordAndKeyFile(password, file))
    /// ```
    @discardableResult
    public func requireKeyFile(_ keyFile: KeyFile, password: SecureBytes, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            _ = try tx.requireKeyFile(keyFile, password: password)
            return []
        }
    }

    /// Adds a key slot, e.g. a key file or a raw key from a platform keystore. Adding a
    /// way in does not rotate the key.
    ///
    /// ```swift
    /// try vault.addKeySlot(.rawKey(deviceKey))
    /// try vault.addKeySlot(.keyFile(try KeyFile(contentsOf: "/media/usb/vault.key")))
    /// ```
    public func addKeySlot(_ credential: VaultCredential) throws(CofferError) {
        try write { (tx) throws(CofferError) in try tx.addKeySlot(credential) }
    }

    /// Removes the slot(s) that `credential` opens; the last slot cannot be removed.
    /// Rotates the key in the same save unless `rotatingKey` is false.
    ///
    /// ```swift
    /// try vault.removeKeySlot(.rawKey(deviceKey))
    /// ```
    @discardableResult
    public func removeKeySlot(_ credential: VaultCredential, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.removeKeySlot(credential)
            return []
        }
    }

    /// Removes the key slots `keyFile` opens (its key-file slots and, given the master
    /// `password`, its password and key-file slots; see
    /// ``VaultTransaction/removeKeySlots(openedBy:password:)``), in one save that rotates the
    /// key unless `rotatingKey` is false. ``KeySlotChange/removed`` lists them.
    ///
    /// ```swift
    /// try vault.removeKeySlots(openedBy: try KeyFile(contentsOf: "/media/usb/vault.key"), password: password)
    /// ```
    @discardableResult
    public func removeKeySlots(openedBy keyFile: KeyFile, password: SecureBytes? = nil,
                               rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            _ = try tx.removeKeySlots(openedBy: keyFile, password: password)
            return []
        }
    }

    /// Removes the slot at `index` in ``slots`` without its key (a lost device key, an
    /// expired session key). Anyone who can open the vault can do this. Rotates the key in
    /// the same save unless `rotatingKey` is false.
    ///
    /// ```swift
    /// if let stale = vault.slots.lastIndex(of: .rawKey) { try vault.removeKeySlot(at: stale) }
    /// ```
    @discardableResult
    public func removeKeySlot(at index: Int, rotatingKey: Bool = true) throws(CofferError) -> KeySlotChange {
        try changingSlots(rotatingKey: rotatingKey) { (tx) throws(CofferError) in
            try tx.removeKeySlot(at: index)
            return []
        }
    }
}

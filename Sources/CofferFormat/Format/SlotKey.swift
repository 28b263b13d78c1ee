import CofferCrypto

/// One key slot's key-encryption key and the slot's identity: what a cached unlock holds
/// (SPEC.md §13.1).
///
/// It opens the vault only while a slot with that identity is in the header, through
/// that slot's AEAD, so removing the slot (a password change, a revoked key file) ends
/// every cached unlock made with it, and a wrong key never yields a vault key.
package struct SlotKey: Sendable {
    /// ``KeySlotRecord/identity``: 16 bytes.
    package let slotIdentity: [UInt8]
    package let slotKind: KeySlotKind
    /// 32 bytes: the Argon2id output (or the raw-key subkey) of SPEC.md §4.
    package let kek: SecureBytes

    package init(slotIdentity: [UInt8], slotKind: KeySlotKind, kek: SecureBytes) {
        self.slotIdentity = slotIdentity
        self.slotKind = slotKind
        self.kek = kek
    }
}

import CofferCrypto

/// What a cached unlock holds for one key slot (SPEC.md §13.1): the slot's identity and
/// type, and the secrets its credential gave without any key of the vault: format 1's
/// key-encryption key, or format 2's seed (two for a password and key-file slot).
///
/// It opens the vault only while a slot with that identity is in the header, through
/// that slot's AEAD, so removing the slot (a password change, a revoked key file) ends
/// every cached unlock made with it, and a wrong secret never yields a vault key.
package struct SlotKey: Sendable {
    /// ``KeySlotRecord/identity`` or ``KeySlotV2/identity``: 16 bytes.
    package let slotIdentity: [UInt8]
    /// The slot's type code as on disk: 1–4 (format 1, or legacy in format 2), 0x11–0x14.
    package let type: UInt8
    /// 32 bytes each: one key-encryption key (types 1–4), one seed (0x11, 0x13, 0x14), or
    /// the password seed then the key-file seed (0x12).
    package let secrets: [SecureBytes]

    package var slotKind: KeySlotKind { KeySlotV2.kind(ofType: type) }
    /// Format 1's key-encryption key (the first secret).
    package var kek: SecureBytes { secrets[0] }

    /// A format-1 slot's key: its KEK (SPEC.md §4).
    package init(slotIdentity: [UInt8], slotKind: KeySlotKind, kek: SecureBytes) {
        self.slotIdentity = slotIdentity
        type = slotKind.code
        secrets = [kek]
    }

    /// A format-2 slot's key: its seeds (SPEC.md §4.8).
    package init(slotIdentity: [UInt8], seeds: KeySlotV2.Seeds) {
        self.slotIdentity = slotIdentity
        type = seeds.type
        secrets = seeds.seeds
    }

    /// The seeds for ``KeySlotV2/open(seeds:vaultID:epochID:)`` (legacy slots' KEK too).
    package var seeds: KeySlotV2.Seeds { KeySlotV2.Seeds(type: type, seeds: secrets) }

    /// How many 32-byte secrets a slot of `type` needs: 2 for a password and key-file slot
    /// of format 2, else 1.
    static func secretCount(type: UInt8) -> Int { type == KeySlotV2.passwordAndKeyFileType ? 2 : 1 }
}

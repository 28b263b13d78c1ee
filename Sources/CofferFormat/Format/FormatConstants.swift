import CofferCrypto
/// The constants of format version 1 (SPEC.md §2, §9).
package enum FormatV1 {
    /// `\x89COFFER\n`: the high bit catches 7-bit transports, `\n` catches newline conversion.
    static let magic: [UInt8] = [0x89, 0x43, 0x4F, 0x46, 0x46, 0x45, 0x52, 0x0A]
    package static let version: UInt16 = 1
    /// magic (8) + version (2) + header length (4).
    static let preambleLength = 14
    static let digestLength = 32
    package static let vaultIDLength = 16
    package static let entryIDLength = 16
    static let saltLength = 16
    package static let keyLength = 32
    package static let nonceLength = 24
    static let tagLength = 16
    static let wrappedKeyLength = 48
    /// Plaintexts are padded to a multiple of this (ISO/IEC 7816-4, `sodium_pad`).
    static let paddingBlock = 64

    // Bounds checked before anything is allocated (SPEC.md §9).
    static let maxHeaderLength = 65_536
    package static let maxSlots = 32
    static let maxSlotBodyLength = 4096
    static let maxExtensions = 64
    static let maxExtensionLength = 16_384
    static let maxEntries = 10_000_000
    static let maxOverviewCiphertext = 1 << 20          // 1 MiB
    static let maxSecretCiphertext = 64 << 20           // 64 MiB
    // Argon2id's bounds (memory, iterations, lanes) are Argon2idParameters' ranges, checked
    // by Argon2idParameters.checkBounds for writers and readers alike.

    // Subkey contexts (SPEC.md §5).
    static let headerKeyContext = "coffer.v1.header"
    static let manifestKeyContext = "coffer.v1.manifest"
    static let overviewKeyContext = "coffer.v1.entry-overview"
    static let secretKeyContext = "coffer.v1.entry-secret"
    static let rawKeySlotContext = "coffer.v1.slot.raw-key"
    // Associated-data labels (SPEC.md §6).
    static let slotADLabel = Array("coffer.v1.slot".utf8) + [0]
    static let entryADLabel = Array("coffer.v1.entry".utf8) + [0]
    static let keyFileLabel = Array("coffer.v1.keyfile".utf8) + [0]
}

/// The constants of format version 2 (SPEC.md §2, §5, §9) that differ from version 1's.
package enum FormatV2 {
    package static let version: UInt16 = 2
    static let epochIDLength = 16
    /// A stamp on disk: replica `u64`, time `u64`.
    static let stampLength = 16
    /// The lookup tag of a manifest row (SPEC.md §8).
    package static let lookupTagLength = 8
    /// X25519 keys and points.
    static let pointLength = 32

    // Bounds checked before anything is allocated (SPEC.md §9).
    static let maxHeaderLength = 1 << 20                // 1 MiB
    static let maxSlotPartLength = 4096
    static let maxExtensionLength = 256 << 10           // 256 KiB
    /// Padded plaintext bounds: the ciphertexts are 16 bytes longer.
    static let maxOverviewPlaintext = 1 << 20           // 1 MiB
    static let maxSecretPlaintext = 64 << 20            // 64 MiB
    /// The largest revision (a manifest row's varint).
    static let maxRevision = UInt64(UInt32.max)
    /// Earlier epochs a file keeps the keys of (SPEC.md §4.9).
    package static let maxKeyHistory = 64
    /// The shortest manifest row: id, nonce, tag, flags, three one-byte varints.
    static let minRowLength = FormatV1.entryIDLength + FormatV1.nonceLength + lookupTagLength + 1 + 3
    /// The longest: revision, overview and secret ciphertext lengths in 5, 3 and 4 bytes.
    static let maxRowLength = FormatV1.entryIDLength + FormatV1.nonceLength + lookupTagLength + 1 + 5 + 3 + 4

    // Subkey contexts (SPEC.md §5).
    static let epochIDContext = "coffer.v2.epoch"
    static let headerKeyContext = "coffer.v2.header"
    static let manifestKeyContext = "coffer.v2.manifest"
    static let overviewKeyContext = "coffer.v2.entry-overview"
    static let secretKeyContext = "coffer.v2.entry-secret"
    static let keyHistoryKeyContext = "coffer.v2.key-history"
    static let lookupKeyContext = "coffer.v2.lookup"
    // Slot derivations (SPEC.md §4.7, §4.8).
    static let x25519Context = "coffer.v2.slot.x25519"
    static let keyFileFactorContext = "coffer.v2.slot.key-file"
    static let rawKeySlotContext = "coffer.v2.slot.raw-key"
    // Labels of hashed inputs and associated data (SPEC.md §4.7, §6).
    static let stanzaLabel = Array("coffer.v2.stanza".utf8) + [0]
    static let entryADLabel = Array("coffer.v2.entry".utf8) + [0]
    static let keyHistoryADLabel = Array("coffer.v2.key-history".utf8) + [0]
}

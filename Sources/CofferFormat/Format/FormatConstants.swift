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
    static let nonceLength = 24
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

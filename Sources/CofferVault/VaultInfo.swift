import CofferCrypto
import CofferFormat
import CofferStore
/// What can be read from a vault file without any password.
///
/// ```swift
/// let info = try Vault.info(at: path)
/// print(info.formatVersion, info.entryCount, info.slots.map(\.kind))
/// ```
public struct VaultInfo: Sendable, Hashable, Codable {
    public let formatVersion: Int
    /// The vault's random id, hex.
    public let vaultID: String
    /// Incremented by every save.
    public let generation: UInt64
    public let slots: [KeySlotInfo]
    /// The number of entries the (not yet authenticated) manifest lists: items, and the
    /// records deleted items leave until they are compacted (SPEC.md §17.5).
    public let entryCount: Int
    public let fileSize: Int

    /// One key slot as listed in the header.
    /// Earlier name of ``KeySlotInfo``.
    @available(*, deprecated, renamed: "KeySlotInfo")
    public typealias SlotInfo = KeySlotInfo

    /// One key slot as `info` reports it: what opens it and how hard it is to guess.
    public struct KeySlotInfo: Sendable, Hashable, Codable {
        public let kind: KeySlotKind
        /// Argon2id parameters, for password and key-file slots.
        public let kdf: Argon2idParameters?
    }
}

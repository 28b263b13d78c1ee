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

    /// How much of a file ``Vault/info(at:scope:)-(String,_)`` reads and checks.
    ///
    /// ```swift
    /// let quick = try Vault.info(at: path)                       // the header only
    /// let checked = try Vault.info(at: path, scope: .wholeFile)  // every keyless check
    /// ```
    public enum Scope: Sendable, Hashable {
        /// The header and the manifest's entry count (at most about 64 KiB of the file).
        case header
        /// The whole file: every check of SPEC.md §10 that needs no key (steps 1–9: the
        /// header, the manifest, and each record's length and layout); no MAC or digest is
        /// checked and nothing is decrypted.
        case wholeFile
    }

    /// What opens the vault: each kind of credential that opens one of its slots, in
    /// header order, without repeats (slots of unknown types open nothing here).
    ///
    /// ```swift
    /// if info.keyFileRequired { print("opens with: password + key file (required)") }
    /// else { print("opens with:", info.opensWith.map(\.description)) }
    /// ```
    public var opensWith: [KeySlotKind] {
        var kinds: [KeySlotKind] = []
        for slot in slots where !kinds.contains(slot.kind) {
            if case .unknown = slot.kind { continue }
            kinds.append(slot.kind)
        }
        return kinds
    }

    /// True when the master password opens the vault only with a key file: there is a
    /// password and key-file slot and no slot the password alone opens
    /// (``Vault/requireKeyFile(_:password:rotatingKey:)``).
    public var keyFileRequired: Bool {
        opensWith.contains(.passwordAndKeyFile) && !opensWith.contains(.password)
    }

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

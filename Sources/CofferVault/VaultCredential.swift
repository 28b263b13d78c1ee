import CofferCrypto
import CofferFormat
import CofferStore
/// What opens a vault: one of its key slots.
///
/// ```swift
/// let password = try SecureBytes(copying: "correct horse battery staple")
/// let vault = try Vault.open(at: path, credential: .password(password))
/// let viaDevice = try Vault.open(at: path, credential: .rawKey(deviceKey))
/// ```
public enum VaultCredential: Sendable {
    /// A password slot.
    case password(SecureBytes)
    /// A key-file slot (the key file alone).
    case keyFile(KeyFile)
    /// A slot that needs both a password and a key file.
    case passwordAndKeyFile(SecureBytes, KeyFile)
    /// A raw-key slot: exactly 32 bytes, e.g. released by a platform keystore after a fingerprint.
    case rawKey(SecureBytes)

    /// The kind of slot this credential opens.
    public var slotKind: KeySlotKind { slotKey.slotKind }

    var slotKey: SlotKey {
        switch self {
        case .password(let p): return .password(p)
        case .keyFile(let k): return .keyFile(material: k.material)
        case .passwordAndKeyFile(let p, let k): return .passwordAndKeyFile(password: p, material: k.material)
        case .rawKey(let r): return .rawKey(r)
        }
    }
}

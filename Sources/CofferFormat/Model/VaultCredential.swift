import CofferCrypto
/// What opens a vault: one of its key slots.
///
/// ```swift
/// let password = try SecureBytes(copying: "correct horse battery staple")
/// let vault = try Vault.open(at: path, credential: .password(password))
/// let viaDevice = try Vault.open(at: path, credential: .rawKey(deviceKey))
/// let shared = try Vault.open(at: path, credential: .identity(try VaultIdentity(contentsOf: "/home/bob/.ssh/id_ed25519")))
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
    /// A recipient slot (a vault shared with an age or SSH key): the identity that holds
    /// its private key, e.g. `VaultIdentity(contentsOf: "~/.ssh/id_ed25519")`.
    case identity(VaultIdentity)

    /// The kind of slot this credential opens.
    public var slotKind: KeySlotKind {
        switch self {
        case .password: return .password
        case .keyFile: return .keyFile
        case .passwordAndKeyFile: return .passwordAndKeyFile
        case .rawKey: return .rawKey
        case .identity(let identity): return identity.slotKind
        }
    }

    /// The error when no slot of this kind opens.
    package var wrongKeyError: FormatError {
        switch self {
        case .password: return .wrongPassword
        case .keyFile, .passwordAndKeyFile: return .wrongKeyFile
        case .rawKey: return .wrongRawKey
        case .identity: return .wrongIdentity
        }
    }
}

import CofferCrypto
/// What unlocks a key slot.
///
/// ```swift
/// let info = try Vault.info(at: url)                       // VaultInfo.slots: [KeySlotInfo]
/// if info.slots.contains(where: { $0.kind == .rawKey }) { /* offer "unlock with device key" */ }
/// if vault.slots.contains(.rawKey) { /* an open Vault's slots are [KeySlotKind] */ }
/// ```
public enum KeySlotKind: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A password, stretched with Argon2id.
    case password
    /// A password and a key file together, both required (Argon2id with the key file as its secret input).
    case passwordAndKeyFile
    /// A key file alone, stretched with Argon2id.
    case keyFile
    /// 32 bytes handed in by the host app, e.g. released by a platform keystore.
    case rawKey
    /// Shared with an age X25519 recipient (`age1…`): its age identity opens it.
    case ageRecipient
    /// Shared with an SSH Ed25519 key: its OpenSSH private key opens it.
    case sshRecipient
    /// A slot type from a newer format revision; kept on save, never used to unlock.
    case unknown(UInt8)

    var code: UInt8 {
        switch self {
        case .password: return 1
        case .passwordAndKeyFile: return 2
        case .keyFile: return 3
        case .rawKey: return 4
        case .ageRecipient: return 0x15
        case .sshRecipient: return 0x16
        case .unknown(let code): return code
        }
    }

    package init(code: UInt8) {
        switch code {
        case 1: self = .password
        case 2: self = .passwordAndKeyFile
        case 3: self = .keyFile
        case 4: self = .rawKey
        default: self = .unknown(code)
        }
    }

    /// True for slots shared with a public key (SPEC.md §4.11), opened by an identity.
    public var isRecipient: Bool { self == .ageRecipient || self == .sshRecipient }

    /// True for slots whose key is stretched by Argon2id.
    var usesArgon2: Bool { code >= 1 && code <= 3 }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        switch text {
        case "password": self = .password
        case "password+key-file": self = .passwordAndKeyFile
        case "key-file": self = .keyFile
        case "raw-key": self = .rawKey
        case "age-recipient": self = .ageRecipient
        case "ssh-recipient": self = .sshRecipient
        default:
            guard text.hasPrefix("unknown("), text.hasSuffix(")"),
                  let code = UInt8(text.dropFirst(8).dropLast()) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown slot kind \(text)"))
            }
            self = .unknown(code)
        }
    }

    /// Encoded as its description: `"password"`, `"key-file"`, `"raw-key"`, `"age-recipient"`, …
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String {
        switch self {
        case .password: return "password"
        case .passwordAndKeyFile: return "password+key-file"
        case .keyFile: return "key-file"
        case .rawKey: return "raw-key"
        case .ageRecipient: return "age-recipient"
        case .sshRecipient: return "ssh-recipient"
        case .unknown(let code): return "unknown(\(code))"
        }
    }
}

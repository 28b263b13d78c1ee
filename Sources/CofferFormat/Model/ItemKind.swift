import CofferCrypto
/// What an item is, following Apple's keychain item classes.
///
/// ```swift
/// let logins = try vault.items(matching: ItemQuery(kind: .internetPassword))
/// ```
public enum ItemKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A password for a service and account; unique by (service, account).
    case genericPassword = "generic-password"
    /// A password for a server; unique by (server, protocol, port, path, account).
    case internetPassword = "internet-password"
    /// A titled text; the title is the label and the text lives in the secret notes.
    case secureNote = "secure-note"

    /// The byte SPEC.md assigns to each kind.
    package var code: UInt8 {
        switch self {
        case .genericPassword: return 1
        case .internetPassword: return 2
        case .secureNote: return 3
        }
    }

    package init?(code: UInt8) {
        switch code {
        case 1: self = .genericPassword
        case 2: self = .internetPassword
        case 3: self = .secureNote
        default: return nil
        }
    }
}

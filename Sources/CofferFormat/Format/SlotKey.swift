import CofferCrypto
/// The secret a caller offers to open key slots (the format's view of a credential).
package enum SlotKey: Sendable {
    case password(SecureBytes)
    /// `material` is the key file's 32-byte digest (SPEC.md §4.3).
    case keyFile(material: SecureBytes)
    case passwordAndKeyFile(password: SecureBytes, material: SecureBytes)
    case rawKey(SecureBytes)

    package var slotKind: KeySlotKind {
        switch self {
        case .password: return .password
        case .keyFile: return .keyFile
        case .passwordAndKeyFile: return .passwordAndKeyFile
        case .rawKey: return .rawKey
        }
    }

    /// The error when no slot of this kind opens.
    package var wrongKeyError: CofferError {
        switch self {
        case .password: return .wrongPassword
        case .keyFile, .passwordAndKeyFile: return .wrongKeyFile
        case .rawKey: return .wrongRawKey
        }
    }

    /// Key-file material: BLAKE2b-256 of `"coffer.v1.keyfile" 0x00 || contents` (SPEC.md §4.3).
    package static func keyFileMaterial(contents: UnsafeRawBufferPointer) throws(CofferError) -> SecureBytes {
        try BLAKE2b.secretDigest(prefix: FormatV1.keyFileLabel, secret: contents)
    }
}

import CofferCrypto
/// A key file: any file whose bytes act as a key. Coffer keeps only its 32-byte
/// BLAKE2b digest, in guarded memory.
///
/// ```swift
/// let keyFile = try KeyFile.generate(at: "/secure/usb/vault.key")   // 64 random bytes, mode 0600
/// let vault = try Vault.open(at: path, credential: .keyFile(keyFile))
/// ```
///
/// Any file works, but its strength is its entropy: prefer a generated one.
/// Reading and writing key files (`init(contentsOf:)`, `generate(at:)`) is the vault layer's.
public struct KeyFile: Sendable {
    /// BLAKE2b-256 of `"coffer.v1.keyfile" 0x00 || contents` (SPEC.md §4.3).
    package let material: SecureBytes

    /// Key files larger than this are refused (a key file is not a document store).
    public static let maximumSize = 16 << 20

    /// A key file from its material (already hashed).
    package init(material: SecureBytes) {
        self.material = material
    }

    /// A key file from bytes the caller already holds.
    public init(contents: SecureBytes) throws(CofferError) {
        guard contents.count > 0 else { throw .invalidKey("key file contents are empty") }
        material = try contents.withUnsafeBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try Self.material(contents: raw) } }
    }

    /// Key-file material: BLAKE2b-256 of `"coffer.v1.keyfile" 0x00 || contents` (SPEC.md §4.3).
    package static func material(contents: UnsafeRawBufferPointer) throws(FormatError) -> SecureBytes {
        try crypto { () throws(CofferError) in try BLAKE2b.secretDigest(prefix: FormatV1.keyFileLabel, secret: contents) }
    }
}

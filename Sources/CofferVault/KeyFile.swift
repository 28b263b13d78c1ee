import CofferCrypto
import CofferFormat
import CofferStore
/// A key file: any file whose bytes act as a key. Coffer keeps only its 32-byte
/// BLAKE2b digest, in guarded memory.
///
/// ```swift
/// let keyFile = try KeyFile.generate(at: "/secure/usb/vault.key")   // 64 random bytes, mode 0600
/// let vault = try Vault.open(at: path, credential: .keyFile(keyFile))
/// ```
///
/// Any file works, but its strength is its entropy: prefer a generated one.
public struct KeyFile: Sendable {
    /// BLAKE2b-256 of `"coffer.v1.keyfile" 0x00 || contents` (SPEC.md §4.3).
    let material: SecureBytes

    /// Key files larger than this are refused (a key file is not a document store).
    public static let maximumSize = 16 << 20

    /// Reads a key file. Its contents go straight into guarded memory.
    public init(contentsOf path: String) throws(CofferError) {
        let contents = try storeCall { () throws(StoreError) in try SecretFile.contents(of: path, limit: Self.maximumSize, kind: "key file", name: "key file \(path)") }
        guard contents.count > 0 else { throw .invalidKey("key file \(path) is empty") }
        material = try contents.withUnsafeBytes { (raw) throws(CofferError) in try SlotKey.keyFileMaterial(contents: raw) }
    }

    /// A key file from bytes the caller already holds.
    public init(contents: SecureBytes) throws(CofferError) {
        guard contents.count > 0 else { throw .invalidKey("key file contents are empty") }
        material = try contents.withUnsafeBytes { (raw) throws(CofferError) in try SlotKey.keyFileMaterial(contents: raw) }
    }

    /// Writes 64 random bytes to a new file (mode 0600; never overwrites) and returns it.
    public static func generate(at path: String) throws(CofferError) -> KeyFile {
        let contents = try SecureBytes.random(count: 64)
        try storeCall { () throws(StoreError) in try SecretFile.writeNew(contents, to: path, kind: "key file") }
        return try KeyFile(contents: contents)
    }
}

import CofferCrypto
import CofferFormat
import CofferStore

/// Key files on disk: read through the store's secret-file seam.
extension KeyFile {
    /// Reads a key file. Its contents go straight into guarded memory.
    public init(contentsOf path: String) throws(CofferError) {
        let contents = try storeCall { () throws(StoreError) in
            try SecretFile.contents(of: path, limit: Self.maximumSize, kind: "key file", name: "key file \(path)")
        }
        guard contents.count > 0 else { throw .invalidKey("key file \(path) is empty") }
        self.init(material: try contents.withUnsafeBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try Self.material(contents: raw) } })
    }

    /// Writes 64 random bytes to a new file (mode 0600; never overwrites) and returns it.
    public static func generate(at path: String) throws(CofferError) -> KeyFile {
        let contents = try SecureBytes.random(count: 64)
        try storeCall { () throws(StoreError) in try SecretFile.writeNew(contents, to: path, kind: "key file") }
        return try KeyFile(contents: contents)
    }
}

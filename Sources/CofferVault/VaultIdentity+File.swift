import CofferCrypto
import CofferFormat
import CofferStore

/// Identity files on disk: read through the store's secret-file seam with the key file's
/// checks, and stricter: only a regular file (a FIFO is refused without blocking), at most
/// ``VaultIdentity/maximumFileSize`` bytes, and readable by its owner only (mode 0600 or
/// 0400), as ssh and age ask of private keys.
extension VaultIdentity {
    /// Reads an age identity file or an OpenSSH Ed25519 private key. A file others may
    /// read or write is ``CofferError/Kind/insecurePermissions``; see ``init(contents:)``
    /// for what its contents may be.
    ///
    /// ```swift
    /// let identity = try VaultIdentity(contentsOf: "/home/bob/.ssh/id_ed25519")
    /// let asBob = try Vault.open(at: "team.coffer", credential: .identity(identity))
    /// ```
    public init(contentsOf path: String) throws(CofferError) {
        let read = { (ownerOnly: Bool) throws(CofferError) -> SecureBytes in
            try storeCall { () throws(StoreError) in
                try SecretFile.contents(of: path, limit: Self.maximumFileSize, kind: "identity file",
                                        name: "identity file \(path)", ownerOnly: ownerOnly)
            }
        }
        let contents: SecureBytes
        do throws(CofferError) {
            contents = try read(true)
        } catch where error.kind == .insecurePermissions {
            // A public key (a .pub file, mode 0644) given by mistake: say that, not "mode 0600".
            if let text = try? read(false), Self.isPublicKey(text) {
                throw .invalidKey("identity file \(path) is a public key; give the private key (without .pub) or the age identity file")
            }
            throw error
        }
        try self.init(contents: contents)
    }

    private static func isPublicKey(_ text: SecureBytes) -> Bool {
        text.withUnsafeBytes { bytes in
            let rest = bytes.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) })
            return ["ssh-", "ecdsa-", "sk-", "age1"].contains { rest.starts(with: Array($0.utf8)) }
        }
    }
}

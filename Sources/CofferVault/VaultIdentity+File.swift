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
    /// let vault = try Vault.open(at: "team.coffer", credential: .identity(identity))
    /// ```
    public init(contentsOf path: String) throws(CofferError) {
        let contents = try storeCall { () throws(StoreError) in
            try SecretFile.contents(of: path, limit: Self.maximumFileSize, kind: "identity file",
                                    name: "identity file \(path)", ownerOnly: true)
        }
        try self.init(contents: contents)
    }
}

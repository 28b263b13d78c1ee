import CofferCrypto

/// The kind of error SSH key files give (the SSH feature's keys and the vault's ssh-ed25519
/// identities and recipients read them alike).
extension CofferError.Kind {
    /// An SSH key Coffer does not use: another type than Ed25519 (RSA, ECDSA, security
    /// keys…), a passphrase-protected private key, or a file of several keys. The detail
    /// names the type or the reason. (A damaged key file is ``invalidKey``.)
    public static let unsupportedSSHKey = Self("unsupportedSSHKey") { "unsupported SSH key: \($0.shownDetail)" }
}

extension CofferError {
    public static let unsupportedSSHKey = CofferError(Kind.unsupportedSSHKey)
    public static func unsupportedSSHKey(_ why: String) -> CofferError { CofferError(Kind.unsupportedSSHKey, detail: why) }
}

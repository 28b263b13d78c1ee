import CofferCrypto

/// The kind of error the one-time-password feature owns.
extension CofferError.Kind {
    /// A one-time password is unusable: an otpauth URI, base32 secret or TOTP parameter.
    public static let invalidOneTimePassword = Self("invalidOneTimePassword") { "invalid one-time password: \($0.shownDetail)" }
}

extension CofferError {
    public static let invalidOneTimePassword = CofferError(Kind.invalidOneTimePassword)
    public static func invalidOneTimePassword(_ why: String) -> CofferError { CofferError(Kind.invalidOneTimePassword, detail: why) }
}

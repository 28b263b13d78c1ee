import CofferCrypto

/// The kinds of error the format layer owns: what a vault file's bytes can be (SPEC.md
/// §10.1's outcome classes), the credentials that open it, and what a writer refuses.
extension CofferError.Kind {
    // MARK: Reading a vault file
    /// The bytes do not start with Coffer's magic: this is not a Coffer vault.
    public static let notACofferFile = Self("notACofferFile",
                                            failureReason: "The file does not start with a Coffer vault's header.") { _ in
        "not a Coffer vault"
    }
    /// The file is a Coffer vault of a version this library does not read (``CofferError/version``).
    public static let unsupportedVersion = Self("unsupportedVersion",
                                                failureReason: "The vault was written by a newer version of Coffer.",
                                                recoverySuggestion: "Update the app to open this vault.") {
        "unsupported vault format version \($0.version.map(String.init) ?? "?")"
    }
    /// The file ends before a structure is complete; the detail names it.
    public static let truncated = Self("truncated",
                                       recoverySuggestion: "Restore the vault from a backup (its .bak file or another copy).") {
        "file is truncated (\($0.shownDetail))"
    }
    /// Authentication failed: ``CofferError/tamperedPart`` was modified or corrupted.
    public static let tampered = Self(
        "tampered",
        failureReason: "The vault's contents do not match their authentication codes: the file was damaged or changed outside Coffer.",
        recoverySuggestion: "Restore the vault from a backup (its .bak file or another copy)."
    ) { "vault is corrupted or was tampered with (\($0.tamperedPart.map(String.init(describing:)) ?? "a part") failed authentication)" }

    // MARK: Credentials
    /// No password slot opens with this password.
    public static let wrongPassword = Self("wrongPassword",
                                           failureReason: "No key slot of the vault opens with this password.",
                                           recoverySuggestion: "Check the password and try again.") { _ in "wrong password" }
    /// No key-file slot opens with this key file (alone or with the password given).
    public static let wrongKeyFile = Self(
        "wrongKeyFile",
        failureReason: "No key slot of the vault opens with this key file (and password, if one was given).",
        recoverySuggestion: "Choose the key file this vault was created with and try again."
    ) { _ in "wrong key file" }
    /// No raw-key slot opens with this raw key.
    public static let wrongRawKey = Self("wrongRawKey",
                                         failureReason: "No key slot of the vault opens with this raw key.",
                                         recoverySuggestion: "Check the key and try again.") { _ in "wrong raw key" }
    /// No recipient slot opens with this identity (an age identity or SSH key the vault
    /// was not shared with, or no longer is).
    public static let wrongIdentity = Self("wrongIdentity",
                                           failureReason: "The vault is not shared with this identity's public key.",
                                           recoverySuggestion: "Ask the vault's owner to share it with your key (coffer share).") { _ in "wrong identity" }

    // MARK: Writing
    /// An item is not valid: a missing service, server or title, attributes or
    /// secrets too large, dates out of range.
    public static let invalidItem = Self("invalidItem") { "invalid item: \($0.shownDetail)" }
    /// The vault's data reached a bound of its file format that no argument of the caller's
    /// exceeded: an item's merge metadata would name more writers than the format holds
    /// (SPEC.md §17.9). Not a usage error; nothing was saved.
    public static let formatLimit = Self("formatLimit",
                                         failureReason: "The vault reached a bound of its file format.") { "format limit reached: \($0.shownDetail)" }
    /// The vault cannot do this because of its key slots, e.g. removing the last slot.
    public static let slotUnavailable = Self("slotUnavailable") { "key slot unavailable: \($0.shownDetail)" }
}

// MARK: Static members, so `throw .wrongPassword` and `catch CofferError.wrongPassword` read well.
// `Kind.` is spelled out: here `.wrongPassword` would also name `FormatError.wrongPassword`, and
// `CofferError(FormatError)` converts it back to this very member.
extension CofferError {
    public static let notACofferFile = CofferError(Kind.notACofferFile)
    public static let unsupportedVersion = CofferError(Kind.unsupportedVersion)
    public static func unsupportedVersion(_ version: UInt16) -> CofferError { CofferError(Kind.unsupportedVersion, version: version) }
    public static let truncated = CofferError(Kind.truncated)
    public static func truncated(_ structure: String) -> CofferError { CofferError(Kind.truncated, detail: structure) }
    public static func tampered(_ part: TamperedPart) -> CofferError { CofferError(Kind.tampered, tamperedPart: part) }

    public static let wrongPassword = CofferError(Kind.wrongPassword)
    public static let wrongKeyFile = CofferError(Kind.wrongKeyFile)
    public static let wrongRawKey = CofferError(Kind.wrongRawKey)
    public static let wrongIdentity = CofferError(Kind.wrongIdentity)

    public static let invalidItem = CofferError(Kind.invalidItem)
    public static func invalidItem(_ why: String) -> CofferError { CofferError(Kind.invalidItem, detail: why) }
    public static let slotUnavailable = CofferError(Kind.slotUnavailable)
    public static func slotUnavailable(_ why: String) -> CofferError { CofferError(Kind.slotUnavailable, detail: why) }
}

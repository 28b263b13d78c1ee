import CofferCrypto

/// The kinds of error the generator owns: policies no password can satisfy, and word lists.
extension CofferError.Kind {
    /// A generator policy no password or passphrase can satisfy (length, classes,
    /// exclusions, separator, word count, or a policy the word list cannot serve).
    public static let invalidGeneratorPolicy = Self("invalidGeneratorPolicy") { "invalid generator policy: \($0.shownDetail)" }
    /// A word list (or bundled dictionary) is unusable: empty or duplicate words,
    /// bad characters, not UTF-8, too few words.
    public static let invalidWordList = Self("invalidWordList") { "invalid word list: \($0.shownDetail)" }
}

extension CofferError {
    public static let invalidGeneratorPolicy = CofferError(Kind.invalidGeneratorPolicy)
    public static func invalidGeneratorPolicy(_ why: String) -> CofferError { CofferError(Kind.invalidGeneratorPolicy, detail: why) }
    public static let invalidWordList = CofferError(Kind.invalidWordList)
    public static func invalidWordList(_ why: String) -> CofferError { CofferError(Kind.invalidWordList, detail: why) }
}

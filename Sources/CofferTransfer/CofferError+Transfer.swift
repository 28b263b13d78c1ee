import CofferCrypto

/// The kinds of error import owns: files that are not in the format named, and files
/// in a form Coffer does not read.
extension CofferError.Kind {
    /// A file to import is not in the format named; the detail names the line or element.
    public static let malformedImport = Self("malformedImport") { "malformed import file (\($0.shownDetail))" }
    /// A file to import is in a form Coffer does not read, e.g. an encrypted Bitwarden export.
    public static let unsupportedImport = Self("unsupportedImport") { "unsupported import file: \($0.shownDetail)" }
}

extension CofferError {
    public static let malformedImport = CofferError(Kind.malformedImport)
    public static func malformedImport(_ what: String) -> CofferError { CofferError(Kind.malformedImport, detail: what) }
    public static let unsupportedImport = CofferError(Kind.unsupportedImport)
    public static func unsupportedImport(_ why: String) -> CofferError { CofferError(Kind.unsupportedImport, detail: why) }
}

/// The version of the Coffer library and of the `coffer` tool: one string for both, and the
/// one place it is written (CHANGELOG.md lists what each version brought).
///
/// It is not the format version: a vault file carries its own (``VaultInfo/formatVersion``),
/// and every library version reads the files of every version before it (SPEC.md).
///
/// ```swift
/// print("Coffer \(CofferVersion.current)")   // `coffer --version` prints the same string
/// ```
public enum CofferVersion {
    /// The current version, `MAJOR.MINOR.PATCH` (Semantic Versioning).
    public static let current = "0.1.0"
}

// Not named CofferVersion: the symbol-graph extractor drops `<Module>Version…` symbols (it
// takes them for a framework's generated version constants), so DocC would not show it.
/// The release of the Coffer library and of the `coffer` tool: one version string for both,
/// written in this one place (CHANGELOG.md lists what each version brought).
///
/// It is not the format version: a vault file carries its own (``VaultInfo/formatVersion``),
/// and every release reads the files of every release before it (SPEC.md).
///
/// ```swift
/// print("Coffer \(CofferRelease.version)")   // `coffer --version` prints the same string
/// ```
public enum CofferRelease {
    /// The version, `MAJOR.MINOR.PATCH` (Semantic Versioning).
    public static let version = "0.1.0"
}

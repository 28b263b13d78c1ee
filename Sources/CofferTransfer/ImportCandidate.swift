import CofferFormat

/// One item read from an import file, not yet added to the vault.
struct ImportCandidate {
    var attributes: ItemAttributes
    var secrets: ItemSecrets
    /// Where it came from, e.g. "line 12".
    let location: String
    /// Changes or losses to report with it.
    var warnings: [String] = []
}

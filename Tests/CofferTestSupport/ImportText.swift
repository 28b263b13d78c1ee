import CofferTransfer

/// Imports text given as a Swift string.
package func importText(_ text: String, format: ImportFormat, into vault: Vault, dryRun: Bool = false) throws -> ImportReport {
    try vault.importItems(from: try SecureBytes(copying: Array(text.utf8)), format: format, dryRun: dryRun)
}

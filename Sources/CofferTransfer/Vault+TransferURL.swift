import CofferCrypto
import CofferVault
import Foundation

// `URL` overloads of the transfer entry points that take a path; they call the `String`
// versions (see Vault+URL.swift in CofferVault). A non-file URL throws
// ``CofferError/invalidArgument(_:)``.
extension Vault {
    /// ``importItems(fromFile:format:dryRun:onConflict:)-(String,_,_,_)`` for a file URL.
    ///
    /// ```swift
    /// let report = try vault.importItems(fromFile: pickedURL, format: .bitwardenJSON)
    /// ```
    public func importItems(fromFile url: URL, format: ImportFormat, dryRun: Bool = false,
                            onConflict: ImportConflictPolicy = .skip) throws(CofferError) -> ImportReport {
        try importItems(fromFile: url.cofferFilePath(), format: format, dryRun: dryRun, onConflict: onConflict)
    }

    /// ``exportItems(format:toFile:)`` to a new file at a file URL (mode 0600, never overwrites).
    ///
    /// ```swift
    /// try vault.exportItems(format: .json, toFile: URL(fileURLWithPath: "/media/usb/coffer-export.json"))
    /// ```
    public func exportItems(format: ExportFormat, toFile url: URL) throws(CofferError) {
        try exportItems(format: format, toFile: url.cofferFilePath())
    }
}

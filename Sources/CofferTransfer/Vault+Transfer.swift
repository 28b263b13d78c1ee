import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// Moving in and out: importing other password managers' exports, exporting Coffer's items.
///
/// Where plaintext passes through ordinary memory (an import file is plaintext
/// anyway, but the library keeps its own copies short-lived and wiped):
/// - CSV and JSON are parsed in place from guarded memory; each secret is copied once,
///   straight into ``SecureBytes`` (through a zeroed buffer when it has escapes).
///   Titles, user names, URLs and other non-secret values become `String`s.
/// - KeePassXC XML goes through `XMLParser` (libxml2), which hands text over as
///   `String`s and keeps internal buffers Coffer cannot wipe; Coffer's own copies are
///   zeroed after use.
/// - Exports are built in a zeroed-on-growth buffer and returned as ``SecureBytes``.
extension Vault {
    /// Import files larger than this are refused (256 MiB).
    public static let maximumImportSize = 256 << 20

    /// Imports the items of another password manager's export (or Coffer's own JSON)
    /// in one transaction: if the file turns out to be malformed halfway, nothing is imported.
    ///
    /// An item already in the vault (or earlier in the file) is not added again: it matches
    /// by unique key or, as a browser matches logins, by site and account (``ItemSite``,
    /// across kinds and paths). What it holds that the item lacks (fields, secret fields, a
    /// one-time password, notes, attachments, tags, URLs, earlier passwords) is carried into
    /// the item, and what differs is reported by name in ``ImportReport/merged``; one that
    /// holds nothing new is a skipped duplicate. A password that differs from the item's is
    /// a conflict, reported in ``ImportReport/conflicts`` and settled by `onConflict`
    /// (``ImportConflictPolicy``: skip, keep both, update); entries that cannot become
    /// items are reported as unreadable. With `dryRun`, the file is read and checked against the vault but
    /// nothing is saved. With `format` nil, the format is told from the file's first bytes
    /// (``ImportFormat/recognising(_:)``), and a file it fits none of is
    /// ``CofferError/Kind/unsupportedImport``; ``ImportReport/format`` says which was read.
    ///
    /// Throws ``CofferError/malformedImport(_:)`` naming the format and line (e.g. `"CSV line 12:
    /// a quoted field is never closed"`) for a file that cannot be parsed, and
    /// ``CofferError/Kind/unsupportedImport`` for one that is valid but unusable (an
    /// encrypted Bitwarden export), ``CofferError/Kind/fileTooLarge`` for a file over
    /// ``maximumImportSize``.
    ///
    /// ```swift
    /// let file = try SecureBytes(copying: Array(csvText.utf8))
    /// let report = try vault.importItems(from: file, format: .browserCSV)
    /// print(report.imported, report.skippedDuplicates.count, report.unreadable.count)
    /// ```
    public func importItems(from data: SecureBytes, format: ImportFormat? = nil, dryRun: Bool = false,
                            onConflict: ImportConflictPolicy = .skip) throws(CofferError) -> ImportReport {
        guard data.count <= Self.maximumImportSize else {
            throw .fileTooLarge("the import file is larger than \(Self.maximumImportSize >> 20) MiB")
        }
        guard let format = format ?? ImportFormat.recognising(data) else {
            throw .unsupportedImport("cannot tell the file's format from its first bytes: name it ("
                                     + ImportFormat.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        let limit = options.passwordHistoryLimit, now = now()
        let body = { (tx: VaultTransaction) throws(CofferError) -> ImportReport in
            let session = ImportSession(tx: tx, format: format, dryRun: dryRun, historyLimit: limit, conflictPolicy: onConflict, now: now)
            try data.withUnsafeBytes { (bytes) throws(CofferError) in
                switch format {
                case .keepassxcXML: try KeePassXCXMLImporter.read(bytes, into: session)
                case .keepassxcCSV: try KeePassXCCSVImporter.read(bytes, into: session)
                case .bitwardenJSON: try BitwardenJSONImporter.read(bytes, into: session)
                case .browserCSV: try BrowserCSVImporter.read(bytes, into: session)
                case .cofferJSON: try CofferJSONImporter.read(bytes, into: session)
                }
            }
            return session.report
        }
        // A dry run stages the items in a read-only view that is never saved.
        return dryRun ? try read(body) : try write(body)
    }

    /// Reads the file at `path` into guarded memory and imports it; see
    /// ``importItems(from:format:dryRun:onConflict:)``. A missing file is ``CofferError/fileNotFound(_:)``.
    ///
    /// ```swift
    /// let report = try vault.importItems(fromFile: "keepass.xml", format: .keepassxcXML)
    /// for skipped in report.skippedDuplicates { print(skipped.label, skipped.reason) }
    /// let any = try vault.importItems(fromFile: "export.json")   // the format told from the file
    /// ```
    public func importItems(fromFile path: String, format: ImportFormat? = nil, dryRun: Bool = false,
                            onConflict: ImportConflictPolicy = .skip) throws(CofferError) -> ImportReport {
        let data = try storeCall { () throws(StoreError) in try SecretFile.contents(of: path, limit: Self.maximumImportSize, kind: "import file", name: path) }
        return try importItems(from: data, format: format, dryRun: dryRun, onConflict: onConflict)
    }

    /// Every item, decrypted, in `format`, as plaintext in guarded memory. Handle the
    /// result as the secret it is: whoever reads it reads every password.
    ///
    /// The JSON export holds every field, in a documented, stable layout; importing it
    /// with ``ImportFormat/cofferJSON`` into an empty vault and exporting again gives the
    /// same bytes. Item ids and revisions are not exported.
    ///
    /// ```swift
    /// let export = try vault.exportItems(format: .json)
    /// let copy = try Vault.create(at: "copy.coffer", password: password)
    /// try copy.importItems(from: export, format: .cofferJSON)
    /// ```
    public func exportItems(format: ExportFormat) throws(CofferError) -> SecureBytes {
        try read { (tx) throws(CofferError) -> SecureBytes in
            try Self.export(ExportSource(tx), format: format)
        }
    }

    /// ``exportItems(format:)`` of every item that can be read: a damaged record
    /// (``DamagedItem``: its bytes differ from the manifest, or a part does not open) is
    /// left out and named instead of failing the whole export. The way to save what a
    /// damaged vault still holds before repairing it (``repairDamaged(from:dryRun:)``).
    ///
    /// ```swift
    /// let salvaged = try vault.exportReadableItems(format: .json)
    /// for damaged in salvaged.damaged { print("left out: \(damaged)") }
    /// ```
    public func exportReadableItems(format: ExportFormat) throws(CofferError) -> SalvagedExport {
        try read { (tx) throws(CofferError) -> SalvagedExport in
            let source = ExportSource(tx, salvaging: true)
            let contents = try Self.export(source, format: format)
            return SalvagedExport(contents: contents, damaged: source.damaged)
        }
    }

    /// ``exportReadableItems(format:)`` to a new file with mode 0600 (an existing file is
    /// never overwritten); returns the damaged records left out.
    ///
    /// ```swift
    /// let leftOut = try vault.exportReadableItems(format: .json, toFile: "/media/usb/salvage.json")
    /// ```
    @discardableResult
    public func exportReadableItems(format: ExportFormat, toFile path: String) throws(CofferError) -> [DamagedItem] {
        let salvaged = try exportReadableItems(format: format)
        try storeCall { () throws(StoreError) in try SecretFile.writeNew(salvaged.contents, to: path, kind: "export file") }
        return salvaged.damaged
    }

    private static func export(_ source: ExportSource, format: ExportFormat) throws(CofferError) -> SecureBytes {
        switch format {
        case .json: return try CofferJSONExporter.export(source)
        case .csv: return try CSVExporter.export(source)
        }
    }

    /// Exports to a new file with mode 0600; an existing file is never overwritten
    /// (``CofferError/fileExists(_:)``).
    ///
    /// ```swift
    /// try vault.exportItems(format: .json, toFile: "/media/usb/coffer-export.json")
    /// ```
    public func exportItems(format: ExportFormat, toFile path: String) throws(CofferError) {
        let contents = try exportItems(format: format)
        try storeCall { () throws(StoreError) in try SecretFile.writeNew(contents, to: path, kind: "export file") }
    }
}

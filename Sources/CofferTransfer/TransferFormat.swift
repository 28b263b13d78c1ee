import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// A file format ``Vault/importItems(from:format:dryRun:onConflict:)`` reads.
///
/// ```swift
/// let format = ImportFormat(rawValue: "bitwarden-json")   // .bitwardenJSON
/// let report = try vault.importItems(fromFile: "export.json", format: .bitwardenJSON)
/// ```
public enum ImportFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The XML that `keepassxc-cli export --format xml` (or KeePassXC's "Export to XML") writes.
    case keepassxcXML = "keepassxc-xml"
    /// The CSV that `keepassxc-cli export --format csv` (or KeePassXC's "Export to CSV") writes.
    case keepassxcCSV = "keepassxc-csv"
    /// Bitwarden's unencrypted JSON export.
    case bitwardenJSON = "bitwarden-json"
    /// A browser's password CSV (Chrome, Edge, Firefox, Safari) or any CSV with a header
    /// row naming columns such as name, url, username, password, note.
    case browserCSV = "csv"
    /// Coffer's own JSON export (``ExportFormat/json``).
    case cofferJSON = "coffer-json"

    public var description: String { rawValue }

    /// A short name for messages, e.g. "KeePassXC XML".
    var displayName: String {
        switch self {
        case .keepassxcXML: return "KeePassXC XML"
        case .keepassxcCSV: return "KeePassXC CSV"
        case .bitwardenJSON: return "Bitwarden JSON"
        case .browserCSV: return "CSV"
        case .cofferJSON: return "Coffer JSON"
        }
    }
}

/// A file format ``Vault/exportItems(format:)`` writes. Both are plaintext.
///
/// ```swift
/// let json = try vault.exportItems(format: .json)   // every field; re-import with .cofferJSON
/// let csv = try vault.exportItems(format: .csv)     // for other password managers
/// ```
public enum ExportFormat: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Coffer's documented JSON: every field of every item (README, "Moving in and out",
    /// shows the layout). Import it back with ``ImportFormat/cofferJSON``; export → import →
    /// export gives the same bytes.
    case json
    /// One row per item: `name,url,username,password,note,otp,tags,kind,service,server,protocol,port,path,comment,favorite,created,modified`.
    /// Lossy: custom fields, secret fields other than `otp`, password history, attachments
    /// and all URLs but the first are left out.
    case csv

    public var description: String { rawValue }
}

/// What ``Vault/exportReadableItems(format:)`` returns: the export of every item that can
/// be read, and the damaged records it left out.
public struct SalvagedExport: Sendable {
    /// The plaintext export, in guarded memory.
    public var contents: SecureBytes
    /// The records left out, ascending by id; empty for a sound vault.
    public var damaged: [DamagedItem]
}

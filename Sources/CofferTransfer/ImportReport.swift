import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// What an import did: how many items it added, which it skipped and why, which it
/// could not read and why, and (for CSV) which columns it understood.
///
/// Locations name the line of the file (and, for XML and JSON, the element or array
/// index), e.g. `"line 12"` or `"line 140, entry in group Work/Email"`. No report field
/// ever carries a secret.
///
/// ```swift
/// let report = try vault.importItems(fromFile: "passwords.csv", format: .browserCSV)
/// print("imported \(report.imported), skipped \(report.skippedDuplicates.count) duplicates")
/// for problem in report.unreadable { print("\(problem.location): \(problem.reason)") }
/// for column in report.recognisedColumns ?? [] { print(column.column, "->", column.field) }
/// ```
public struct ImportReport: Sendable, Hashable, Codable {
    /// An item that was left out, and why.
    public struct Skipped: Sendable, Hashable, Codable {
        /// The item's title (or service, server) as the file names it.
        public var label: String
        public var location: String
        public var reason: String
    }

    /// An item already in the vault (same unique key) whose password differs from the
    /// imported one, and what the import did (``ImportConflictPolicy``). No password.
    public struct Conflict: Sendable, Hashable, Codable {
        /// The item's name (label, service or server), as for ``Skipped/label``.
        public var label: String
        public var location: String
        public var resolution: ImportConflictPolicy
    }

    /// An item of the file that is already in the vault (same unique key, or the same site
    /// and account, ``ItemSite``), or earlier in the file, and that held something the item
    /// lacks or something that differs: what the import carried into the item and what it
    /// did not, by name (`"tags cloud, 2fa"`, `"field Recovery email"`, `"secret field
    /// Security answer"`, `"notes (the item's differ)"`). Never a value.
    public struct Merged: Sendable, Hashable, Codable {
        /// The item's name as the file gives it, as for ``Skipped/label``.
        public var label: String
        public var location: String
        /// The item it went into (its kind, name and account), or `"the item at line 3 of this file"`.
        public var into: String
        /// How the two match: `same service "github.com" and account "octocat"`, `same site netflix.com and account "me"`.
        public var matchedBy: String
        /// What the item lacked and now holds.
        public var carried: [String]
        /// What differs from the item and was left out (the item keeps its own).
        public var notCarried: [String]
    }

    /// A part of the file that could not become an item, and why.
    public struct Unreadable: Sendable, Hashable, Codable {
        public var location: String
        public var reason: String
    }

    /// Something imported with a change or a loss worth knowing (e.g. an attachment left out).
    public struct Warning: Sendable, Hashable, Codable {
        public var location: String
        public var message: String
    }

    /// A CSV header column and the Coffer field it went to (`label`, `urls`, `account`,
    /// `password`, `notes`, `otp`, `tags`, … ; `field:NAME` for a custom field,
    /// `secret-field:NAME` for a secret one, `ignored` for a column deliberately dropped).
    public struct Column: Sendable, Hashable, Codable {
        public var column: String
        public var field: String
    }

    public var format: ImportFormat
    /// True when nothing was saved (a dry run).
    public var dryRun: Bool
    /// Items added to the vault.
    public var imported: Int
    /// Items already in the vault or earlier in the file (the same unique key, service and
    /// account or server, protocol, port, path and account; the same site and account; for
    /// notes, the same title and text) that held nothing the item lacks.
    public var skippedDuplicates: [Skipped]
    /// Items already in the vault whose password differs from the imported one, and how
    /// each was settled (``ImportConflictPolicy``); they are not in ``skippedDuplicates``.
    public var conflicts: [Conflict]
    /// Items that matched one in the vault (or earlier in the file) and carried something
    /// into it, or differ from it: what was and was not carried.
    public var merged: [Merged]
    /// Items left out on purpose: KeePassXC's Recycle Bin, Bitwarden's trash.
    public var skipped: [Skipped]
    /// Entries or rows that could not become items.
    public var unreadable: [Unreadable]
    public var warnings: [Warning]
    /// For CSV formats: each header column and what it became; nil for other formats.
    public var recognisedColumns: [Column]?

    init(format: ImportFormat, dryRun: Bool) {
        self.format = format
        self.dryRun = dryRun
        imported = 0
        skippedDuplicates = []
        conflicts = []
        merged = []
        skipped = []
        unreadable = []
        warnings = []
        recognisedColumns = nil
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// Receives what an importer reads, adds each item to the import's transaction as it
/// comes (so only one item's secrets are in guarded memory at a time) and keeps the report.
final class ImportSession {
    let tx: VaultTransaction
    let historyLimit: Int
    let conflictPolicy: ImportConflictPolicy
    /// The time of this import, by the vault's clock: the date of what the file leaves undated.
    let now: Date
    var report: ImportReport
    /// Unique keys added by this import, and where: to name the earlier row of an in-file duplicate.
    private var seen: [UniquenessKey: String] = [:]
    /// Secure notes by title, built once: a query per imported note would make big imports quadratic.
    private var notesByTitle: [String: [ItemID]]?

    init(tx: VaultTransaction, format: ImportFormat, dryRun: Bool, historyLimit: Int,
         conflictPolicy: ImportConflictPolicy = .skip, now: Date) {
        self.tx = tx
        self.now = now
        self.historyLimit = max(0, historyLimit)
        self.conflictPolicy = conflictPolicy
        report = ImportReport(format: format, dryRun: dryRun)
    }

    /// Adds one item, or records why it was skipped or could not be added.
    func add(_ candidate: ImportCandidate) throws(CofferError) {
        var candidate = candidate
        for message in candidate.warnings { warn(candidate.location, message) }
        let name = candidate.attributes.sortName ?? candidate.attributes.displayName
        if candidate.secrets.passwordHistory.count > historyLimit {
            let dropped = candidate.secrets.passwordHistory.count - historyLimit
            candidate.secrets.passwordHistory.removeSubrange(historyLimit...)
            warn(candidate.location, "kept the \(historyLimit) newest earlier passwords of \(name); \(dropped) older ones were left out (the vault's history limit)")
        }
        if candidate.attributes.kind == .secureNote, try isDuplicateNote(candidate) {
            skipDuplicate(name, candidate.location, "a note with the same title and text already exists")
            return
        }
        let key = candidate.attributes.uniquenessKey
        if let key, let earlier = seen[key] {
            skipDuplicate(name, candidate.location, "same \(Self.describe(key)) as the item at \(earlier) of this file")
            return
        }
        do throws(CofferError) {
            let item = try tx.add(candidate.attributes, secrets: candidate.secrets)
            if item.kind == .secureNote { notesByTitle?[item.label ?? "", default: []].append(item.id) }
        } catch .duplicateItem {
            if let key, let existing = try tx.itemID(holding: key),
               try resolveConflict(candidate, with: existing, name: name) {
                seen[key] = candidate.location
                return
            }
            let what = key.map(Self.describe) ?? "unique key"
            skipDuplicate(name, candidate.location, "an item with the same \(what) is already in the vault")
            // A later row with this key is a duplicate within the file, not a conflict.
            if let key { seen[key] = candidate.location }
            return
        } catch where error.kind == .invalidItem {
            unreadable(candidate.location, error.detail ?? error.description)
            return
        }
        if let key { seen[key] = candidate.location }
        report.imported += 1
    }

    func unreadable(_ location: String, _ reason: String) {
        report.unreadable.append(ImportReport.Unreadable(location: location, reason: reason))
    }

    func skip(_ label: String, _ location: String, _ reason: String) {
        report.skipped.append(ImportReport.Skipped(label: label, location: location, reason: reason))
    }

    func warn(_ location: String, _ message: String) {
        report.warnings.append(ImportReport.Warning(location: location, message: message))
    }

    func recognised(_ columns: [ImportReport.Column]) {
        report.recognisedColumns = columns
    }

    private func skipDuplicate(_ label: String, _ location: String, _ reason: String) {
        report.skippedDuplicates.append(ImportReport.Skipped(label: label, location: location, reason: reason))
    }

    /// Notes have no unique key in the vault; for imports, a note with the same title
    /// and text counts as the same note, so importing a file twice adds nothing.
    private func isDuplicateNote(_ candidate: ImportCandidate) throws(CofferError) -> Bool {
        if notesByTitle == nil {
            var index: [String: [ItemID]] = [:]
            for item in try tx.items(matching: ItemQuery(kind: .secureNote)) { index[item.label ?? "", default: []].append(item.id) }
            notesByTitle = index
        }
        // Only notes with the same title are decrypted.
        for id in notesByTitle?[candidate.attributes.label ?? ""] ?? [] {
            if try tx.secrets(for: id).notes == candidate.secrets.notes { return true }
        }
        return false
    }

    private static func describe(_ key: UniquenessKey) -> String {
        switch key {
        case .generic(let service, let account):
            return "service \"\(service)\" and account \"\(account)\""
        case .internet(let server, let scheme, let port, let path, let account):
            var target = server
            if !scheme.isEmpty { target = scheme + "://" + target }
            if port != 0 { target += ":\(port)" }
            target += path
            return "server \(target) and account \"\(account)\""
        }
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// Receives what an importer reads, adds each item to the import's transaction as it
/// comes (so only one item's secrets are in guarded memory at a time) and keeps the report.
///
/// An imported item that matches one already in the vault, or one this import added from
/// an earlier row, is not a second item: it matches by unique key (service and account;
/// server, protocol, port, path and account) or, as a browser matches logins, by site
/// (``ItemSite``: host and account, across kinds and paths). What it holds that the item
/// lacks is carried into it (``ImportMerge``), what differs is reported, by name.
final class ImportSession {
    let tx: VaultTransaction
    let historyLimit: Int
    let conflictPolicy: ImportConflictPolicy
    /// The time of this import, by the vault's clock: the date of what the file leaves undated.
    let now: Date
    var report: ImportReport
    /// Items this import added, and from where: to name the earlier row of an in-file duplicate.
    private var addedAt: [ItemID: String] = [:]
    /// Secure notes by title, built once: a query per imported note would make big imports quadratic.
    private var notesByTitle: [String: [ItemID]]?
    /// Logins by site (``ItemSite``), built once for the same reason, in reading order.
    private var itemsBySite: [ItemSite: [ItemID]]?

    init(tx: VaultTransaction, format: ImportFormat, dryRun: Bool, historyLimit: Int,
         conflictPolicy: ImportConflictPolicy = .skip, now: Date) {
        self.tx = tx
        self.now = now
        self.historyLimit = max(0, historyLimit)
        self.conflictPolicy = conflictPolicy
        report = ImportReport(format: format, dryRun: dryRun)
    }

    /// Adds one item, carries it into the item it matches, or records why it was skipped
    /// or could not be added.
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
        if let match = try match(candidate) {
            try carry(candidate, into: match, name: name)
            return
        }
        do throws(CofferError) {
            let item = try tx.add(candidate.attributes, secrets: candidate.secrets)
            addedAt[item.id] = candidate.location
            if item.kind == .secureNote { notesByTitle?[item.label ?? "", default: []].append(item.id) }
            if let site = item.attributes.site { itemsBySite?[site, default: []].append(item.id) }
        } catch where error.kind == .invalidItem {
            unreadable(candidate.location, error.detail ?? error.description)
            return
        }
        report.imported += 1
    }

    /// The item an imported one is: the holder of its unique key, else the first login of
    /// its site (``ItemSite``) in reading order; and how they match, for the report.
    private func match(_ candidate: ImportCandidate) throws(CofferError) -> (id: ItemID, how: String)? {
        if let key = candidate.attributes.uniquenessKey, let holder = try tx.itemID(holding: key) {
            return (holder, "same \(Self.describe(key))")
        }
        guard let site = candidate.attributes.site else { return nil }
        if itemsBySite == nil {
            var index: [ItemSite: [ItemID]] = [:]
            for item in try tx.items() { if let site = item.attributes.site { index[site, default: []].append(item.id) } }
            itemsBySite = index
        }
        guard let first = itemsBySite?[site]?.first else { return nil }
        return (first, "same \(site)")
    }

    /// Carries what `candidate` holds into the item it matched, and reports it: a plain
    /// duplicate when nothing was carried and nothing differs.
    private func carry(_ candidate: ImportCandidate, into match: (id: ItemID, how: String), name: String) throws(CofferError) {
        let target = try tx.item(match.id)
        let into = addedAt[match.id].map { "the item at \($0) of this file" } ?? target.summary
        let outcome = try ImportMerge(policy: conflictPolicy, historyLimit: historyLimit, now: now)
            .carry(candidate, into: target, tx: tx)
        if outcome.passwordConflict {
            report.conflicts.append(ImportReport.Conflict(label: name, location: candidate.location, resolution: conflictPolicy))
        }
        if !outcome.carried.isEmpty || !outcome.notCarried.isEmpty {
            report.merged.append(ImportReport.Merged(label: name, location: candidate.location, into: into, matchedBy: match.how,
                                                     carried: outcome.carried, notCarried: outcome.notCarried))
        } else if !outcome.passwordConflict {
            let reason = addedAt[match.id] != nil ? "\(match.how) as the item at \(addedAt[match.id] ?? "") of this file"
                                                  : "an item with the \(match.how) is already in the vault (\(target.summary))"
            skipDuplicate(name, candidate.location, reason)
        }
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

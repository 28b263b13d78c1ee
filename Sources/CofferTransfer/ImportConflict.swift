import CofferCrypto
import CofferFormat
import CofferVault
import Foundation

/// What an import does with an item whose unique key (service and account; server,
/// protocol, port, path and account) is already in the vault but whose password differs:
/// a conflict, which the file alone cannot settle (it does not say which password is newer).
///
/// An imported password equal to the item's current password, or to one in its password
/// history, is no conflict: that item is skipped as a duplicate, so importing a file twice
/// changes nothing whatever the policy.
///
/// ```swift
/// let report = try vault.importItems(fromFile: "bitwarden.json", format: .bitwardenJSON, onConflict: .keepBoth)
/// for conflict in report.conflicts { print(conflict.location, conflict.label) }   // never a password
/// ```
public enum ImportConflictPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Leave the item as it is, and report the conflict (the default).
    case skip
    /// Keep the current password, and put the imported one first in the item's password
    /// history (so it can be found, and restored, from the item itself; no second item).
    case keepBoth = "keep-both"
    /// Make the imported password current; the old one goes to the item's password history.
    /// Nothing else of the item changes.
    case update
}

extension ImportSession {
    /// Settles a collision with item `existing` by `policy` when the passwords differ;
    /// false when it is no conflict (no password, or a password the item has or had).
    func resolveConflict(_ candidate: ImportCandidate, with existing: ItemID, name: String) throws(CofferError) -> Bool {
        guard let imported = candidate.secrets.password else { return false }
        let current = try tx.secrets(for: existing)
        // SecureBytes compares in constant time.
        if current.password == imported || current.passwordHistory.contains(where: { $0.password == imported }) { return false }
        switch conflictPolicy {
        case .skip:
            break
        case .update:
            try tx.update(existing, secrets: ItemSecrets(password: imported))
        case .keepBoth:
            let limit = historyLimit, now = self.now
            do {
                try tx.update(existing) { _, secrets in
                    secrets.passwordHistory.insert(PasswordHistoryEntry(password: imported, replaced: now), at: 0)
                    if secrets.passwordHistory.count > limit { secrets.passwordHistory.removeSubrange(limit...) }
                }
            } catch let error as CofferError {
                throw error
            } catch {
                throw .invalidItem("could not add the imported password to the history of \(name)")
            }
        }
        report.conflicts.append(ImportReport.Conflict(label: name, location: candidate.location, resolution: conflictPolicy))
        return true
    }
}

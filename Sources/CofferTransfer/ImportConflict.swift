import CofferCrypto
import CofferFormat
import CofferVault
import Foundation

/// What an import does with an item already in the vault (same unique key, or the same site
/// and account, ``ItemSite``) whose password differs from the imported one: a conflict,
/// which the file alone cannot settle (it does not say which password is newer). Whatever
/// the policy, the other parts the item lacks are carried into it and parts that differ are
/// reported by name (``ImportReport/merged``).
///
/// An imported password equal to the item's current password is no conflict, nor, except
/// for ``update``, one in its password history: importing a file twice changes nothing.
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
    /// Make the imported password current (also when an earlier `keepBoth` put it in the
    /// history); the old one goes to the item's password history. Other values that differ
    /// are not changed (they are reported).
    case update
}

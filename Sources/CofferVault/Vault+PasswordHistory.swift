import CofferFormat

/// Clearing an item's password history (SPEC.md §17.5): the earlier passwords are erased
/// from the record, and stay erased when copies merged later still hold them.
extension Vault {
    /// Erases item `id`'s password history: every earlier password (and every password
    /// that lost a concurrent edit, shown in the history) leaves the record, and the item
    /// remembers the date up to which its history was cleared, so that merging a copy made
    /// before (on another device, a sync-conflict copy) brings none of them back. A password
    /// replaced later, on any device, is kept as usual. Returns how many entries the
    /// history showed. Throws ``CofferError/itemNotFound`` for no such item.
    ///
    /// Files made before still hold the entries: the backup (`.bak`, the version this save
    /// replaces), the undo versions kept on this device, and other devices' copies until
    /// they merge this one (the merge then erases them there too).
    ///
    /// ```swift
    /// let erased = try vault.clearPasswordHistory(for: item.id)
    /// print("erased \(erased) earlier password(s)")
    /// ```
    @discardableResult
    public func clearPasswordHistory(for id: ItemID) throws(CofferError) -> Int {
        try write { (tx) throws(CofferError) in try tx.clearPasswordHistory(for: id) }
    }
}

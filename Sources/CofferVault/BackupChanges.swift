import CofferFormat

/// What restoring a vault's backup would change (``Vault/backupChanges()``); attributes
/// only, no secret. Each list is in listing order.
///
/// ```swift
/// let preview = try vault.backupChanges()
/// print("\(preview.restored.count) would come back, \(preview.removed.count) would go")
/// ```
public struct BackupChanges: Sendable, Hashable {
    /// Items the backup holds and the vault does not: restoring brings them back.
    public var restored: [Item]
    /// Items the vault holds and the backup does not: restoring removes them.
    public var removed: [Item]
    /// Items both hold at different revisions, as the backup has them: restoring puts
    /// these versions back.
    public var changed: [Item]
    /// How many items the backup holds in all.
    public var backupItemCount: Int
    /// How the backup's key slots differ from the vault's: `added`, the slots only the
    /// backup has; `removed`, those only the vault has. A restore never makes this change:
    /// the vault keeps its slots (SPEC.md §11.4), so a password changed since the backup was
    /// made stays changed.
    public var keySlots: KeySlotChange

    public init(restored: [Item], removed: [Item], changed: [Item], backupItemCount: Int, keySlots: KeySlotChange = .none) {
        self.restored = restored
        self.removed = removed
        self.changed = changed
        self.backupItemCount = backupItemCount
        self.keySlots = keySlots
    }

    /// True when restoring would change no item (the key slots or settings may still differ).
    public var isEmpty: Bool { restored.isEmpty && removed.isEmpty && changed.isEmpty }
}

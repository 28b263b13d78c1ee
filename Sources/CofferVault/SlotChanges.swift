import CofferFormat

/// Key-slot changes that a merge, a sync or a restore reports (SPEC.md §11.3, §17.4):
/// the same ``KeySlotChange`` a password change returns, with only ``KeySlotChange/added``
/// and ``KeySlotChange/removed`` set. Kinds only, never a secret.
///
/// ```swift
/// let report = try vault.merge(contentsOf: copyPath)
/// if !report.keySlots.added.isEmpty {
///     print("the copy added ways into the vault: \(report.keySlots.added)")
/// }
/// ```
extension KeySlotChange {
    /// No slot changed.
    public static let none = KeySlotChange(changed: [], added: [], removed: [], rotation: nil)

    /// True when no slot was changed, added or removed and the key was not rotated.
    public var isEmpty: Bool { changed.isEmpty && added.isEmpty && removed.isEmpty && rotation == nil }

    /// The slots `after` has and `before` lacks (added, in `after`'s order) and those
    /// `before` has and `after` lacks (removed, in `before`'s order), matched by slot identity.
    init(from before: [KeySlotV2], to after: [KeySlotV2]) {
        let had = Set(before.map(\.identity)), has = Set(after.map(\.identity))
        self.init(changed: [], added: after.filter { !had.contains($0.identity) }.map(\.kind),
                  removed: before.filter { !has.contains($0.identity) }.map(\.kind), rotation: nil)
    }

    /// `self` followed by `other`'s additions and removals (a sync's totals over its files).
    public func followed(by other: KeySlotChange) -> KeySlotChange {
        KeySlotChange(changed: changed + other.changed, added: added + other.added,
                      removed: removed + other.removed, rotation: other.rotation ?? rotation)
    }
}

extension MergeReport {
    /// How many key slots the merge added (``keySlots``).
    public var slotsAdded: Int { keySlots.added.count }
    /// How many key slots the merge removed (``keySlots``).
    public var slotsRemoved: Int { keySlots.removed.count }
}

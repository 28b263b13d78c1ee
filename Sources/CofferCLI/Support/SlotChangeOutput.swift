import Coffer

/// How `merge`, `sync`, `merge-driver` and `restore` print key-slot changes
/// (``KeySlotChange``): by kind, counted, never a secret. A change of who can open the
/// vault is never silent.
enum SlotChangeOutput {
    /// "2 password slots, 1 password+key-file slot", or "none".
    static func kinds(_ kinds: [KeySlotKind]) -> String {
        var order: [String] = [], counts: [String: Int] = [:]
        for kind in kinds.map(\.description) {
            if counts[kind] == nil { order.append(kind) }
            counts[kind, default: 0] += 1
        }
        guard !order.isEmpty else { return "none" }
        return order.map { Output.plural(counts[$0] ?? 0, "\($0) slot") }.joined(separator: ", ")
    }

    /// "key slots: none added or removed", or "key slots added: …; removed: …".
    static func summary(_ change: KeySlotChange) -> String {
        guard !change.added.isEmpty || !change.removed.isEmpty else { return "key slots: none added or removed" }
        return "key slots added: \(kinds(change.added)); removed: \(kinds(change.removed))"
    }

    /// The warning a merge that added key slots prints: whoever holds such a slot's
    /// credential can open the vault now.
    static func addedWarning(_ change: KeySlotChange, merging file: String, into vault: String) -> String? {
        guard !change.added.isEmpty else { return nil }
        return "coffer: warning: merging \(Output.visible(file)) added \(kinds(change.added)) to \(Output.visible(vault)): "
            + "whoever holds \(change.added.count == 1 ? "its credential" : "their credentials") can open the vault now; "
            + "`coffer info \(Output.visible(vault))` lists the slots"
    }

    /// The JSON members for a change: `"slotsAdded"` and `"slotsRemoved"`, lists of kinds.
    static func json(_ change: KeySlotChange) -> [(String, JSONValue)] {
        [("slotsAdded", .strings(change.added.map(\.description))),
         ("slotsRemoved", .strings(change.removed.map(\.description)))]
    }
}

import Foundation
@testable import CofferFormat
@testable import CofferVault

/// What merging replicas must give (the `merged:` line of SPEC.md §15.1): every live item
/// (as `entries:` lists them, revision 0: revisions depend on the order of merges), the
/// ids of deleted items, and each item's conflict records.
package struct MergedVault: Codable, Equatable, Sendable {
    package struct Conflict: Codable, Equatable, Sendable, Comparable {
        package var id: String
        package var field: String
        /// The losing value: the field's text (a password, notes, a label…), `""` when the edit removed it.
        package var value: String
        package static func < (a: Conflict, b: Conflict) -> Bool { (a.id, a.field, a.value) < (b.id, b.field, b.value) }
    }
    package var items: [VectorEntry]
    package var deleted: [String]
    package var conflicts: [Conflict]
    /// Key slots of the merged vault, as their types in the merged (format-2) header (SPEC.md §4), in header order.
    package var slots: [UInt8]

    /// Reads a merged vault through the public API (and the snapshot for tombstones).
    package init(_ vault: Vault) throws {
        var items: [VectorEntry] = []
        var conflicts: [Conflict] = []
        for item in try vault.items().sorted(by: { $0.id < $1.id }) {
            items.append(VectorEntry(id: item.id, revision: 0, attributes: item.attributes, secrets: try vault.secrets(for: item.id)))
            for conflict in try vault.conflicts(for: item.id) {
                conflicts.append(Conflict(id: item.id.hex, field: conflict.field, value: Self.text(conflict)))
            }
        }
        self.items = items
        self.conflicts = conflicts.sorted()
        deleted = vault.snapshotForTests.tombstones.keys.map(\.hex).sorted()
        slots = vault.snapshotForTests.header.slots.map(\.type)
    }

    private static func text(_ c: ItemConflict) -> String {
        if let s = c.secrets {
            return [s.password, s.notes].compactMap { $0?.unsafeStringCopy() }.first
                ?? (s.fields.first.map { "\($0.name)=\($0.value.unsafeStringCopy() ?? "?")" } ?? "")
        }
        guard let a = c.attributes else { return "" }
        return [a.label, a.service, a.account, a.server, a.comment].compactMap { $0 }.first
            ?? (a.fields.first.map { "\($0.name)=\($0.value)" } ?? a.tags.joined(separator: ","))
    }

    package func encodeLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    package static func decodeLine(_ line: String) throws -> MergedVault {
        try JSONDecoder().decode(MergedVault.self, from: Data(line.utf8))
    }
}

import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Conflicts stay seen (issue 27, finding 13): a losing value stays listed until the item's
/// conflicts are resolved or its own field is edited, and a conflict about a named field
/// names it, a removal too.
@Suite("Vault: conflicts stay listed and named")
struct VaultConflictListingTests {
    /// Two replicas of a vault holding one item: (a, b, the item's id, b's path).
    func replicas(_ dir: URL, fields: [CustomField] = [], secretFields: [String] = []) throws -> (Vault, Vault, ItemID, String) {
        let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
        let a = try Vault.create(at: pathA, password: secure("pw"), options: testOptions)
        var attributes = ItemAttributes.genericPassword(service: "mail", account: "me")
        attributes.fields = fields
        let secrets = ItemSecrets(password: try secure("p0"),
                                  fields: try secretFields.map { SecretField(name: $0, value: try secure("secret-\($0)")) })
        let id = try a.add(attributes, secrets: secrets).id
        try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
        return (a, try Vault.open(at: pathB, password: secure("pw"), options: testOptions), id, pathB)
    }

    /// Replica A holding the item with A's password losing to B's (a conflict).
    func losingPassword(_ dir: URL) throws -> (Vault, ItemID) {
        let (a, b, id, pathB) = try replicas(dir)
        try a.update(id) { _, secrets in secrets.password = try secure("from-a") }
        Thread.sleep(forTimeInterval: 0.005)
        try b.update(id) { _, secrets in secrets.password = try secure("from-b") }
        try a.merge(contentsOf: pathB)
        return (a, id)
    }

    /// A losing password was listed (`conflicts(for:)`, `itemsWithConflicts()`) only until the
    /// item's next edit of any field: the edit moved it into the history and dropped the
    /// conflict, so `list --conflicts` and `history` stopped showing it unresolved.
    @Test("A losing password stays a conflict through edits of other fields, until its own field is edited or it is resolved")
    func losingPasswordStays() throws {
        try withTemporaryDirectory { dir in
            let (a, id) = try losingPassword(dir)
            func passwordConflicts() throws -> [String] {
                try a.conflicts(for: id).filter { $0.field == "password" }.compactMap { $0.secrets?.password?.testString }
            }
            func history() throws -> [String] { try a.secrets(for: id).passwordHistory.compactMap { $0.password.testString } }
            #expect(try passwordConflicts() == ["from-a"])

            try a.update(id) { attributes, _ in attributes.label = "Mail" }
            #expect(try passwordConflicts() == ["from-a"], "an edit of another field dropped the conflict")
            #expect(try a.itemsWithConflicts().map(\.id) == [id])
            let shown = try history()
            #expect(shown.filter { $0 == "from-a" }.count == 1, "the losing password is in the history once: \(shown)")
            try a.update(id) { _, secrets in secrets.notes = try secure("notes") }
            #expect(try passwordConflicts() == ["from-a"])

            // Its own field edited: the conflict is settled, the password stays in the history.
            try a.update(id) { _, secrets in secrets.password = try secure("third") }
            #expect(try passwordConflicts() == [])
            #expect(try history().contains("from-a"))
            #expect(try a.itemsWithConflicts().isEmpty)
        }
    }

    @Test("A losing password stays until resolved")
    func resolvedLeaves() throws {
        try withTemporaryDirectory { dir in
            let (a, id) = try losingPassword(dir)
            try a.update(id) { attributes, _ in attributes.comment = "edited" }
            #expect(try a.conflicts(for: id).map(\.field) == ["password"])
            try a.resolveConflicts(for: id)
            #expect(try a.conflicts(for: id).isEmpty)
            #expect(try a.secrets(for: id).passwordHistory.contains { $0.password.testString == "from-a" })
        }
    }

    /// A conflict that is the removal of a custom or secret field was shown without the
    /// field's name (`"field": "fields"`): the losing removal holds no field to name it.
    @Test("The removal of a custom or secret field that lost names the field")
    func removalNamed() throws {
        try withTemporaryDirectory { dir in
            let (a, b, id, pathB) = try replicas(dir, fields: [CustomField(name: "f1", value: "v1"), CustomField(name: "f2", value: "v2")],
                                                 secretFields: ["s1"])
            try a.update(id) { attributes, secrets in
                attributes.fields.removeAll { $0.name == "f1" }
                secrets.fields.removeAll { $0.name == "s1" }
            }
            Thread.sleep(forTimeInterval: 0.005)
            try b.update(id) { attributes, secrets in
                attributes.fields = attributes.fields.map { $0.name == "f1" ? CustomField(name: "f1", value: "w1") : $0 }
                secrets.fields = [SecretField(name: "s1", value: try secure("newer"))]
            }
            try a.merge(contentsOf: pathB)
            let conflicts = try a.conflicts(for: id)
            #expect(conflicts.count == 2)
            let custom = try #require(conflicts.first { $0.field == "fields" })
            #expect(custom.isRemoval && custom.name == "f1")
            let secret = try #require(conflicts.first { $0.field == "secret-fields" })
            #expect(secret.isRemoval && secret.name == "s1")
            // Other fields name nothing; a losing value names its field from itself.
            try b.update(id) { attributes, _ in attributes.fields = attributes.fields.map { $0.name == "f2" ? CustomField(name: "f2", value: "b2") : $0 } }
            Thread.sleep(forTimeInterval: 0.005)
            try a.update(id) { attributes, _ in attributes.fields = attributes.fields.map { $0.name == "f2" ? CustomField(name: "f2", value: "a2") : $0 } }
            try a.merge(contentsOf: pathB)
            #expect(try a.conflicts(for: id).first { $0.field == "fields" && !$0.isRemoval }?.name == "f2")
        }
    }
}

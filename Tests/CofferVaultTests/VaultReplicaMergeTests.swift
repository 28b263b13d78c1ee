import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Replicas of one vault edited apart, then merged (SPEC.md §17): nothing lost, the same
/// result in either direction.
@Suite("Vault: replica merge")
struct VaultReplicaMergeTests {
    /// A vault with `items` generic passwords, copied to two "devices": (a, b, pathA, pathB).
    func twoReplicas(_ dir: URL, items: [String] = ["shared"],
                     options: VaultOptions = testOptions) throws -> (Vault, Vault, String, String) {
        let pathA = dir.appendingPathComponent("a.coffer").path
        let pathB = dir.appendingPathComponent("b.coffer").path
        let a = try Vault.create(at: pathA, password: secure("pw"), options: options)
        for service in items {
            try a.add(.genericPassword(service: service, account: "me"), secrets: ItemSecrets(password: secure("p0")))
        }
        try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
        let b = try Vault.open(at: pathB, password: secure("pw"), options: options)
        return (a, b, pathA, pathB)
    }

    /// Every item's label, password, notes, custom fields and history, by service: what two replicas must agree on.
    func contents(_ vault: Vault) throws -> [String: String] {
        var out: [String: String] = [:]
        for item in try vault.items() {
            let s = try vault.secrets(for: item.id)
            let fields = item.fields.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: ",")
            let history = s.passwordHistory.map { $0.password.testString ?? "?" }.sorted().joined(separator: ",")
            let conflicts = try vault.conflicts(for: item.id).map(\.field).sorted().joined(separator: ",")
            out[item.service ?? item.label ?? "?"] = "label=\(item.label ?? "") pw=\(s.password?.testString ?? "") "
                + "notes=\(s.notes?.testString ?? "") fields=[\(fields)] history=[\(history)] conflicts=[\(conflicts)]"
        }
        return out
    }

    func merged(_ dir: URL, _ setUp: (Vault, Vault) throws -> Void) throws -> (Vault, Vault) {
        let (a, b, pathA, pathB) = try twoReplicas(dir)
        try setUp(a, b)
        try a.merge(contentsOf: pathB)
        try b.merge(contentsOf: pathA)
        #expect(try contents(a) == contents(b))
        // Idempotent: merging again changes nothing.
        #expect(try a.merge(contentsOf: pathB).isEmpty)
        return (a, b)
    }

    @Test("edits of different fields of one item, on two replicas: both kept, no conflict")
    func differentFields() throws {
        try withTemporaryDirectory { dir in
            let (a, _) = try merged(dir) { a, b in
                let id = try #require(try a.firstItem(matching: ItemQuery(service: "shared"))).id
                try a.update(id) { attributes, _ in attributes.label = "from A" }
                try b.update(id) { _, secrets in secrets.notes = try secure("from B") }
            }
            let item = try #require(try a.firstItem(matching: ItemQuery(service: "shared")))
            #expect(item.label == "from A")
            #expect(try a.secrets(for: item.id).notes?.testString == "from B")
            #expect(try a.conflicts(for: item.id).isEmpty)
        }
    }

    @Test("two different custom fields of one item edited on two replicas: both kept")
    func differentCustomFields() throws {
        try withTemporaryDirectory { dir in
            let (a, _) = try merged(dir) { a, b in
                let id = try #require(try a.firstItem(matching: ItemQuery(service: "shared"))).id
                try a.update(id) { attributes, secrets in
                    attributes.fields.append(CustomField(name: "left", value: "L"))
                    secrets.fields.append(SecretField(name: "pin", value: try secure("1234")))
                }
                try b.update(id) { attributes, secrets in
                    attributes.fields.append(CustomField(name: "right", value: "R"))
                    secrets.fields.append(SecretField(name: "otp", value: try secure("JBSWY3DP")))
                }
            }
            let item = try #require(try a.firstItem(matching: ItemQuery(service: "shared")))
            #expect(Dictionary(uniqueKeysWithValues: item.fields.map { ($0.name, $0.value) }) == ["left": "L", "right": "R"])
            #expect(Set(try a.secrets(for: item.id).fields.map(\.name)) == ["pin", "otp"])
            #expect(try a.conflicts(for: item.id).isEmpty)
        }
    }

    @Test("a new item stamps exactly the registers its lists are cut into (named fields included)")
    func addStampsEveryRegister() throws {
        var attributes = ItemAttributes.genericPassword(service: "s", account: "a")
        attributes.fields = [CustomField(name: "x", value: "1"), CustomField(name: "x", value: "2"), CustomField(name: "ü", value: "3")]
        attributes.urls = ["https://a", "https://b"]
        let secrets = ItemSecrets(password: try secure("p"), notes: try secure("n"),
                                  fields: [SecretField(name: "pin", value: try secure("1")), SecretField(name: "pin", value: try secure("2"))],
                                  attachments: [Attachment(name: "f", data: try secure("d"))])
        let overview = EntryCodec.encodeOverview(attributes).publicBytes
        let parts = try ItemParts(overview: overview, secrets: try EntryCodec.encodeSecrets(secrets).secureBytes())
        let predicted = try ItemParts.registers(ofOverview: overview).union(ItemParts.registers(of: secrets))
        #expect(Set(parts.valuedRegisters) == predicted)
        #expect(predicted.count == 12)   // kind, service, account, urls, 3 custom fields, password, notes, 2 secret fields, 1 attachment
    }

    @Test("the same password changed on two replicas: the newer wins, the other is in the history and the conflicts")
    func samePassword() throws {
        try withTemporaryDirectory { dir in
            let (a, b) = try merged(dir) { a, b in
                let id = try #require(try a.firstItem(matching: ItemQuery(service: "shared"))).id
                try a.update(id) { _, secrets in secrets.password = try secure("from A") }
                Thread.sleep(forTimeInterval: 0.01)
                try b.update(id) { _, secrets in secrets.password = try secure("from B") }
            }
            let id = try #require(try a.firstItem(matching: ItemQuery(service: "shared"))).id
            #expect(try a.secrets(for: id).password?.testString == "from B")
            #expect(Set(try a.secrets(for: id).passwordHistory.compactMap { $0.password.testString }) == ["p0", "from A"])
            let conflicts = try a.conflicts(for: id)
            #expect(conflicts.count == 1 && conflicts[0].field == "password" && conflicts[0].secrets?.password?.testString == "from A")
            // Reviewing on one replica clears the flag on both once they merge; history keeps the loser.
            try a.resolveConflicts(for: id)
            try b.merge(contentsOf: a.path)
            #expect(try b.conflicts(for: id).isEmpty)
            #expect(Set(try b.secrets(for: id).passwordHistory.compactMap { $0.password.testString }) == ["p0", "from A"])
        }
    }

    @Test("the same label changed on two replicas: the newer wins, the other is a conflict record")
    func sameLabel() throws {
        try withTemporaryDirectory { dir in
            let (a, _) = try merged(dir) { a, b in
                let id = try #require(try a.firstItem(matching: ItemQuery(service: "shared"))).id
                try a.update(id) { attributes, _ in attributes.label = "A's" }
                Thread.sleep(forTimeInterval: 0.01)
                try b.update(id) { attributes, _ in attributes.label = "B's" }
            }
            let item = try #require(try a.firstItem(matching: ItemQuery(service: "shared")))
            #expect(item.label == "B's")
            let conflict = try #require(try a.conflicts(for: item.id).first)
            #expect(conflict.field == "label" && conflict.attributes?.label == "A's")
        }
    }

    @Test("a deletion loses to an edit it had not seen; a deletion that had seen every edit wins")
    func deletions() throws {
        try withTemporaryDirectory { dir in
            let (a, b, pathA, pathB) = try twoReplicas(dir, items: ["kept", "gone"])
            let kept = try #require(try a.firstItem(matching: ItemQuery(service: "kept"))).id
            let gone = try #require(try a.firstItem(matching: ItemQuery(service: "gone"))).id
            try a.delete(kept)
            try b.update(kept) { _, secrets in secrets.notes = try secure("edited meanwhile") }
            try b.delete(gone)
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            for vault in [a, b] {
                #expect(try vault.items().compactMap(\.service) == ["kept"])
                #expect(try vault.secrets(for: kept).notes?.testString == "edited meanwhile")
            }
            #expect(try contents(a) == contents(b))
            // Deleting it now, having seen the edit, sticks after merging back and forth.
            try a.delete(kept)
            try b.merge(contentsOf: pathA)
            try a.merge(contentsOf: pathB)
            #expect(try a.items().isEmpty && b.items().isEmpty)
            #expect(a.snapshotForTests.tombstones.count == 2)
        }
    }

    @Test("an item added on each replica, and key slots added on each: all survive; a removed slot stays removed")
    func additionsAndSlots() throws {
        try withTemporaryDirectory { dir in
            let (a, b, pathA, pathB) = try twoReplicas(dir)
            try a.add(.genericPassword(service: "from-a", account: "me"))
            try b.add(.genericPassword(service: "from-b", account: "me"))
            try a.addKeySlot(.rawKey(try SecureBytes(copying: [UInt8](repeating: 1, count: 32))))
            try b.addKeySlot(.rawKey(try SecureBytes(copying: [UInt8](repeating: 2, count: 32))))
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            #expect(Set(try a.items().compactMap(\.service)) == ["shared", "from-a", "from-b"])
            #expect(a.slots.count == 3 && b.slots.count == 3)
            // B changes the master password (removes the old slot); A adds an item meanwhile.
            try b.changePassword(to: secure("new pw"), rotatingKey: false)
            try a.add(.genericPassword(service: "later", account: "me"))
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            for path in [pathA, pathB] {
                #expect(throws: CofferError.wrongPassword) { _ = try Vault.open(at: path, password: secure("pw"), options: testOptions) }
                let reopened = try Vault.open(at: path, password: secure("new pw"), options: testOptions)
                #expect(Set(try reopened.items().compactMap(\.service)) == ["shared", "from-a", "from-b", "later"])
                #expect(reopened.slots.count == 3)
            }
        }
    }

    @Test("the same master password changed on two replicas: both new passwords open the merged vault")
    func concurrentPasswordChanges() throws {
        try withTemporaryDirectory { dir in
            let (a, b, pathA, pathB) = try twoReplicas(dir)
            try a.changePassword(to: secure("A"), rotatingKey: false)
            try b.changePassword(to: secure("B"), rotatingKey: false)
            try a.merge(contentsOf: pathB)
            for password in ["A", "B"] { _ = try Vault.open(at: pathA, password: secure(password), options: testOptions) }
            #expect(throws: CofferError.wrongPassword) { _ = try Vault.open(at: pathA, password: secure("pw"), options: testOptions) }
        }
    }

    @Test("a file of another vault is refused with differentVault and left as it was")
    func differentVault() throws {
        try withTemporaryDirectory { dir in
            let (a, _, _, _) = try twoReplicas(dir)
            let other = dir.appendingPathComponent("other.coffer").path
            _ = try Vault.create(at: other, password: secure("pw"), options: testOptions)
            let before = try Data(contentsOf: URL(fileURLWithPath: other))
            #expect(throws: CofferError.differentVault) { try a.merge(contentsOf: other) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == before)
            #expect(throws: CofferError.self) { try a.merge(bytes: Array(before.prefix(100))) }
        }
    }

    @Test("a vault written before merging existed (the v1 vectors) opens, takes edits on two copies and merges")
    func legacyVaultMerges() throws {
        try withTemporaryDirectory { dir in
            let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
            let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: pathA))
            try Data(vector.bytes).write(to: URL(fileURLWithPath: pathB))
            let credential = try vector.credential()
            let a = try Vault.open(at: pathA, credential: credential, options: testOptions)
            let b = try Vault.open(at: pathB, credential: credential, options: testOptions)
            let items = try a.items()
            #expect(items.count == 3)
            try a.update(items[0].id) { attributes, _ in attributes.comment = "edited on A" }
            try b.update(items[0].id) { _, secrets in secrets.notes = try secure("edited on B") }
            try b.delete(items[1].id)
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            #expect(try contents(a) == contents(b))
            #expect(try a.items().count == 2)
            #expect(try a.item(items[0].id).comment == "edited on A")
            #expect(try a.secrets(for: items[0].id).notes?.testString == "edited on B")
            // The untouched legacy item is still byte for byte the vector's record.
            #expect(a.snapshotForTests.entries[items[2].id]?.record.body == b.snapshotForTests.entries[items[2].id]?.record.body)
        }
    }

    @Test("a copy in another folder of one device (one state folder) is another replica: no rollback warning, edits on both merge")
    func copyInAnotherFolderIsNoRollback() throws {
        try withTemporaryDirectory { dir in
            var options = testOptions
            options.replicaState = .directory(dir.appendingPathComponent("state").path)
            let (laptop, _, pathA, pathB) = try twoReplicas(dir, options: options)
            try laptop.add(.genericPassword(service: "on-laptop", account: "me"))     // the copy is now behind
            let desktop = try Vault.open(at: pathB, password: secure("pw"), options: options)
            #expect(desktop.rollback == nil)
            try desktop.add(.genericPassword(service: "on-desktop", account: "me"))
            try laptop.merge(contentsOf: pathB)
            try desktop.merge(contentsOf: pathA)
            #expect(try contents(laptop) == contents(desktop))
            #expect(Set(try desktop.items().compactMap(\.service)) == ["shared", "on-laptop", "on-desktop"])
        }
    }

    @Test("a rolled-back file warns, refuses saves until accepted, and a merge with the newer copy heals it")
    func rollback() throws {
        try withTemporaryDirectory { dir in
            var options = testOptions
            options.replicaState = .directory(dir.appendingPathComponent("state").path)
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: options)
            try vault.add(.genericPassword(service: "one", account: "me"))
            let old = dir.appendingPathComponent("old").path
            try FileManager.default.copyItem(atPath: path, toPath: old)
            try vault.add(.genericPassword(service: "two", account: "me"))
            let newer = dir.appendingPathComponent("newer").path
            try FileManager.default.copyItem(atPath: path, toPath: newer)
            func putBack(_ copy: String) throws {
                try FileManager.default.removeItem(atPath: path)
                try FileManager.default.copyItem(atPath: copy, toPath: path)
            }
            try putBack(old)

            let reopened = try Vault.open(at: path, password: secure("pw"), options: options)
            let warning = try #require(reopened.rollback)
            #expect(warning.replicasBehind == 1)
            #expect(throws: CofferError.rolledBack) { try reopened.add(.genericPassword(service: "three", account: "me")) }
            // Merging the newer copy brings back what was seen: the save is allowed.
            try reopened.merge(contentsOf: newer)
            try reopened.add(.genericPassword(service: "three", account: "me"))
            #expect(Set(try reopened.items().compactMap(\.service)) == ["one", "two", "three"])
            // A merely different replica (a concurrent copy) is not a rollback.
            #expect(try Vault.open(at: path, password: secure("pw"), options: options).rollback == nil)
            // Accepting a rollback lets saves through.
            try putBack(old)
            let rolled = try Vault.open(at: path, password: secure("pw"), options: options)
            #expect(rolled.rollback != nil)
            rolled.acceptRollback()
            try rolled.add(.genericPassword(service: "after", account: "me"))
            #expect(Set(try rolled.items().compactMap(\.service)) == ["one", "after"])
            // Accepted for good: the next open does not warn, and saves work.
            let next = try Vault.open(at: path, password: secure("pw"), options: options)
            #expect(next.rollback == nil)
            try next.add(.genericPassword(service: "later", account: "me"))
            // Merging a copy that still holds the lost edits brings them back.
            try next.merge(contentsOf: newer)
            #expect(Set(try next.items().compactMap(\.service)) == ["one", "two", "after", "later"])
        }
    }
}

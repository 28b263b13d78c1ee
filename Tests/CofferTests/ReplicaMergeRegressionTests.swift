import Foundation
import Testing
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

/// Merge bugs found by the replica simulation (ReplicaSimulationTests), each reduced to
/// its smallest schedule.
@Suite("Replica merge regressions")
struct ReplicaMergeRegressionTests {
    /// Replicas of one vault: the file copied to one folder per device, each opened with its
    /// own replica state.
    struct Devices {
        let root: URL
        let key: VaultCredential
        var paths: [String] = []

        init(_ root: URL, count: Int, setUp: (Vault) throws -> Void) throws {
            self.root = root
            key = .rawKey(try SecureBytes(copying: [UInt8](repeating: 42, count: 32)))
            let origin = root.appendingPathComponent("origin.coffer").path
            try setUp(try Vault.create(at: origin, credential: key, options: Self.options(nil)))
            for device in 0..<count {
                let folder = root.appendingPathComponent("device\(device)", isDirectory: true)
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let path = folder.appendingPathComponent("vault.coffer").path
                try FileManager.default.copyItem(atPath: origin, toPath: path)
                paths.append(path)
            }
        }

        static func options(_ state: String?) -> VaultOptions {
            VaultOptions(kdf: Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1), keepsBackup: false,
                         lockTimeout: .seconds(5), replicaState: state.map { .directory($0) } ?? .none)
        }

        /// An app's vault on `device`'s file; two apps of one device share its replica state.
        func open(_ device: Int) throws -> Vault {
            try Vault.open(at: paths[device], credential: key,
                           options: Self.options(root.appendingPathComponent("state\(device)").path))
        }
    }

    /// A list register (URLs, tags, custom fields, secret fields, attachments) stores several
    /// fields of one tag. Its losing value has them too, and the conflict record that holds
    /// it was read with a reader that refused a repeated tag: the merge's read-back check threw
    /// "malformed vault (secret conflict conflict value: field 11 repeated)" and the two
    /// replicas could never be merged. (Simulation seed 212205442170883: an item with one
    /// tag, two devices append a tag each, one merges the other.)
    @Test("Concurrent edits of a list with several entries merge, the loser kept whole",
          arguments: ["urls", "tags"])
    func listConflict(register: String) throws {
        try listMerge(register: register, named: false)
    }

    /// Named fields (custom fields, secret fields, attachments) merge one by one (SPEC.md
    /// §17.2): fields of different names added on two devices are both kept, no conflict.
    @Test("Named fields added on two devices at once are both kept", arguments: ["fields", "secret-fields", "attachments"])
    func namedFieldsBothKept(register: String) throws {
        try listMerge(register: register, named: true)
    }

    private func listMerge(register: String, named: Bool) throws {
        try withTemporaryDirectory { dir in
            func append(_ value: String, _ attributes: inout ItemAttributes, _ secrets: inout ItemSecrets) throws {
                switch register {
                case "urls": attributes.urls.append(value)
                case "tags": attributes.tags.append(value)
                case "fields": attributes.fields.append(CustomField(name: value, value: value))
                case "secret-fields": secrets.fields.append(SecretField(name: value, value: try SecureBytes(copying: value)))
                default: secrets.attachments.append(Attachment(name: value, data: try SecureBytes(copying: value)))
                }
            }
            func entries(_ attributes: ItemAttributes?, _ secrets: ItemSecrets?) -> [String] {
                switch register {
                case "urls": return attributes?.urls ?? []
                case "tags": return attributes?.tags ?? []
                case "fields": return attributes?.fields.map(\.value) ?? []
                case "secret-fields": return secrets?.fields.compactMap { $0.value.testString } ?? []
                default: return secrets?.attachments.compactMap { $0.data.testString } ?? []
                }
            }
            var id: ItemID?
            let devices = try Devices(dir, count: 2) { vault in
                var attributes = ItemAttributes.secureNote(title: "note")
                var secrets = ItemSecrets()
                try append("first", &attributes, &secrets)
                id = try vault.add(attributes, secrets: secrets).id
            }
            let a = try devices.open(0), b = try devices.open(1)
            try a.update(id!) { attributes, secrets in try append("from-a", &attributes, &secrets) }
            try b.update(id!) { attributes, secrets in try append("from-b", &attributes, &secrets) }

            let report = try a.merge(contentsOf: devices.paths[1])
            if named {
                #expect(report.conflicted.isEmpty)
                #expect(try a.conflicts(for: id!).isEmpty)
                #expect(entries(try a.item(id!).attributes, try a.secrets(for: id!)) == ["first", "from-a", "from-b"])
                try b.merge(contentsOf: devices.paths[0])
                #expect(entries(try b.item(id!).attributes, try b.secrets(for: id!)) == ["first", "from-a", "from-b"])
                return
            }
            #expect(report.conflicted == [id!])
            let winner = entries(try a.item(id!).attributes, try a.secrets(for: id!))
            let conflicts = try a.conflicts(for: id!)
            #expect(conflicts.map(\.field) == [register])
            let loser = entries(conflicts.first?.attributes, conflicts.first?.secrets)
            #expect(Set([winner, loser]) == [["first", "from-a"], ["first", "from-b"]])

            // The other way round gives the same, and the merged file opens and merges again.
            try b.merge(contentsOf: devices.paths[0])
            #expect(entries(try b.item(id!).attributes, try b.secrets(for: id!)) == winner)
            #expect(try a.merge(contentsOf: devices.paths[1]).isEmpty)
            let reopened = try devices.open(0)
            try reopened.verifyAll()
            #expect(entries(try reopened.conflicts(for: id!).first?.attributes, try reopened.conflicts(for: id!).first?.secrets) == loser)
        }
    }

    /// Two apps of one device have the vault open; one deletes an item while its snapshot is
    /// older than the file, where the other app had merged in another device's deletion of
    /// it. The save joins the file first and makes the deletion again on it (`Vault.replay`),
    /// which dropped it whenever the item had changed since the app's snapshot, as if the
    /// change were a concurrent edit: the item stayed, though every edit of it had been seen
    /// by a deletion. (Simulation seed 212205442170978.)
    @Test("A deletion made on an older snapshot is not undone by another writer's deletion")
    func staleDeletion() throws {
        try withTemporaryDirectory { dir in
            var id: ItemID?
            let devices = try Devices(dir, count: 2) { vault in
                id = try vault.add(.genericPassword(service: "s", account: "a")).id
            }
            let app = try devices.open(0), otherApp = try devices.open(0), laptop = try devices.open(1)
            try app.update(id!) { attributes, _ in attributes.comment = "seen by the app, not by the laptop" }
            try laptop.delete(id!)
            // The other app merges the laptop's deletion: an edit it had not seen keeps the item.
            try otherApp.merge(contentsOf: devices.paths[1])
            #expect(try otherApp.items().map(\.id) == [id!])
            // The app, which has seen every edit of the item, deletes it: it goes.
            try app.delete(id!)
            #expect(try app.items().isEmpty)
            #expect(try devices.open(0).items().isEmpty)
            try laptop.merge(contentsOf: devices.paths[0])
            #expect(try laptop.items().isEmpty)

            // An edit the deleting app had not seen still wins.
            let kept = try app.add(.genericPassword(service: "t", account: "b")).id
            try otherApp.refresh()
            try otherApp.update(kept) { attributes, _ in attributes.comment = "edited meanwhile" }
            try app.delete(kept)
            #expect(try app.item(kept).comment == "edited meanwhile")
        }
    }

    /// An edit made on an older snapshot than the file is made again on the file
    /// (`ItemMerge.edit`); of a field it left alone, it dropped the losing passwords as
    /// "offered to the edit as history". But a password that had won in the edit's snapshot
    /// and lost since, to one another app saved meanwhile, was never offered: it vanished,
    /// from the password, the history and the conflicts. (Simulation seeds 212205442171061
    /// and 212205442171211.)
    @Test("An edit on an older snapshot keeps a password that lost meanwhile")
    func stalePasswordEdit() throws {
        try withTemporaryDirectory { dir in
            var id: ItemID?
            let devices = try Devices(dir, count: 1) { vault in
                id = try vault.add(.internetPassword(server: "example.com", account: "a")).id
            }
            let app = try devices.open(0), otherApp = try devices.open(0)
            try app.update(id!, secrets: ItemSecrets(password: try SecureBytes(copying: "first")))
            // The other app, which has not seen "first", sets its own: the two are concurrent.
            try otherApp.update(id!, secrets: ItemSecrets(password: try SecureBytes(copying: "second")))
            // The app edits another field; its snapshot still shows "first" as the password.
            try app.update(id!) { attributes, _ in attributes.tags = ["edited"] }
            for vault in [app, try devices.open(0)] {
                let secrets = try vault.secrets(for: id!)
                let passwords = [secrets.password?.testString] + secrets.passwordHistory.map { $0.password.testString }
                #expect(Set(passwords.compactMap { $0 }) == ["first", "second"])
                #expect(try vault.conflicts(for: id!).compactMap { $0.secrets?.password?.testString } == ["first", "second"].filter { $0 != secrets.password?.testString })
            }
        }
    }

    /// The same for a resolution made on an older snapshot: it dropped every losing value it
    /// had seen at all, though the value it had seen as the winner had lost since to one
    /// another app saved meanwhile: an edit nobody had reviewed vanished. A resolution now
    /// drops only the values that had lost in its snapshot. (Simulation seed 212205442171492.)
    @Test("A resolution on an older snapshot keeps a value that lost after it was read")
    func staleResolution() throws {
        try withTemporaryDirectory { dir in
            var id: ItemID?
            let devices = try Devices(dir, count: 1) { vault in
                id = try vault.add(.secureNote(title: "note")).id
            }
            let app = try devices.open(0), otherApp = try devices.open(0)
            try app.update(id!) { attributes, _ in attributes.comment = "by the app" }
            try otherApp.update(id!) { attributes, _ in attributes.comment = "by the other app" }
            // The other app's comment wins (it saved later); the app's is kept as a conflict.
            #expect(try devices.open(0).conflicts(for: id!).map { $0.attributes?.comment } == ["by the app"])
            // The app resolves on its snapshot, where its own comment had no rival.
            try app.resolveConflicts(for: id!)
            #expect(try app.conflicts(for: id!).map { $0.attributes?.comment } == ["by the app"])
            #expect(try app.item(id!).comment == "by the other app")
            // Resolved where the conflict is seen, it goes.
            try otherApp.refresh()
            try otherApp.resolveConflicts(for: id!)
            #expect(try devices.open(0).conflicts(for: id!).isEmpty)
        }
    }

    /// Two apps of one device: one changes the vault password (its old password slot is
    /// removed), then the other, whose snapshot still has that slot, adds a key slot. The
    /// save joined the file and made the slot change again on it (`Vault.replay`), adding
    /// every slot of the transaction's header the file lacked: the old password's slot came
    /// back, and the file opened with the password that had been changed.
    /// (Simulation seed 212205442179941.)
    @Test("A key slot added on an older snapshot does not bring back a removed password")
    func staleSlotAdd() throws {
        try withTemporaryDirectory { dir in
            let old = try SecureBytes(copying: "old password"), new = try SecureBytes(copying: "new password")
            let devices = try Devices(dir, count: 1) { vault in try vault.addKeySlot(.password(old)) }
            let app = try devices.open(0), otherApp = try devices.open(0)
            try app.changePassword(to: new)
            let deviceKey = try SecureBytes(copying: [UInt8](repeating: 7, count: 32))
            try otherApp.addKeySlot(.rawKey(deviceKey))
            #expect(otherApp.slots.sorted { "\($0)" < "\($1)" } == [.password, .rawKey, .rawKey].sorted { "\($0)" < "\($1)" })
            let options = Devices.options(nil)
            #expect(throws: CofferError.wrongPassword) { _ = try Vault.open(at: devices.paths[0], credential: .password(old), options: options) }
            _ = try Vault.open(at: devices.paths[0], credential: .password(new), options: options)
            _ = try Vault.open(at: devices.paths[0], credential: .rawKey(deviceKey), options: options)
        }
    }
}

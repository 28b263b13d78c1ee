import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Merge bugs found by the replica simulation (VaultReplicaSimulationTests), each reduced to
/// its smallest schedule.
@Suite("Vault: replica merge regressions")
struct VaultReplicaMergeRegressionTests {
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
            try app.changePassword(to: new, rotatingKey: false)
            let deviceKey = try SecureBytes(copying: [UInt8](repeating: 7, count: 32))
            try otherApp.addKeySlot(.rawKey(deviceKey))
            #expect(otherApp.slots.sorted { "\($0)" < "\($1)" } == [.password, .rawKey, .rawKey].sorted { "\($0)" < "\($1)" })
            let options = Devices.options(nil)
            #expect(throws: CofferError.wrongPassword) { _ = try Vault.open(at: devices.paths[0], credential: .password(old), options: options) }
            _ = try Vault.open(at: devices.paths[0], credential: .password(new), options: options)
            _ = try Vault.open(at: devices.paths[0], credential: .rawKey(deviceKey), options: options)
        }
    }

    /// Two devices each add an item with one unique key (service and account); the merge
    /// keeps both, so nothing is lost. The unique-key index held one item per key: whichever
    /// it did not name could no longer be edited at all (every edit threw `duplicateItem`,
    /// even one that left the key alone), and once the named one was renamed or deleted the
    /// key counted as free, so a third item could take it. An item now keeps a key it holds
    /// whoever else holds it; no item takes a key another holds.
    @Test("Items two replicas added with one unique key stay editable after a merge")
    func sharedKeyAfterMerge() throws {
        try withTemporaryDirectory { dir in
            let key = ItemAttributes.genericPassword(service: "bank", account: "alice")
            let query = ItemQuery(service: "bank", account: "alice")
            let devices = try Devices(dir, count: 2) { _ in }
            let phone = try devices.open(0), laptop = try devices.open(1)
            let first = try phone.add(key, secrets: ItemSecrets(password: try secure("from the phone"))).id
            let unrelated = try phone.add(.genericPassword(service: "bank", account: "bob")).id
            let second = try laptop.add(key, secrets: ItemSecrets(password: try secure("from the laptop"))).id
            try phone.merge(contentsOf: devices.paths[1])
            #expect(Set(try phone.items(matching: query).map(\.id)) == [first, second])

            // Either can be edited, keeping the key; in this vault (its key index kept up by the
            // merge) and in one opened afterwards (its index built from the file).
            func editBoth(_ vault: Vault, _ tag: String) throws {
                for id in [first, second] {
                    try vault.update(id, secrets: ItemSecrets(password: try secure("\(tag) \(id)")))
                    try vault.update(id) { attributes, secrets in
                        attributes.comment = tag
                        secrets.notes = try secure("notes \(tag)")
                    }
                    try vault.update(id, attributes: key)   // the key given again
                    #expect(try vault.secrets(for: id).password?.testString == "\(tag) \(id)")
                }
                // A new item, or another one moved onto the key, is still refused.
                #expect(throws: CofferError.duplicateItem) { try vault.add(key) }
                #expect(throws: CofferError.duplicateItem) { try vault.update(unrelated, attributes: key) }
                #expect(Set(try vault.items(matching: query).map(\.id)) == [first, second])
            }
            try editBoth(phone, "merged")
            // An upsert of the key changes one of them: the one a lookup finds first (the lower id;
            // it was whichever the index had met first).
            let upserted = try phone.upsert(key, secrets: ItemSecrets(password: try secure("upserted")))
            #expect(upserted.id == min(first, second))
            #expect(try phone.password(matching: query).testString == "upserted")
            try editBoth(try devices.open(0), "reopened")
            try phone.refresh()

            // The laptop deletes one of the two: the other still holds the key.
            try laptop.merge(contentsOf: devices.paths[0])
            try laptop.delete(first)
            #expect(throws: CofferError.duplicateItem) { try laptop.add(key) }
            try laptop.update(second) { attributes, _ in attributes.label = "kept" }
            #expect(try laptop.items(matching: query).map(\.id) == [second])

            // The phone renames one of the two to a fresh key: the other still holds the old one,
            // and the renamed item cannot be moved back onto it.
            try phone.update(second) { attributes, _ in attributes.account = "alice (laptop)" }
            #expect(try phone.items(matching: query).map(\.id) == [first])
            #expect(throws: CofferError.duplicateItem) { try phone.add(key) }
            #expect(throws: CofferError.duplicateItem) { try phone.update(unrelated, attributes: key) }
            #expect(throws: CofferError.duplicateItem) { try phone.update(second, attributes: key) }

            // Joined again: the deletion and the rename both hold, and the key is free.
            try phone.merge(contentsOf: devices.paths[1])
            #expect(try phone.items(matching: query).isEmpty)
            let renamed = try phone.item(second)
            #expect(renamed.account == "alice (laptop)" && renamed.label == "kept")
            try phone.add(key)
            #expect(throws: CofferError.duplicateItem) { try phone.add(key) }
        }
    }

    /// The same through an app whose snapshot is older than the file: the save joins the
    /// file and makes the edit again on it (`Vault.replay`), where the item shares its key
    /// with one the merge brought in. That check refused the edit too.
    @Test("An edit made on an older snapshot keeps a key its item shares after a merge")
    func sharedKeyStaleEdit() throws {
        try withTemporaryDirectory { dir in
            let key = ItemAttributes.genericPassword(service: "bank", account: "alice")
            let query = ItemQuery(service: "bank", account: "alice")
            let devices = try Devices(dir, count: 2) { _ in }
            let app = try devices.open(0), otherApp = try devices.open(0), laptop = try devices.open(1)
            let unrelated = try app.add(.genericPassword(service: "bank", account: "bob")).id
            try otherApp.refresh()
            let first = try app.add(key, secrets: ItemSecrets(password: try secure("from the app"))).id
            let second = try laptop.add(key, secrets: ItemSecrets(password: try secure("from the laptop"))).id

            // The other app has not seen the key taken: its move of another item onto it passes
            // its own check, and is refused when made again on the file.
            #expect(throws: CofferError.duplicateItem) { try otherApp.update(unrelated, attributes: key) }

            // The other app merges the laptop's file; the app has not seen that.
            try otherApp.merge(contentsOf: devices.paths[1])
            try app.update(first) { _, secrets in secrets.notes = try secure("edited on an older snapshot") }
            #expect(Set(try app.items(matching: query).map(\.id)) == [first, second])
            // And the other way round: the other app has not seen the app's edit.
            try otherApp.update(second) { _, secrets in secrets.notes = try secure("also on an older snapshot") }
            try otherApp.update(first) { _, secrets in secrets.password = try secure("changed") }
            try app.update(second, attributes: key)   // the app has not seen the other app's edits

            let reopened = try devices.open(0)
            #expect(Set(try reopened.items(matching: query).map(\.id)) == [first, second])
            #expect(try reopened.secrets(for: first).notes?.testString == "edited on an older snapshot")
            #expect(try reopened.secrets(for: first).password?.testString == "changed")
            #expect(try reopened.secrets(for: second).notes?.testString == "also on an older snapshot")
            #expect(throws: CofferError.duplicateItem) { try app.update(unrelated, attributes: key) }
            #expect(throws: CofferError.duplicateItem) { try app.add(key) }
        }
    }

    /// An edit made again on a newer version (`Vault.replay`) ends with the fields another
    /// writer changed meanwhile, the item's key among them; the check and the key index used
    /// the key the edit had seen. An item renamed meanwhile, whose old key another item then
    /// took, could not be edited on the older snapshot (`duplicateItem`), and the index
    /// named it for a key it no longer held.
    @Test("An edit made on an older snapshot is checked with the key its item ends up with")
    func staleEditOfRenamedItem() throws {
        try withTemporaryDirectory { dir in
            let key = ItemAttributes.genericPassword(service: "bank", account: "alice")
            var id: ItemID?
            let devices = try Devices(dir, count: 1) { vault in id = try vault.add(key).id }
            let app = try devices.open(0), otherApp = try devices.open(0)
            try app.update(id!) { attributes, _ in attributes.account = "alice (old)" }
            let taker = try app.add(key).id
            // The other app, which still sees the item under the key, changes its password.
            try otherApp.update(id!, secrets: ItemSecrets(password: try secure("new")))
            #expect(try otherApp.item(id!).account == "alice (old)")
            #expect(try otherApp.secrets(for: id!).password?.testString == "new")
            #expect(try otherApp.items(matching: ItemQuery(service: "bank", account: "alice")).map(\.id) == [taker])
            // Its key index follows the items: both keys are taken.
            #expect(throws: CofferError.duplicateItem) { try otherApp.add(key) }
            #expect(throws: CofferError.duplicateItem) { try otherApp.add(.genericPassword(service: "bank", account: "alice (old)")) }
        }
    }

    @Test("A note a concurrent edit brought back without its title (renamed, then deleted, on another device) can still be edited; an edit may not take the title away")
    func untitledNoteStaysEditable() throws {
        // Replica simulation, seed 212205442177343 (SPEC.md §17.5 "What does not come back").
        try withTemporaryDirectory { dir in
            var id: ItemID?
            let devices = try Devices(dir, count: 2) { origin in
                id = try origin.add(.secureNote(title: "note"), secrets: ItemSecrets(notes: try SecureBytes(copying: "n"))).id
            }
            let note = try #require(id)
            let a = try devices.open(0), b = try devices.open(1)
            try b.update(note) { _, secrets in secrets.notes = try SecureBytes(copying: "edited on B") }
            try a.update(note) { attributes, _ in attributes.label = "renamed on A" }
            try a.delete(note)
            try a.merge(contentsOf: devices.paths[1])
            #expect(try a.item(note).attributes.label == nil)
            try a.update(note) { attributes, _ in attributes.comment = "still editable" }
            #expect(try a.item(note).attributes.comment == "still editable")
            try a.update(note) { attributes, _ in attributes.label = "titled again" }
            #expect(throws: CofferError.self) { try a.update(note) { attributes, _ in attributes.label = "" } }
        }
    }
}

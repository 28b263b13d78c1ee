import Foundation
import Testing
import CofferVault
import CofferTestSupport

@Suite("Vault: behaviour")
struct VaultBehaviourTests {
    func makeVault(_ dir: URL, name: String = "v.coffer") throws -> (Vault, String) {
        let path = dir.appendingPathComponent(name).path
        return (try Vault.create(at: path, password: secure("pw"), options: testOptions), path)
    }

    @Test("Duplicates are refused by Apple's uniqueness rules; upsert replaces")
    func duplicates() throws {
        try withTemporaryDirectory { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("1")))
            #expect(throws: CofferError.duplicateItem) {
                try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("2")))
            }
            // Same service, other account: fine. Internet passwords differ by port and path.
            try vault.add(.genericPassword(service: "s", account: "b"))
            try vault.add(.internetPassword(server: "example.com", account: "a", protocol: "https"))
            try vault.add(.internetPassword(server: "example.com", account: "a", protocol: "https", port: 8443))
            #expect(throws: CofferError.duplicateItem) {
                try vault.add(.internetPassword(server: "example.com", account: "a", protocol: "https"))
            }
            // Notes may share a title.
            try vault.add(.secureNote(title: "n"), secrets: ItemSecrets(notes: secure("one")))
            try vault.add(.secureNote(title: "n"), secrets: ItemSecrets(notes: secure("two")))
            let upserted = try vault.upsert(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("3")))
            #expect(upserted.revision == 2)
            let secrets = try vault.secrets(for: upserted.id)
            #expect(secrets.password?.testString == "3")
            #expect(secrets.passwordHistory.map { $0.password.testString } == ["1"])
            #expect(try vault.items().count == 6)
            // Updating an item onto another's key is a duplicate too.
            let b = try #require(try vault.firstItem(matching: ItemQuery(service: "s", account: "b")))
            #expect(throws: CofferError.duplicateItem) {
                try vault.update(b.id, attributes: .genericPassword(service: "s", account: "a"))
            }
            #expect(throws: CofferError.invalidItem) {
                try vault.add(ItemAttributes(kind: .genericPassword, account: "x"))
            }
        }
    }

    @Test("A transaction that throws rolls back completely, in memory and on disk")
    func transactionRollback() throws {
        struct Refused: Error {}
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let keep = try vault.add(.genericPassword(service: "keep", account: "a"), secrets: ItemSecrets(password: secure("k")))
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: Refused.self) {
                try vault.transaction { tx in
                    try tx.add(.genericPassword(service: "new", account: "a"))
                    try tx.delete(keep.id)
                    try tx.changePassword(to: secure("other"))
                    #expect(try tx.items().map(\.service) == ["new"])   // the transaction sees its changes
                    throw Refused()
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try vault.items().map(\.service) == ["keep"])
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).items().count == 1)
            // A successful transaction saves everything at once, in one generation.
            let generation = vault.generation
            try vault.transaction { tx in
                try tx.add(.genericPassword(service: "x", account: "1"))
                try tx.add(.genericPassword(service: "x", account: "2"))
                try tx.update(keep.id) { attributes, _ in attributes.isFavorite = true }
            }
            #expect(vault.generation == generation + 1)
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try reopened.items().count == 3)
            #expect(try reopened.items(matching: ItemQuery(isFavorite: true)).map(\.id) == [keep.id])
        }
    }

    @Test("Changing the password keeps every item and retires the old password")
    func changePassword() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            for i in 0..<5 {
                try vault.add(.genericPassword(service: "s\(i)", account: "a"), secrets: ItemSecrets(password: secure("p\(i)")))
            }
            let recordsBefore = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).records.map { Array($0.body) }
            try vault.changePassword(to: secure("new password"), rotatingKey: false)
            #expect(throws: CofferError.wrongPassword) { try Vault.open(at: path, password: secure("pw")) }
            let reopened = try Vault.open(at: path, password: secure("new password"), options: testOptions)
            #expect(try reopened.items().count == 5)
            #expect(try reopened.password(matching: ItemQuery(service: "s3")).testString == "p3")
            // Without a rotation no entry was re-encrypted: every record is byte for byte the same.
            let recordsAfter = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).records.map { Array($0.body) }
            #expect(recordsAfter == recordsBefore)
        }
    }

    @Test("Key-file, password+key-file and raw-key slots each open the vault; slots can be removed")
    func slots() throws {
        try withTemporaryDirectory { dir in
            let keyPath = dir.appendingPathComponent("k.key").path
            let keyFile = try KeyFile.generate(at: keyPath)
            let rawKey = try SecureBytes.random(count: 32)
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, credential: .passwordAndKeyFile(try secure("pw"), keyFile),
                                         additional: [.rawKey(rawKey)], options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("x")))
            try vault.addKeySlot(.keyFile(try KeyFile(contentsOf: keyPath)))
            #expect(try Vault.info(at: path).slots.map(\.kind) == [.passwordAndKeyFile, .rawKey, .keyFile])

            for credential: VaultCredential in [.keyFile(try KeyFile(contentsOf: keyPath)), .rawKey(rawKey),
                                                .passwordAndKeyFile(try secure("pw"), try KeyFile(contentsOf: keyPath))] {
                let opened = try Vault.open(at: path, credential: credential, options: testOptions)
                #expect(try opened.password(matching: ItemQuery(service: "s")).testString == "x")
            }
            // The password alone opens nothing here: there is no password-only slot.
            #expect(throws: CofferError.wrongPassword) { try Vault.open(at: path, password: secure("pw")) }
            let otherKey = try KeyFile.generate(at: dir.appendingPathComponent("other.key").path)
            #expect(throws: CofferError.wrongKeyFile) { try Vault.open(at: path, credential: .keyFile(otherKey)) }
            #expect(throws: CofferError.wrongKeyFile) {
                try Vault.open(at: path, credential: .passwordAndKeyFile(try secure("bad"), try KeyFile(contentsOf: keyPath)))
            }
            #expect(throws: CofferError.wrongRawKey) { try Vault.open(at: path, credential: .rawKey(try SecureBytes.random(count: 32))) }

            try vault.removeKeySlot(.rawKey(rawKey))
            #expect(throws: CofferError.wrongRawKey) { try Vault.open(at: path, credential: .rawKey(rawKey)) }
            try vault.removeKeySlot(.keyFile(keyFile))
            #expect(throws: CofferError.slotUnavailable) {
                try vault.removeKeySlot(.passwordAndKeyFile(try secure("pw"), keyFile))
            }
            #expect(try Vault.info(at: path).slots.map(\.kind) == [.passwordAndKeyFile])
        }
    }

    @Test("The backup holds the previous version and restores it")
    func backup() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            try vault.add(.genericPassword(service: "first", account: "a"))
            let afterFirst = try Data(contentsOf: URL(fileURLWithPath: path))
            try vault.add(.genericPassword(service: "second", account: "a"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".bak")) == afterFirst)
            try Vault.restoreBackup(at: path)
            let restored = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try restored.items().map(\.service) == ["first"])
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test("Edits by another writer are merged: other items as they are, the same field with the newer value winning and the other kept")
    func mergeAndConflict() throws {
        try withTemporaryDirectory { dir in
            let (first, path) = try makeVault(dir)
            let shared = try first.add(.genericPassword(service: "shared", account: "a"), secrets: ItemSecrets(password: secure("0")))
            let second = try Vault.open(at: path, password: secure("pw"), options: testOptions)

            try second.add(.genericPassword(service: "from-second", account: "a"))
            try first.add(.genericPassword(service: "from-first", account: "a"))       // merged on top
            #expect(Set(try first.items().compactMap(\.service)) == ["shared", "from-second", "from-first"])

            try second.update(shared.id, secrets: ItemSecrets(password: secure("second")))
            // `first` had not seen that edit: its own wins (it is newer), "second" is kept as a conflict.
            try first.update(shared.id, secrets: ItemSecrets(password: secure("first")))
            let final = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try final.password(matching: ItemQuery(service: "shared")).testString == "first")
            #expect(try final.items().count == 3)
            let conflicts = try final.conflicts(for: shared.id)
            #expect(conflicts.map(\.field) == ["password"])
            #expect(conflicts.first?.secrets?.password?.testString == "second")
            #expect(Set(try final.secrets(for: shared.id).passwordHistory.map { $0.password.testString }) == ["0", "second"])
            #expect(try final.itemsWithConflicts().map(\.id) == [shared.id])
            try final.resolveConflicts(for: shared.id)
            #expect(try final.conflicts(for: shared.id).isEmpty)
            #expect(Set(try final.secrets(for: shared.id).passwordHistory.map { $0.password.testString }) == ["0", "second"])
            try first.refresh()
            // A password change by one writer does not stop the other from saving (without a
            // rotation: a handle holding the old key cannot save over a rotated file).
            try second.refresh()
            try second.changePassword(to: secure("pw2"), rotatingKey: false)
            try first.add(.genericPassword(service: "after-rekey", account: "a"))
            #expect(try Vault.open(at: path, password: secure("pw2"), options: testOptions).items().count == 4)
        }
    }

    @Test("Two processes adding at once lose nothing")
    func twoProcesses() async throws {
        try await withTemporaryDirectoryAsync { dir in
            let (vault, path) = try makeVault(dir)
            async let a = Task.detached { try runProduct("CofferTestWriter", ["add", path, "a", "15"], stdin: "pw\n") }.value
            async let b = Task.detached { try runProduct("CofferTestWriter", ["add", path, "b", "15"], stdin: "pw\n") }.value
            let (ra, rb) = try await (a, b)
            #expect(ra.status == 0, "\(ra.err)")
            #expect(rb.status == 0, "\(rb.err)")
            try vault.refresh()
            #expect(try vault.items().count == 30)
        }
    }

    @Test("destroy removes the vault, its backup, temp files and lock; a raw-key slot can be dropped by index")
    func destroy() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let deviceKey = try SecureBytes.random(count: 32)
            try vault.addKeySlot(.rawKey(deviceKey))
            try vault.add(.genericPassword(service: "s", account: "a"))
            #expect(vault.slots == [.password, .rawKey])
            try vault.removeKeySlot(at: 1)     // the device key was lost: no key needed to drop it
            #expect(throws: CofferError.wrongRawKey) { try Vault.open(at: path, credential: .rawKey(deviceKey)) }
            #expect(throws: CofferError.slotUnavailable) { try vault.removeKeySlot(at: 0) }
            let stray = dir.appendingPathComponent(".v.coffer.tmp-0123456789abcdef").path
            #expect(FileManager.default.createFile(atPath: stray, contents: Data([1])))
            try Vault.destroy(at: path)
            let left = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            #expect(left.isEmpty, "left behind: \(left)")
            #expect(throws: CofferError.fileNotFound(path)) { try Vault.destroy(at: path) }
        }
    }

    @Test("Locking wipes the keys; unlock brings the vault back")
    func lockUnlock() throws {
        try withTemporaryDirectory { dir in
            let (vault, _) = try makeVault(dir)
            try vault.add(.genericPassword(service: "s", account: "a"))
            vault.lock()
            #expect(vault.isLocked)
            #expect(throws: CofferError.vaultLocked) { try vault.items() }
            #expect(throws: CofferError.wrongPassword) { try vault.unlock(with: .password(try secure("nope"))) }
            try vault.unlock(with: .password(try secure("pw")))
            #expect(try vault.items().count == 1)
        }
    }

    @Test("KeychainAccess-style view: get, set, subscript, Codable, contains, allKeys, remove")
    func keychainView() throws {
        struct Settings: Codable, Equatable { var theme: String; var volume: Int }
        try withTemporaryDirectory { dir in
            let (vault, _) = try makeVault(dir)
            let keychain = vault.keychain(service: "com.example.app")
            #expect(try keychain.get("token") == nil)
            try keychain.set("t1", key: "token")
            try keychain.set("t2", key: "token")
            #expect(try keychain["token"] == "t2")
            try keychain.set(Settings(theme: "dark", volume: 7), key: "settings")
            #expect(try keychain.get(Settings.self, key: "settings") == Settings(theme: "dark", volume: 7))
            #expect(try keychain.contains("token"))
            #expect(try keychain.allKeys() == ["settings", "token"])
            try keychain.remove("token")
            #expect(try !keychain.contains("token"))
            #expect(try vault.keychain(service: "other").allKeys().isEmpty)
        }
    }
}

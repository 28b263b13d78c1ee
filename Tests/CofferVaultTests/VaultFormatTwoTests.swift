import Foundation
import Testing
import CofferCrypto
import CofferFormat
import CofferStore
@testable import CofferVault
import CofferTestSupport

/// The vault on format 2 (SPEC.md §11): deletions that erase, a concurrent edit that brings
/// an item back whole, the upgrade of a format-1 file, and key rotation.
@Suite("Vault: format 2 (erasure, upgrade, key rotation)")
struct VaultFormatTwoTests {
    static let secret = "a-distinctive-secret-8c1f"
    static let account = "erased-account-5d2e"

    func file(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `needle` occurs in `haystack`.
    func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard haystack.count >= n.count else { return false }
        return (0...(haystack.count - n.count)).contains { haystack[$0..<($0 + n.count)].elementsEqual(n) }
    }

    /// A vault with one item of every kind of value, and its path.
    func vaultWithItem(_ dir: URL) throws -> (Vault, String, ItemID) {
        let path = dir.appendingPathComponent("v.coffer").path
        let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
        var attributes = ItemAttributes.genericPassword(service: "erased.example", account: Self.account)
        attributes.label = "Erased label"
        attributes.fields = [CustomField(name: "hint", value: "erased-hint")]
        let item = try vault.add(attributes, secrets: ItemSecrets(password: secure(Self.secret), notes: secure("erased notes")))
        try vault.add(.genericPassword(service: "kept.example", account: "me"), secrets: ItemSecrets(password: secure("kept")))
        return (vault, path, item.id)
    }

    @Test("A deletion erases: the tombstone holds no attribute and no secret part, under any key")
    func deletionErases() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, id) = try vaultWithItem(dir)
            try vault.delete(id)
            let bytes = try file(path)
            let codec = try VaultFileV2.parse(bytes)
            let record = try #require(codec.records.first { $0.id == id })
            #expect(record.isTombstone)
            #expect(record.lookupTag == 0)
            // The vault's own key opens the tombstone: dates and clock only.
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            let overview = try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
            #expect(!contains(overview, Self.account) && !contains(overview, "erased.example") && !contains(overview, "Erased label"))
            #expect(try ItemClockCodec.decode(overview: overview)?.isDeleted == true)
            // And nothing of the item is anywhere in the file's plaintexts either: every
            // record's parts, decrypted with the key, lack its values.
            for other in codec.records where !other.isTombstone {
                let list = try other.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
                #expect(!contains(list, Self.account))
                let secrets = try other.openSecretList(vaultID: codec.header.vaultID, keys: keys, overview: list)
                #expect(!contains(secrets.withUnsafeBytes { Array($0) }, Self.secret))
            }
            #expect(try vault.items().count == 1)
            #expect(throws: CofferError.itemNotFound) { _ = try vault.item(id) }
        }
    }

    @Test("A tombstone merged with a concurrent edit gives the edit's item whole; one that saw every edit stays deleted")
    func concurrentEditBringsItemBack() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, id) = try vaultWithItem(dir)
            let editorPath = dir.appendingPathComponent("editor.coffer").path
            let idlePath = dir.appendingPathComponent("idle.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: editorPath)
            try FileManager.default.copyItem(atPath: path, toPath: idlePath)
            // Here: deleted. On another device, meanwhile: its notes edited.
            try vault.delete(id)
            let editor = try Vault.open(at: editorPath, password: secure("pw"), options: testOptions)
            try editor.update(id) { _, secrets in secrets.notes = try SecureBytes(copying: "edited notes") }

            // Either way round, the item comes back as the editing device had it.
            try vault.merge(contentsOf: editorPath)
            try editor.merge(contentsOf: path)
            for merged in [vault, editor] {
                let item = try merged.item(id)
                #expect(item.attributes.account == Self.account)
                #expect(item.attributes.label == "Erased label")
                #expect(item.attributes.fields == [CustomField(name: "hint", value: "erased-hint")])
                let secrets = try merged.secrets(for: id)
                #expect(secrets.password?.testString == Self.secret)
                #expect(secrets.notes?.testString == "edited notes")
            }

            // A copy that made no edit the deletion had not seen: the item stays deleted.
            let deleter = dir.appendingPathComponent("deleter.coffer").path
            try FileManager.default.copyItem(atPath: idlePath, toPath: deleter)
            let again = try Vault.open(at: deleter, password: secure("pw"), options: testOptions)
            try again.delete(id)
            let idle = try Vault.open(at: idlePath, password: secure("pw"), options: testOptions)
            try idle.merge(contentsOf: deleter)
            #expect(throws: CofferError.itemNotFound) { _ = try idle.item(id) }
            #expect(try idle.items().count == 1)
        }
    }

    @Test("A format-1 file opens, its first save or upgrade() writes format 2 and keeps the format-1 file as the backup")
    func upgradeFromVersionOne() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("old.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            let vault = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            #expect(vault.formatVersion == 1)
            #expect(try Vault.info(at: path).formatVersion == 1)
            let before = try vault.items().map { ($0.id, $0.attributes) }
            let secretsBefore = try before.map { try vault.secrets(for: $0.0).password?.testString }

            #expect(try vault.upgrade())
            #expect(vault.formatVersion == 2)
            #expect(try Vault.info(at: path).formatVersion == 2)
            #expect(try file(path + ".bak") == vector.bytes)
            #expect(try vault.upgrade() == false)

            // The same items, and the same credential opens the file (its slot converted).
            let reopened = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            let after = try reopened.items().map { ($0.id, $0.attributes) }
            #expect(after.map(\.0) == before.map(\.0))
            #expect(after.map(\.1) == before.map(\.1))
            #expect(try after.map { try reopened.secrets(for: $0.0).password?.testString } == secretsBefore)
            let header = try VaultFileV2.parse(try file(path)).header
            #expect(header.slots.allSatisfy { $0.isNewStyle })
        }
    }

    @Test("A format-1 file's first save writes format 2 too, and keeps the format-1 file as the backup")
    func firstSaveUpgrades() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("old.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            // Even a vault that keeps no backup keeps the format-1 file as one.
            var options = testOptions
            options.keepsBackup = false
            let vault = try Vault.open(at: path, credential: try vector.credential(), options: options)
            try vault.add(.genericPassword(service: "new", account: "me"), secrets: ItemSecrets(password: secure("n")))
            #expect(try Vault.info(at: path).formatVersion == 2)
            #expect(try file(path + ".bak") == vector.bytes)
            #expect(try Vault.info(at: path + ".bak").formatVersion == 1)
            let reopened = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            #expect(try reopened.password(matching: ItemQuery(service: "new")).testString == "n")
        }
    }

    @Test("rotateKey: every credential still opens; the old key opens no record written after; legacy slots are removed")
    func rotation() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, id) = try vaultWithItem(dir)
            let raw = try SecureBytes(copying: Array(repeating: 7, count: 32))
            try vault.addKeySlot(.rawKey(raw))
            let old = try file(path)
            let oldCodec = try VaultFileV2.parse(old)
            let oldKeys = try VaultFileV2.unlock(oldCodec.header, with: .password(try secure("pw"))).keys

            let rotation = try vault.rotateKey()
            #expect(rotation.removedSlots.isEmpty)
            #expect(rotation.records == 2)
            #expect(try vault.secrets(for: id).password?.testString == Self.secret)

            let rotated = try file(path)
            let codec = try VaultFileV2.parse(rotated)
            #expect(!ConstantTime.equals(codec.header.epochID, oldCodec.header.epochID))
            for record in codec.records {
                #expect(throws: FormatError.self) { try record.openOverviewList(vaultID: codec.header.vaultID, keys: oldKeys) }
            }
            // Both credentials open the new file; the old file still opens with the old key only.
            for credential in [VaultCredential.password(try secure("pw")), .rawKey(raw)] {
                let reopened = try Vault.open(at: path, credential: credential, options: testOptions)
                #expect(try reopened.secrets(for: id).password?.testString == Self.secret)
                try reopened.verifyAll()
            }
            // The key history holds the old epoch, sealed under the new key.
            let newKeys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            let history = try #require(codec.header.keyHistory).open(with: newKeys, vaultID: codec.header.vaultID)
            #expect(history.map { $0.epoch.epochID } == [oldKeys.epochID])
            // Edits after the rotation are sealed under the new key.
            try vault.update(id) { attributes, _ in attributes.comment = "after" }
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).item(id).attributes.comment == "after")
        }
    }

    @Test("rotateKey of a format-1 file: the slot that opened it is converted and kept, other format-1 slots are removed and reported")
    func rotationOfVersionOne() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-multiple-slots-password.vec" })
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("old.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            let slotsBefore = try Vault.info(at: path).slots.count
            let vault = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            let rotation = try vault.rotateKey()
            #expect(rotation.removedSlots.count == slotsBefore - 1)
            let header = try VaultFileV2.parse(try file(path)).header
            #expect(header.slots.count == 1 && header.slots.allSatisfy { $0.isNewStyle })
            let reopened = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            #expect(try reopened.items().count == (vector.entries ?? []).filter { $0.deleted != true }.count)
        }
    }

    @Test("Across a rotation (SPEC.md §17.8): the rotated vault merges an older copy without its slots; the old device, whose password still opens, moves to the new key; a copy without its slot is refused whole")
    func mergeAcrossRotation() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, _) = try vaultWithItem(dir)
            let copy = dir.appendingPathComponent("copy.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            // The old copy gains an item and a way in that the rotated vault must not take.
            let old = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
            try old.add(.genericPassword(service: "from-old-copy", account: "me"), secrets: ItemSecrets(password: secure("o")))
            try old.addKeySlot(.password(try secure("old-copy-password")))
            try vault.rotateKey()
            try vault.add(.genericPassword(service: "after-rekey", account: "me"), secrets: ItemSecrets(password: secure("a")))

            // The rotated vault merges the older copy's item (made before the rotation), and nothing of its header.
            let older = try vault.merge(contentsOf: copy)
            #expect(older.earlierKey.epoch == .older && older.added == 1 && older.slotsAdded == 0)
            #expect(try Vault.info(at: path).slots.count == 1)
            #expect(throws: CofferError.self) { try Vault.open(at: path, password: secure("old-copy-password"), options: testOptions) }
            // The old device ("pw" still opens the vault) takes the rotated file: it moves to the new key.
            let newer = try old.merge(contentsOf: path)
            #expect(newer.earlierKey.epoch == .successor)
            #expect(try VaultFileV2.parse(try file(copy)).header.epochID == VaultFileV2.parse(try file(path)).header.epochID)
            #expect(try old.items().contains { $0.attributes.service == "after-rekey" })

            // A copy whose "pw" slot was changed (a revoked password) is refused whole, both ways.
            let revoked = dir.appendingPathComponent("revoked.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: revoked)
            try Vault.open(at: revoked, password: secure("pw"), options: testOptions).changePassword(from: secure("pw"), to: secure("other"))
            let rotatedBytes = try file(path), revokedBytes = try file(revoked)
            let refused = #expect(throws: CofferError.self) { try vault.merge(contentsOf: revoked) }
            #expect(refused?.kind == .otherKeyEpoch)
            #expect(refused?.description.contains(revoked) == true)
            let refusedBytes = #expect(throws: CofferError.self) { try vault.merge(bytes: revokedBytes) }
            #expect(refusedBytes?.kind == .otherKeyEpoch)
            #expect(try file(path) == rotatedBytes && file(revoked) == revokedBytes)
        }
    }

    @Test("A format-1 copy merges into the upgraded vault, and still after a rotation (read with the earlier key); a damaged one is tampered")
    func versionOneCopyAfterRotation() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("old.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            let vault = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            #expect(try vault.upgrade())
            try vault.merge(bytes: vector.bytes)      // the same key: merges
            try vault.rotateKey()
            let before = try file(path)
            // Read with the earlier key the vault keeps (SPEC.md §17.8 case 3): it adds nothing.
            let report = try vault.merge(bytes: vector.bytes)
            #expect(report.earlierKey.epoch == .older && report.isEmpty)
            #expect(try file(path) == before)
            // A format-1 copy whose header MAC no key of this vault gives is a damaged copy.
            var tampered = vector.bytes
            let headerLength = tampered[10..<14].reversed().reduce(0) { $0 << 8 | Int($1) }
            tampered[46 + headerLength] ^= 1
            let other = #expect(throws: CofferError.self) { try vault.merge(bytes: tampered) }
            #expect(other?.kind == .tampered)
        }
    }

    @Test("Another process rotates the key while this vault is open: its next save follows the rotation (SPEC.md §17.8 case 2), nothing lost")
    func concurrentRotationFollowed() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, _) = try vaultWithItem(dir)
            let other = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try other.rotateKey()
            let rotatedEpoch = try VaultFileV2.parse(try file(path)).header.epochID
            try vault.add(.genericPassword(service: "kept", account: "other"), secrets: ItemSecrets(password: secure("x")))
            #expect(try VaultFileV2.parse(try file(path)).header.epochID == rotatedEpoch)
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.items().count == 3)
        }
    }
}

import CofferTestSupport
import CofferVault
import Foundation
import Testing

/// Issue 27, findings 4 and 5, in the library: a merge reports the key slots it added and
/// removed (``MergeReport/keySlots``), and a restore keeps the vault's key slots, whether
/// made on the open vault or by path without keys. Raw-key slots: no KDF runs.
@Suite("Vault: key-slot reports of merges and restores")
struct VaultAccessReportTests {
    private let keyA: VaultCredential, keyB: VaultCredential

    init() throws {
        keyA = .rawKey(try SecureBytes(copying: [UInt8](repeating: 0xA1, count: 32)))
        keyB = .rawKey(try SecureBytes(copying: [UInt8](repeating: 0xB2, count: 32)))
    }

    private func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    @Test("A merge reports, by kind, the slots a copy added and those it removed; merging it again reports none")
    func mergeReportsSlots() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path, other = dir.appendingPathComponent("c.coffer").path
            let vault = try Vault.create(at: path, credential: keyA, options: testOptions)
            try copy(path, other)
            let copy = try Vault.open(at: other, credential: keyA, options: testOptions)
            try copy.addKeySlot(keyB)
            var report = try vault.merge(contentsOf: other)
            #expect(report.keySlots.added == [.rawKey] && report.keySlots.removed.isEmpty)
            #expect(report.slotsAdded == 1 && !report.isEmpty)
            #expect(try Vault.info(at: path).slots.count == 2)

            try copy.removeKeySlot(keyA, rotatingKey: false)
            report = try vault.merge(contentsOf: other)
            #expect(report.keySlots.added.isEmpty && report.keySlots.removed == [.rawKey])
            #expect(report.keySlots.changed.isEmpty && report.keySlots.rotation == nil)
            #expect(try vault.merge(contentsOf: other).keySlots == .none)
        }
    }

    /// `v.coffer` opened with `keyA`, one item; a copy of the file then (`before`); key A
    /// replaced by key B without a rotation, a second item; `before` put back as the backup.
    private func vaultWithBackupUnderOldSlots(_ dir: URL) throws -> (path: String, vault: Vault) {
        let path = dir.appendingPathComponent("v.coffer").path, before = dir.appendingPathComponent("before.coffer").path
        let vault = try Vault.create(at: path, credential: keyA, options: testOptions)
        try vault.add(.genericPassword(service: "before", account: "a"))
        try copy(path, before)
        try vault.addKeySlot(keyB)
        try vault.removeKeySlot(keyA, rotatingKey: false)
        try vault.add(.genericPassword(service: "after", account: "a"))
        try copy(before, path + ".bak")
        return (path, vault)
    }

    @Test("restoreBackup() on the open vault brings back the backup's items under the vault's slots: the removed key stays removed")
    func restoreKeepsSlots() throws {
        try withTemporaryDirectory { dir in
            let (path, vault) = try vaultWithBackupUnderOldSlots(dir)
            let preview = try vault.backupChanges()
            #expect(preview.keySlots.added == [.rawKey] && preview.keySlots.removed == [.rawKey])
            #expect(preview.removed.map(\.service) == ["after"])
            try vault.restoreBackup()
            #expect(try vault.items().map(\.service) == ["before"])
            #expect(throws: CofferError.self) { try Vault.open(at: path, credential: keyA, options: testOptions) }
            let reopened = try Vault.open(at: path, credential: keyB, options: testOptions)
            #expect(try reopened.items().map(\.service) == ["before"])
            // Saves go on, and restoring again undoes the restore, still under key B alone.
            try reopened.add(.genericPassword(service: "later", account: "a"))
            #expect(try Vault.open(at: path, credential: keyB, options: testOptions).items().compactMap(\.service).sorted() == ["before", "later"])
        }
    }

    @Test("Vault.restoreBackup(at:) without keys refuses a backup under other slots and changes nothing")
    func keylessRestoreRefusesOtherSlots() throws {
        try withTemporaryDirectory { dir in
            let (path, _) = try vaultWithBackupUnderOldSlots(dir)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: CofferError.slotUnavailable) { try Vault.restoreBackup(at: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(throws: CofferError.self) { try Vault.open(at: path, credential: keyA, options: testOptions) }
        }
    }
}

/// A format-1 backup (the file an upgrading save replaced) is no way around the rule: its
/// slots are legacy slots, compared with the vault's like any other.
@Suite("Vault: restoring a format-1 backup keeps the vault's slots")
struct VaultFormatOneBackupSlotTests {
    @Test("After changePassword without a rotation on a format-1 vault, a format-1 backup is refused by both restores: the old password stays revoked")
    func formatOneBackupAfterPasswordChange() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        let old = try #require(vector.password)
        let new = VaultCredential.password(try SecureBytes(copying: "New-pw"))
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v1.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            let vault = try Vault.open(at: path, credential: try vector.credential(), options: testOptions)
            let before = try vault.items().map(\.id)
            _ = try vault.changePassword(from: try SecureBytes(copying: old), to: try SecureBytes(copying: "New-pw"), rotatingKey: false)
            // The format-1 file from before the change, put back as the backup (by hand, or by a
            // tool that keeps old versions): it has the old password's slot.
            // (A slot change leaves the backup as a link to the new file: replace, not overwrite.)
            try FileManager.default.removeItem(atPath: path + ".bak")
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path + ".bak"))

            // Without keys: refused, nothing changed.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: CofferError.slotUnavailable) { try Vault.restoreBackup(at: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)

            // With keys: refused too (a format-1 file has no vault clock to restore its items with).
            #expect(throws: CofferError.slotUnavailable) { try vault.restoreBackup() }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(throws: CofferError.self) { try Vault.open(at: path, credential: try vector.credential(), options: testOptions) }
            let reopened = try Vault.open(at: path, credential: new, options: testOptions)
            #expect(Set(try reopened.items().map(\.id)) == Set(before))
        }
    }
}

/// Restoring an undo version is an edit made on an older version (SPEC.md §17.7), as
/// restoring the backup is (issue 27, finding 11): the device takes a new replica id, so an
/// edit made after it never claims to have seen an edit the restored file lacks. Before, the
/// undo version's restore kept the id, and such an edit silently dropped what another copy held.
@Suite("Vault: restoring an undo version takes a new replica id")
struct VaultUndoVersionReplicaTests {
    @Test("Finding 11 with an undo version: restore, edit another field, merge both ways; the edit the restore took away comes back from the other copy")
    func undoVersionRestoreKeepsOtherCopysEdit() throws {
        try withTemporaryDirectory { dir in
            let key = VaultCredential.rawKey(try SecureBytes(copying: [UInt8](repeating: 0x77, count: 32)))
            var options = testOptions
            options.replicaState = .directory(dir.appendingPathComponent("state-a").path)
            let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
            let a = try Vault.create(at: pathA, credential: key, options: options)
            let id = try a.add(ItemAttributes(kind: .genericPassword, service: "mail", account: "me", tags: ["old"],
                                              fields: [CustomField(name: "f1", value: "v1")])).id
            try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
            try a.update(id) { attributes, _ in attributes.tags = ["new"] }                 // X
            let b = try Vault.open(at: pathB, credential: key, options: testOptions)
            try b.merge(contentsOf: pathA)
            try a.restoreUndoVersion(1)                                                      // back before X
            #expect(try a.item(id).attributes.tags == ["old"])
            try a.update(id) { attributes, _ in attributes.fields = [] }                     // Y, another field
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            for vault in [a, b] {
                let item = try vault.item(id)
                #expect(item.attributes.tags == ["new"], "X is kept")
                #expect(item.attributes.fields.isEmpty, "Y is kept")
            }
        }
    }
}

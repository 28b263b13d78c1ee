import CofferFormat
import CofferTestSupport
import CofferVault
import Foundation
import Testing

/// Issue 27, findings 1–3 in the library: a password change reaches every slot of the old
/// password, a key file can be required, and slot changes rotate the key by default.
@Suite("Vault: password changes, required key files and rotation on slot changes")
struct VaultRevocationTests {
    /// A vault with password "old" in a password slot, a password+key-file slot (old + k1),
    /// a password+key-file slot of another password (other + k2) and a raw-key slot.
    private func makeVault(_ dir: URL) throws -> (Vault, String, KeyFile, KeyFile, SecureBytes) {
        let path = dir.appendingPathComponent("v.coffer").path
        let k1 = try KeyFile.generate(at: dir.appendingPathComponent("k1.key").path)
        let k2 = try KeyFile.generate(at: dir.appendingPathComponent("k2.key").path)
        let raw = try SecureBytes.random(count: 32)
        let vault = try Vault.create(at: path, credential: .password(try secure("old")),
                                     additional: [.passwordAndKeyFile(try secure("old"), k1),
                                                  .passwordAndKeyFile(try secure("other"), k2), .rawKey(raw)],
                                     options: testOptions)
        try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("x")))
        return (vault, path, k1, k2, raw)
    }

    private func opens(_ path: String, _ credential: VaultCredential) -> Bool {
        (try? Vault.open(at: path, credential: credential, options: testOptions)) != nil
    }

    /// After "old" became "new" in the vault of ``makeVault(_:)``: the old password opens
    /// nothing, the new one opens both of its slots (the two-factor one with its key file),
    /// and another password's slot and the raw key are untouched, and still open it.
    private func expectChangedFromOldToNew(_ path: String, _ k1: KeyFile, _ k2: KeyFile, _ raw: SecureBytes,
                                           sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!opens(path, .password(try secure("old"))), sourceLocation: sourceLocation)
        #expect(!opens(path, .passwordAndKeyFile(try secure("old"), k1)), sourceLocation: sourceLocation)
        #expect(opens(path, .password(try secure("new"))), sourceLocation: sourceLocation)
        #expect(opens(path, .passwordAndKeyFile(try secure("new"), k1)), sourceLocation: sourceLocation)
        #expect(opens(path, .passwordAndKeyFile(try secure("other"), k2)), sourceLocation: sourceLocation)
        #expect(opens(path, .rawKey(raw)), sourceLocation: sourceLocation)
    }

    @Test("changePassword(from:to:) changes every slot the old password opens, keeps their key files and places, and rotates")
    func changesEverySlot() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, k1, k2, raw) = try makeVault(dir)
            let epochBefore = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).header.epochID
            #expect(throws: CofferError.wrongPassword) { try vault.changePassword(from: secure("nope"), to: secure("new")) }
            let change = try vault.changePassword(from: secure("old"), to: secure("new"))
            #expect(change.changed == [.password, .passwordAndKeyFile])
            #expect(change.added.isEmpty && change.removed.isEmpty)
            #expect(change.rotated && change.rotation?.records == 1)
            #expect(vault.slots == [.password, .passwordAndKeyFile, .passwordAndKeyFile, .rawKey])
            try expectChangedFromOldToNew(path, k1, k2, raw)
            let epochAfter = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).header.epochID
            #expect(epochAfter != epochBefore)
            #expect(try vault.password(matching: ItemQuery(service: "s")).testString == "x")
        }
    }

    @Test("rotatingKey: false keeps the epoch key and says so")
    func withoutRotation() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, _, _, _) = try makeVault(dir)
            let before = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).header.epochID
            let change = try vault.changePassword(from: secure("old"), to: secure("new"), rotatingKey: false)
            #expect(!change.rotated)
            #expect(try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).header.epochID == before)
            let removal = try vault.removeKeySlot(at: 3, rotatingKey: false)
            #expect(removal.removed == [.rawKey] && !removal.rotated)
            let rotating = try vault.removeKeySlot(at: 2)
            #expect(rotating.removed == [.passwordAndKeyFile] && rotating.rotated)
            #expect(try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).header.epochID != before)
        }
    }

    @Test("An opened vault changes the password it was opened with: every slot of that password, the stale one refused afterwards")
    func openedVaultChangesItsPassword() throws {
        try withTemporaryDirectory { dir in
            let (_, path, k1, k2, raw) = try makeVault(dir)
            let opened = try Vault.open(at: path, keyFile: nil, options: testOptions) { try secure("old") }
            #expect(opened.slotKind == .password)
            let change = try opened.changePassword(to: secure("new"))
            // As changePassword(from:to:) does: the password slot it opened, and the
            // two-factor slot of the same password (checked by its KDF), keeping its key file.
            #expect(change.changed == [.password, .passwordAndKeyFile] && change.rotated)
            try expectChangedFromOldToNew(path, k1, k2, raw)
            // The slot it opened is gone: the old password is checked again, and opens nothing.
            #expect(throws: CofferError.wrongPassword) { try opened.changePassword(to: secure("newer")) }
            #expect(opens(path, .password(try secure("new"))))
        }
    }

    @Test("An opened vault's own password change checks every other slot, and needs a password")
    func openedVaultChecksOtherSlots() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let key = try KeyFile.generate(at: dir.appendingPathComponent("k.key").path)
            _ = try Vault.create(at: path, credential: .password(try secure("a")),
                                 additional: [.password(try secure("b")), .keyFile(key)], options: testOptions)
            // "b" opens the second password slot; the first, of "a", is checked and left.
            let opened = try Vault.open(at: path, keyFile: nil, options: testOptions) { try secure("b") }
            let change = try opened.changePassword(to: secure("c"))
            #expect(change.changed == [.password])
            #expect(opens(path, .password(try secure("a"))))
            #expect(opens(path, .password(try secure("c"))))
            #expect(!opens(path, .password(try secure("b"))))
            // A key file alone opened it: no password to change.
            let byFile = try Vault.open(at: path, keyFile: key, options: testOptions) { try secure("unused") }
            #expect(byFile.slotKind == .keyFile && byFile.password == nil)
            #expect(throws: CofferError.self) { try byFile.changePassword(to: secure("d")) }
        }
    }

    @Test("requireKeyFile adds the two-factor slot and removes every password-only slot in one rotating save")
    func requireKeyFile() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, credential: .password(try secure("pw")),
                                         additional: [.password(try secure("second"))], options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: secure("x")))
            let file = try KeyFile.generate(at: dir.appendingPathComponent("k.key").path)
            let generation = vault.generation
            #expect(throws: CofferError.wrongPassword) { try vault.requireKeyFile(file, password: secure("typo")) }
            #expect(vault.generation == generation)
            let change = try vault.requireKeyFile(file, password: secure("pw"))
            #expect(change.added == [.passwordAndKeyFile] && change.removed == [.password, .password] && change.rotated)
            #expect(vault.generation == generation + 1, "one save")
            #expect(!opens(path, .password(try secure("pw"))))
            #expect(!opens(path, .password(try secure("second"))))
            #expect(opens(path, .passwordAndKeyFile(try secure("pw"), file)))
            let info = try Vault.info(at: path)
            #expect(info.keyFileRequired && info.opensWith == [.passwordAndKeyFile])
        }
    }
}

import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Restores are edits (issue 27, finding 11; SPEC.md §17.7): after a restore, whoever saves
/// on this device next (the app that restored, another app on the same file, after a restore
/// by a process without device state) never stamps an edit that claims to have seen one the
/// restored file lacks, so the edit another copy holds survives the merge.
@Suite("Vault: restores are edits")
struct VaultRestoreAsEditTests {
    static let key = VaultCredential.rawKey(try! SecureBytes(copying: [UInt8](repeating: 9, count: 32)))

    static func options(_ state: String?) -> VaultOptions {
        VaultOptions(kdf: testKDF, keepsBackup: true, lockTimeout: .seconds(5), replicaState: state.map { .directory($0) } ?? .none)
    }

    /// Device A's file with item "mail" (tags ["old"]), a copy B, and A's edit X (tags ["new"])
    /// merged into B. Returns A's path, B's path, A's state folder, the item, and a second
    /// app's vault on A's file opened before X (its snapshot lacks X).
    func setUp(_ dir: URL) throws -> (String, String, String, ItemID, Vault) {
        let pathA = dir.appendingPathComponent("a/vault.coffer").path, pathB = dir.appendingPathComponent("b/vault.coffer").path
        try FileManager.default.createDirectory(atPath: FileChecks.folder(of: pathA), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: FileChecks.folder(of: pathB), withIntermediateDirectories: true)
        let state = dir.appendingPathComponent("state-a").path
        let a = try Vault.create(at: pathA, credential: Self.key, options: Self.options(state))
        var attributes = ItemAttributes.genericPassword(service: "mail", account: "me")
        attributes.tags = ["old"]
        attributes.fields = [CustomField(name: "f1", value: "v1")]
        let id = try a.add(attributes).id
        try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
        let early = try Vault.open(at: pathA, credential: Self.key, options: Self.options(state))
        try a.update(id) { attributes, _ in attributes.tags = ["new"] }                        // X
        try Vault.open(at: pathB, credential: Self.key, options: Self.options(dir.appendingPathComponent("state-b").path))
            .merge(contentsOf: pathA)
        return (pathA, pathB, state, id, early)
    }

    /// X (tags) and Y (f1 removed) are both in A after A merges B.
    func expectBothEdits(_ pathA: String, _ pathB: String, state: String, id: ItemID) throws {
        let a = try Vault.open(at: pathA, credential: Self.key, options: Self.options(state))
        try a.merge(contentsOf: pathB)
        let item = try a.item(id)
        #expect(item.tags == ["new"], "X was lost: \(item.tags)")
        #expect(!item.fields.contains { $0.name == "f1" }, "Y was lost")
    }

    @Test("The app that restored edits next")
    func sameApp() throws {
        try withTemporaryDirectory { dir in
            let (pathA, pathB, state, id, _) = try setUp(dir)
            let a = try Vault.open(at: pathA, credential: Self.key, options: Self.options(state))
            try a.restoreBackup()
            try a.update(id) { attributes, _ in attributes.fields = [] }                         // Y
            try expectBothEdits(pathA, pathB, state: state, id: id)
        }
    }

    /// The other app still held the device's replica id; its snapshot, older than X, joined
    /// with the restored file, then stamped on as if it had seen X.
    @Test("Another app on the device, opened before X and the restore, edits next")
    func otherApp() throws {
        try withTemporaryDirectory { dir in
            let (pathA, pathB, state, id, other) = try setUp(dir)
            let restoring = try Vault.open(at: pathA, credential: Self.key, options: Self.options(state))
            try restoring.restoreBackup()
            try other.update(id) { attributes, _ in attributes.fields = [] }                     // Y
            try expectBothEdits(pathA, pathB, state: state, id: id)
        }
    }

    /// A process without device state restored the file; the device's app, whose snapshot
    /// predates X, edits next: the device's state folder knows its id's latest edit.
    @Test("A process without device state restores, the device's app edits next")
    func statelessRestore() throws {
        try withTemporaryDirectory { dir in
            let (pathA, pathB, state, id, app) = try setUp(dir)
            try Vault.open(at: pathA, credential: Self.key, options: Self.options(nil)).restoreBackup()
            try app.update(id) { attributes, _ in attributes.fields = [] }                       // Y
            try expectBothEdits(pathA, pathB, state: state, id: id)
        }
    }
}

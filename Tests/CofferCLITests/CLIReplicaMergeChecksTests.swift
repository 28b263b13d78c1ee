import CofferTestSupport
import Foundation
import Testing

/// What `merge` and `sync` save and report (issue 27, findings 9, 10 and 13): a merge that
/// changes nothing saves nothing, a damaged copy is never reported merged nor put away, and
/// a copy that heals a rolled-back vault lets the others merge too.
@Suite("coffer merge and sync: checks and what is saved")
struct CLIReplicaMergeChecksTests {
    static func generation(_ device: Device, in folder: URL) throws -> Int {
        try #require(try device.ok(["info", "vault.coffer", "--json"], input: "", in: folder).jsonObject()["generation"] as? Int)
    }

    @Test("Merging a copy that holds nothing new saves nothing: same generation, the backup untouched")
    func noOpMerge() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            let folder = root.appendingPathComponent("V")
            try CLIReplicaTests.makeVault(in: folder, services: ["first"], device: laptop)
            let older = root.appendingPathComponent("older.coffer")
            try FileManager.default.copyItem(at: folder.appendingPathComponent("vault.coffer"), to: older)
            try laptop.ok(["add", "vault.coffer", "--service", "later", "--account", "me"], input: "pw\nlater\n", in: folder)
            let generation = try Self.generation(laptop, in: folder)
            let file = try bytes(folder.appendingPathComponent("vault.coffer"))
            let backup = try bytes(folder.appendingPathComponent("vault.coffer.bak"))

            let result = try laptop.ok(["merge", "vault.coffer", older.path, "--json"], in: folder)
            #expect(try result.jsonObject()["merged"] as? Int == 1)
            #expect(try Self.generation(laptop, in: folder) == generation)
            #expect(try bytes(folder.appendingPathComponent("vault.coffer")) == file)
            #expect(try bytes(folder.appendingPathComponent("vault.coffer.bak")) == backup, "the one level of undo was replaced")
            // `restore` still undoes the last real save.
            try laptop.ok(["restore", "vault.coffer", "--yes"], in: folder)
            #expect(Set(try itemsByName(try laptop.ok(["list", "vault.coffer", "--json"], in: folder)).keys) == ["first"])
        }
    }

    /// A conflict copy that is the vault itself with one byte of a record changed: every
    /// record is one the vault holds (same digest in the copy's manifest), so the merge
    /// never looked at it, reported the copy merged and moved it away; `coffer check` calls
    /// the same file tampered.
    @Test("sync leaves a copy damaged in a record the vault holds, reports it (65), and never calls it merged")
    func damagedCopyStays() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            let sync = root.appendingPathComponent("Sync")
            try CLIReplicaTests.makeVault(in: sync, services: ["first", "second"], device: laptop)
            var damaged = [UInt8](try bytes(sync.appendingPathComponent("vault.coffer")))
            damaged[damaged.count - 1] ^= 0x01   // the last record's last byte
            let copy = sync.appendingPathComponent(CLIReplicaTests.syncthingName)
            try Data(damaged).write(to: copy)
            #expect(try laptop.run(["check", copy.path], in: sync).status == 65)
            let generation = try Self.generation(laptop, in: sync)

            let result = try laptop.run(["sync", "vault.coffer", "--json"], in: sync)
            #expect(result.status == 65, "\(result.err)")
            let file = try #require((try result.jsonObject()["files"] as? [[String: Any]])?.first)
            #expect(file["merged"] as? Bool == false)
            #expect(file["error"] as? String == "tampered")
            #expect(file["removed"] as? Bool == false)
            #expect(file["movedTo"] is NSNull)
            #expect(!result.err.contains("merged \(copy.path)"), "\(result.err)")
            #expect(try bytes(copy) == Data(damaged))
            #expect(try Self.generation(laptop, in: sync) == generation)
        }
    }

    /// Issue 27, finding 13: a merge with a copy that held every edit still exited 76. The
    /// vault was rolled back; the first copy named lacked the newer version, so its merge was
    /// refused (a save would have hidden the rollback), and the copy that healed the vault
    /// came second: the first was left unmerged and the command exited 76.
    @Test("A rolled-back vault: a copy refused before another copy heals it merges after, and the command exits 0")
    func healingCopyLetsOthersMerge() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root), phone = Device("phone", root: root)
            let folder = root.appendingPathComponent("V")
            try CLIReplicaTests.makeVault(in: folder, services: ["first"], device: laptop)
            let vault = folder.appendingPathComponent("vault.coffer")
            let older = root.appendingPathComponent("older.coffer")
            try FileManager.default.copyItem(at: vault, to: older)
            try laptop.ok(["add", "vault.coffer", "--service", "later", "--account", "me"], input: "pw\nlater\n", in: folder)
            let newer = root.appendingPathComponent("newer.coffer")
            try FileManager.default.copyItem(at: vault, to: newer)
            // Another device's copy, made from the older version: it lacks "later".
            let phoneFolder = root.appendingPathComponent("P")
            try FileManager.default.createDirectory(at: phoneFolder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: older, to: phoneFolder.appendingPathComponent("vault.coffer"))
            try phone.ok(["add", "vault.coffer", "--service", "side", "--account", "me"], input: "pw\nside\n", in: phoneFolder)
            // A sync tool puts the older file back (a new file renamed over the vault).
            let staged = root.appendingPathComponent("staged.coffer")
            try FileManager.default.copyItem(at: older, to: staged)
            #expect(rename(staged.path, vault.path) == 0)

            let result = try laptop.run(["merge", "vault.coffer", phoneFolder.appendingPathComponent("vault.coffer").path, newer.path, "--json"],
                                        in: folder)
            #expect(result.status == 0, "\(result.err)")
            #expect(try result.jsonObject()["merged"] as? Int == 2)
            let after = try laptop.ok(["list", "vault.coffer", "--json"], in: folder)
            #expect(Set(try itemsByName(after).keys) == ["first", "later", "side"])
            #expect(!after.err.contains("warning"), "\(after.err)")
        }
    }
}

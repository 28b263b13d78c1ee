import CofferTestSupport
import Foundation
import Testing

/// `coffer rekey` and `coffer upgrade` run as real processes: after a rekey an old copy and
/// its old password read nothing saved later (its holder's merge is refused with one clear
/// message), while `merge`, `sync` and `merge-driver` into the rekeyed vault read the old
/// copy with the earlier key and take none of its key slots (SPEC.md §17.8).
@Suite("coffer rekey and upgrade")
struct CLIRekeyUpgradeTests {
    @Test("rekey: an old copy and its old password read nothing saved after; the rekeyed vault merges the old copy (nothing new, no slot) by merge and sync")
    func rekeyRevokesOldCopies() throws {
        try withTemporaryDirectory { root in
            let device = Device("a", root: root)
            try CLIReplicaTests.makeVault(in: root, services: ["before"], device: device)
            let vault = root.appendingPathComponent("vault.coffer")
            let old = root.appendingPathComponent("old.coffer")
            try FileManager.default.copyItem(at: vault, to: old)

            // The password may be known: change it, then rekey, then save something new.
            try device.ok(["passwd", "vault.coffer"], input: "pw\nnew-pw\n", in: root)
            let rekey = try device.ok(["rekey", "vault.coffer"], input: "new-pw\n", in: root)
            #expect(rekey.err.contains("rekeyed vault.coffer: 1 entry sealed under a new key"), "\(rekey.err)")
            try device.ok(["add", "vault.coffer", "--service", "after", "--account", "me"], input: "new-pw\nafter-secret\n", in: root)
            #expect(try device.ok(["get", "vault.coffer", "--service", "before"], input: "new-pw\n", in: root).out == "before-0\n")
            #expect(try device.ok(["get", "vault.coffer", "--service", "after"], input: "new-pw\n", in: root).out == "after-secret\n")
            let vaultBytes = try bytes(vault), oldBytes = try bytes(old)

            // The old password opens the old copy only, and the old copy takes nothing from the
            // rekeyed file (without the rekey, this merge would have brought "after" in).
            let wrong = try device.run(["get", "vault.coffer", "--service", "after"], input: "pw\n", in: root)
            #expect(wrong.status == 77, "\(wrong.err)")
            let pull = try device.run(["merge", "old.coffer", "vault.coffer"], input: "pw\n", in: root)
            #expect(pull.status == 65, "\(pull.err)")
            #expect(pull.err.contains("sealed under another vault key"), "\(pull.err)")
            #expect(pull.err.contains("rekeyed after this vault last read it"), "\(pull.err)")
            #expect(!pull.err.contains("after-secret") && !pull.out.contains("after-secret"))
            let oldItems = try itemsByName(try device.ok(["list", "old.coffer", "--json"], input: "pw\n", in: root))
            #expect(Set(oldItems.keys) == ["before"])

            // The rekeyed vault reads the old copy with the earlier key it keeps, named as a copy
            // or found as a conflict copy: it holds nothing new, and none of its slots enter.
            let push = try device.run(["merge", "vault.coffer", "old.coffer"], input: "new-pw\n", in: root)
            #expect(push.status == 0, "\(push.err)")
            #expect(push.err.contains("old.coffer is under an earlier key: 0 items from an earlier key merged, none of its key slots"), "\(push.err)")
            let conflict = root.appendingPathComponent("vault.sync-conflict-20260101-120000-ABCDEFG.coffer")
            try FileManager.default.copyItem(at: old, to: conflict)
            let sync = try device.run(["sync", "vault.coffer"], input: "new-pw\n", in: root)
            #expect(sync.status == 0, "\(sync.err)")
            #expect(sync.err.contains("under an earlier key"), "\(sync.err)")
            #expect(!FileManager.default.fileExists(atPath: conflict.path), "a merged copy is put away")

            #expect(try bytes(vault) == vaultBytes, "a merge that adds nothing writes nothing")
            #expect(try bytes(old) == oldBytes)
            #expect(try device.run(["get", "vault.coffer", "--service", "before"], input: "pw\n", in: root).status == 77)
            let info = try device.ok(["info", "vault.coffer", "--json"], in: root).jsonObject()
            #expect((info["slots"] as? [Any])?.count == 1)
        }
    }

    @Test("merge-driver merges a side sealed before a rekey (its edit from before the rekey arrives, OURS keeps its key)")
    func mergeDriverAcrossRekey() throws {
        try withTemporaryDirectory { root in
            let device = Device("a", root: root)
            let keyFile = root.appendingPathComponent("vault.key")
            try device.ok(["init", "ours.coffer", "--key-file", keyFile.path, "--no-password"] + fastKDF, input: "", in: root)
            try FileManager.default.copyItem(at: root.appendingPathComponent("ours.coffer"), to: root.appendingPathComponent("theirs.coffer"))
            try device.ok(["add", "theirs.coffer", "--key-file", keyFile.path, "--service", "theirs", "--account", "me"], input: "t-secret\n", in: root)
            try device.ok(["rekey", "ours.coffer", "--key-file", keyFile.path], input: "", in: root)
            let ours = root.appendingPathComponent("ours.coffer")
            try? FileManager.default.removeItem(atPath: ours.path + ".lock")

            let result = try device.run(["merge-driver", "--key-file", keyFile.path, "base", "ours.coffer", "theirs.coffer", "vault.coffer"],
                                        input: "", in: root)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("theirs.coffer is under an earlier key: 1 item from an earlier key merged"), "\(result.err)")
            #expect(try device.ok(["get", "ours.coffer", "--key-file", keyFile.path, "--service", "theirs"], input: "", in: root).out == "t-secret\n")

        }
    }

    @Test("upgrade writes a format-1 vault as format 2, keeps the format-1 file as VAULT.bak, and says so; a second run changes nothing")
    func upgrade() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        let password = try #require(vector.password)
        try withTemporaryDirectory { root in
            let device = Device("a", root: root)
            let vault = root.appendingPathComponent("vault.coffer")
            try Data(vector.bytes).write(to: vault)
            let listBefore = try itemsByName(try device.ok(["list", "vault.coffer", "--json"], input: "\(password)\n", in: root))
            #expect(try device.ok(["info", "vault.coffer", "--json"], in: root).jsonObject()["formatVersion"] as? Int == 1)

            let first = try device.ok(["upgrade", "vault.coffer"], input: "\(password)\n", in: root)
            #expect(first.err.contains("upgraded vault.coffer to format 2 (the format-1 file is vault.coffer.bak)"), "\(first.err)")
            #expect(try device.ok(["info", "vault.coffer", "--json"], in: root).jsonObject()["formatVersion"] as? Int == 2)
            #expect(try bytes(root.appendingPathComponent("vault.coffer.bak")) == Data(vector.bytes))
            let listAfter = try itemsByName(try device.ok(["list", "vault.coffer", "--json"], input: "\(password)\n", in: root))
            #expect(Set(listAfter.keys) == Set(listBefore.keys))

            let upgraded = try bytes(vault)
            let second = try device.ok(["upgrade", "vault.coffer"], input: "\(password)\n", in: root)
            #expect(second.err.contains("vault.coffer is format 2 already"), "\(second.err)")
            #expect(try bytes(vault) == upgraded)
        }
    }

    @Test("restore of a format-1 backup made before passwd --no-rekey is refused: the new password keeps working, the old one does not")
    func restoreFormatOneBackupKeepsCurrentSlots() throws {
        let vector = try #require(try VectorFile.loadAll().first { $0.name == "success-items.vec" })
        let password = try #require(vector.password)
        try withTemporaryDirectory { root in
            let device = Device("a", root: root)
            let vault = root.appendingPathComponent("vault.coffer")
            try Data(vector.bytes).write(to: vault)
            let before = try itemsByName(try device.ok(["list", "vault.coffer", "--json"], input: "\(password)\n", in: root))
            try device.ok(["passwd", "vault.coffer", "--no-rekey"], input: "\(password)\nNew-pw\n", in: root)
            // The format-1 file from before the change, put back as the backup (by hand, or by
            // a tool that keeps old versions): it has the old password's slot.
            // (A slot change leaves the backup as a link to the new file: replace, not overwrite.)
            try FileManager.default.removeItem(at: root.appendingPathComponent("vault.coffer.bak"))
            try Data(vector.bytes).write(to: root.appendingPathComponent("vault.coffer.bak"))

            let vaultBytes = try bytes(vault)
            let restore = try device.run(["restore", "vault.coffer", "--yes"], input: "New-pw\n", in: root)
            #expect(restore.status != 0 && restore.err.contains("format-1 file with other key slots"), "\(restore.err)")
            #expect(try bytes(vault) == vaultBytes)
            let after = try itemsByName(try device.ok(["list", "vault.coffer", "--json"], input: "New-pw\n", in: root))
            #expect(Set(after.keys) == Set(before.keys))
            let old = try device.run(["list", "vault.coffer"], input: "\(password)\n", in: root)
            #expect(old.status == 77, "the revoked password opens the restored vault: \(old.err)")
        }
    }
}

import CofferTestSupport
import Foundation
import Testing

/// Issue 27, findings 4 and 5, run as real processes with the stock CLI: `merge`, `sync` and
/// `merge-driver` say which key slots a merge added or removed (by kind, in text and JSON;
/// a copy under an earlier key adds none and says so), and `restore` never brings back a
/// revoked credential (its preview and confirmation say that key slots are not restored).
@Suite("coffer merge, sync, merge-driver, restore: key-slot reports")
struct CLIAccessReportTests {
    private let conflictName = "v.sync-conflict-20260301-101500-ABCDEFG.coffer"

    private func get(_ device: Device, _ service: String, _ password: String, in dir: URL) throws -> CLIResult {
        try device.run(["get", "v.coffer", "--service", service, "--no-cache"], input: "\(password)\n", in: dir)
    }

    private func copy(_ from: String, _ to: String, in dir: URL) throws {
        let target = dir.appendingPathComponent(to)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(at: dir.appendingPathComponent(from), to: target)
    }

    private func files(_ json: [String: Any]) -> [[String: Any]] { json["files"] as? [[String: Any]] ?? [] }

    /// `v.coffer` with password "Old" and the item "before"; a copy of it then; `passwd`
    /// (Old → New, with `passwdArguments`); the copy put back as `v.coffer.bak`: a backup
    /// made before the password change.
    private func backupMadeBeforePasswd(_ device: Device, _ passwdArguments: [String], in dir: URL) throws {
        try device.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
        try device.ok(["add", "v.coffer", "--service", "before"], input: "Old\nbefore-secret\n", in: dir)
        try copy("v.coffer", "made-before.coffer", in: dir)
        try device.ok(["passwd", "v.coffer"] + passwdArguments, input: "Old\nNew\n", in: dir)
        if passwdArguments.isEmpty { return try copy("made-before.coffer", "v.coffer.bak", in: dir) }
        try device.ok(["add", "v.coffer", "--service", "after"], input: "New\nafter-secret\n", in: dir)
        try copy("made-before.coffer", "v.coffer.bak", in: dir)
    }

    @Test("Finding 4, the issue's sequence: a revoked person's old copy, given a password with passwd and dropped as a conflict copy, adds no slot (its items merge under the earlier key); sync says so in text and JSON")
    func revokedConflictCopyAddsNoSlot() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), revoked = Device("revoked", root: dir)
            try owner.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
            try owner.ok(["add", "v.coffer", "--service", "before"], input: "Old\nbefore-secret\n", in: dir)
            try copy("v.coffer", "kept.coffer", in: dir)
            try owner.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            try owner.ok(["add", "v.coffer", "--service", "after"], input: "New\nafter-secret\n", in: dir)

            try revoked.ok(["passwd", "kept.coffer", "--no-rekey"], input: "Old\nmine\n", in: dir)
            try copy("kept.coffer", conflictName, in: dir)
            let sync = try owner.run(["sync", "v.coffer", "--json"], input: "New\n", in: dir)
            // The copy is under the key before the owner's passwd (SPEC.md §17.8 case 3): its
            // items merge (it has nothing new), and nothing of its header enters.
            #expect(sync.status == 0, "\(sync.err)")
            #expect(sync.err.contains("key slots: none added or removed"), "\(sync.err)")
            #expect(!sync.err.contains("warning"), "\(sync.err)")
            let json = try sync.jsonObject()
            #expect(json["slotsAdded"] as? [String] == [] && json["slotsRemoved"] as? [String] == [])
            let file = try #require(files(json).first)
            #expect(file["merged"] as? Bool == true)
            #expect(file["slotsAdded"] as? [String] == [] && file["slotsRemoved"] as? [String] == [])
            #expect((file["earlierKey"] as? [String: Any])?["epoch"] as? String == "older")
            // Its password opens nothing in the vault.
            #expect(try get(owner, "after", "mine", in: dir).status == 77)
            #expect(try get(owner, "after", "New", in: dir).out == "after-secret\n")
            let info = try owner.ok(["info", "v.coffer", "--json"], in: dir).jsonObject()
            #expect((info["slots"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("Finding 4: a same-epoch conflict copy that changed its password (a slot removed, one added) is reported by sync in text and JSON")
    func syncReportsSlotChanges() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), other = Device("other", root: dir)
            try owner.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
            try owner.ok(["add", "v.coffer", "--service", "s"], input: "Old\nsecret\n", in: dir)
            try copy("v.coffer", "c.coffer", in: dir)
            try other.ok(["passwd", "c.coffer", "--no-rekey"], input: "Old\nTheirs\n", in: dir)
            try copy("c.coffer", conflictName, in: dir)

            let sync = try owner.ok(["sync", "v.coffer", "--json"], input: "Old\n", in: dir)
            #expect(sync.err.contains("key slots added: 1 password slot; removed: 1 password slot"), "\(sync.err)")
            #expect(sync.err.contains("\(conflictName) added 1 password slot to v.coffer: whoever holds its credential can open the vault now"), "\(sync.err)")
            let json = try sync.jsonObject()
            #expect(json["slotsAdded"] as? [String] == ["password"])
            #expect(json["slotsRemoved"] as? [String] == ["password"])
            let file = try #require(files(json).first)
            #expect(file["merged"] as? Bool == true)
            #expect(file["slotsAdded"] as? [String] == ["password"])
            #expect(file["slotsRemoved"] as? [String] == ["password"])
            // What the report says is what happened: the copy's password opens the vault now.
            #expect(try get(owner, "s", "Theirs", in: dir).out == "secret\n")
            #expect(try get(owner, "s", "Old", in: dir).status == 77)
        }
    }

    @Test("Finding 4: merge reports an added key-file slot in text and JSON; a merge that changes no slot says none")
    func mergeReportsAddedSlot() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), other = Device("other", root: dir)
            try owner.ok(["init", "v.coffer"] + fastKDF, input: "pw\n", in: dir)
            try copy("v.coffer", "c.coffer", in: dir)
            try other.ok(["add-keyfile", "c.coffer", "k.key", "--alone"], input: "pw\n", in: dir)
            try other.ok(["add", "c.coffer", "--service", "s"], input: "pw\nsecret\n", in: dir)

            let merge = try owner.ok(["merge", "v.coffer", "c.coffer", "--json"], input: "pw\n", in: dir)
            #expect(merge.err.contains("key slots added: 1 key-file slot; removed: none"), "\(merge.err)")
            #expect(merge.err.contains("warning: merging c.coffer added 1 key-file slot"), "\(merge.err)")
            let json = try merge.jsonObject()
            #expect(json["slotsAdded"] as? [String] == ["key-file"])
            #expect(files(json).first?["slotsAdded"] as? [String] == ["key-file"])
            #expect(try owner.run(["get", "v.coffer", "--service", "s", "--no-cache", "--key-file", "k.key"], input: "", in: dir).out == "secret\n")

            let again = try owner.ok(["merge", "v.coffer", "c.coffer", "--json"], input: "pw\n", in: dir)
            #expect(again.err.contains("key slots: none added or removed"), "\(again.err)")
            #expect(!again.err.contains("warning"), "\(again.err)")
            #expect(try again.jsonObject()["slotsAdded"] as? [String] == [])
        }
    }

    @Test("Finding 4: merge-driver says which key slots THEIRS added")
    func mergeDriverReportsAddedSlot() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try device.ok(["init", "ours.coffer"] + fastKDF, input: "pw\n", in: dir)
            try device.ok(["add-keyfile", "ours.coffer", "k.key", "--alone"], input: "pw\n", in: dir)
            try copy("ours.coffer", "theirs.coffer", in: dir)
            try device.ok(["add-keyfile", "theirs.coffer", "k2.key", "--alone"], input: "pw\n", in: dir)
            let keyFile = dir.appendingPathComponent("k.key").path
            let driver = try device.ok(["merge-driver", "--key-file", keyFile, "base", "ours.coffer", "theirs.coffer", "vault.coffer"],
                                       input: "", in: dir)
            #expect(driver.err.contains("key slots added: 1 key-file slot; removed: none"), "\(driver.err)")
            #expect(driver.err.contains("warning: merging theirs.coffer added 1 key-file slot to vault.coffer"), "\(driver.err)")
        }
    }

    @Test("Finding 5: restoring a backup made before passwd --no-rekey keeps the current password and not the old one; dry-run and confirmation say key slots are not restored")
    func restoreKeepsCurrentSlots() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try backupMadeBeforePasswd(device, ["--no-rekey"], in: dir)

            let preview = try device.ok(["restore", "v.coffer", "--dry-run"], input: "New\n", in: dir)
            #expect(preview.out.contains("remove  after"), "\(preview.out)")
            #expect(preview.err.contains("key slots are not restored: it has 1 password slot the vault does not (not brought back) "
                                         + "and lacks 1 password slot the vault has (kept)"), "\(preview.err)")
            let restore = try device.ok(["restore", "v.coffer", "--yes"], input: "New\n", in: dir)
            #expect(restore.err.contains("key slots are not restored: the backup has 1 password slot"), "\(restore.err)")

            // The items are the backup's; the passwords are the vault's.
            #expect(try get(device, "before", "New", in: dir).out == "before-secret\n")
            #expect(try get(device, "after", "New", in: dir).status != 0)
            #expect(try get(device, "before", "Old", in: dir).status == 77)
            // Restoring again undoes it, and still with the current password only.
            try device.ok(["restore", "v.coffer", "--yes"], input: "New\n", in: dir)
            #expect(try get(device, "after", "New", in: dir).out == "after-secret\n")
            #expect(try get(device, "after", "Old", in: dir).status == 77)
            // A backup with the vault's own slots says so.
            let same = try device.ok(["restore", "v.coffer", "--dry-run"], input: "New\n", in: dir)
            #expect(same.err.contains("key slots: it has the vault's; key slots are not restored"), "\(same.err)")
        }
    }

    @Test("Finding 5: a backup made before a rotating passwd is refused by restore and its dry-run (exit 65); the current password keeps working, the old one fails")
    func restoreRefusesBackupUnderEarlierKey() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try backupMadeBeforePasswd(device, [], in: dir)
            let vaultBytes = try bytes(dir.appendingPathComponent("v.coffer"))

            for arguments in [["--dry-run"], ["--yes"]] {
                let restore = try device.run(["restore", "v.coffer"] + arguments, input: "New\n", in: dir)
                #expect(restore.status == 65, "\(restore.err)")
                #expect(restore.err.contains("nothing was restored (a restore never brings back an earlier key or its key slots"), "\(restore.err)")
            }
            #expect(try bytes(dir.appendingPathComponent("v.coffer")) == vaultBytes)
            #expect(try get(device, "before", "New", in: dir).out == "before-secret\n")
            #expect(try get(device, "before", "Old", in: dir).status == 77)
        }
    }

    @Test("history --clear erases the password history, and a sync-conflict copy made before it, edited since, brings none of it back")
    func historyClear() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), other = Device("other", root: dir)
            try owner.ok(["init", "v.coffer"] + fastKDF, input: "pw\n", in: dir)
            try owner.ok(["add", "v.coffer", "--service", "s"], input: "pw\nfirst\n", in: dir)
            try owner.ok(["edit", "v.coffer", "--service", "s", "--password-stdin"], input: "pw\nsecond\n", in: dir)
            try owner.ok(["edit", "v.coffer", "--service", "s", "--password-stdin"], input: "pw\nthird\n", in: dir)
            try copy("v.coffer", "c.coffer", in: dir)
            func earlier() throws -> [String] {
                let json = try owner.ok(["history", "v.coffer", "--service", "s", "--json", "--show-passwords"], in: dir).jsonObject()
                return (json["passwordHistory"] as? [[String: Any]] ?? []).compactMap { $0["password"] as? String }
            }
            #expect(try earlier() == ["second", "first"])

            let clear = try owner.ok(["history", "v.coffer", "--service", "s", "--clear", "--json"], in: dir)
            #expect(clear.err.contains("cleared the password history of"), "\(clear.err)")
            #expect(clear.err.contains("2 entries erased"), "\(clear.err)")
            #expect(try clear.jsonObject()["cleared"] as? Int == 2)
            #expect(try earlier().isEmpty)
            #expect(try owner.ok(["history", "v.coffer", "--service", "s"], in: dir).out.contains("password history: none"))

            // The copy made before, edited since (its edit confirms its history), merged back.
            try other.ok(["edit", "c.coffer", "--service", "s", "--comment", "from the copy"], in: dir)
            try copy("c.coffer", conflictName, in: dir)
            try owner.ok(["sync", "v.coffer"], in: dir)
            #expect(try earlier().isEmpty)
            #expect(try get(owner, "s", "pw", in: dir).out == "third\n")
            // And the copy, merging the vault, loses them too.
            try other.ok(["merge", "c.coffer", "v.coffer"], in: dir)
            let copyHistory = try other.ok(["history", "c.coffer", "--service", "s", "--json", "--show-passwords"], in: dir).jsonObject()
            #expect((copyHistory["passwordHistory"] as? [[String: Any]])?.isEmpty == true)

            let both = try owner.run(["history", "v.coffer", "--service", "s", "--clear", "--show-passwords"], in: dir)
            #expect(both.status == 64, "\(both.err)")
        }
    }
}

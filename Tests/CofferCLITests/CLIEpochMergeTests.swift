import CofferTestSupport
import Foundation
import Testing

/// Issue 27, "Merging across rotations", with the stock CLI as real processes (SPEC.md
/// §17.8): after `passwd`, an offline device's honest edits still arrive once its owner
/// merges with the current password; edits the old copy made after the change are held
/// (reported by name, never by value) until `--accept-old-key`; `sync` leaves such a copy
/// in place; `merge-driver` refuses a clean merge without them.
@Suite("coffer merge, sync and merge-driver across a password change")
struct CLIEpochMergeTests {
    /// `v.coffer` (password "Old", item "shared") and the laptop's copy `laptop.coffer`.
    private func setUp(_ device: Device, in dir: URL, keyFile: Bool = false) throws {
        try device.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
        try device.ok(["add", "v.coffer", "--service", "shared"], input: "Old\nshared-secret\n", in: dir)
        if keyFile { try device.ok(["add-keyfile", "v.coffer", "k.key", "--alone"], input: "Old\n", in: dir) }
        try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: dir.appendingPathComponent("laptop.coffer"))
    }

    @Test("merge after passwd: honest edits arrive, late ones are held by name (text and --json), --accept-old-key takes them; the old password never opens the result")
    func mergeHoldsAndAccepts() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), laptop = Device("laptop", root: dir)
            try setUp(owner, in: dir)
            try laptop.ok(["add", "laptop.coffer", "--service", "honest"], input: "Old\nhonest-secret\n", in: dir)
            try owner.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            Thread.sleep(forTimeInterval: 0.01)
            try laptop.ok(["add", "laptop.coffer", "--service", "late"], input: "Old\nlate-secret-9f3\n", in: dir)

            let merge = try owner.ok(["merge", "v.coffer", "laptop.coffer", "--json"], input: "New\n", in: dir)
            #expect(merge.err.contains("laptop.coffer is under an earlier key: 1 item from an earlier key merged, none of its key slots"), "\(merge.err)")
            #expect(merge.err.contains("held 1 item edited under the earlier key after the key was changed: late"), "\(merge.err)")
            #expect(merge.err.contains("merged 0 of 1 file into v.coffer") && merge.err.contains("1 file with held edits (--accept-old-key)"), "\(merge.err)")
            #expect(!merge.out.contains("late-secret-9f3") && !merge.err.contains("late-secret-9f3"))
            let json = try merge.jsonObject()
            let file = try #require((json["files"] as? [[String: Any]])?.first)
            #expect(file["merged"] as? Bool == false)
            let earlier = try #require(file["earlierKey"] as? [String: Any])
            #expect(earlier["epoch"] as? String == "older" && earlier["merged"] as? Int == 1)
            #expect((earlier["held"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["late"])
            #expect(Set(try itemsByName(try owner.ok(["list", "v.coffer", "--json"], input: "New\n", in: dir)).keys) == ["shared", "honest"])

            let accept = try owner.ok(["merge", "v.coffer", "laptop.coffer", "--accept-old-key"], input: "New\n", in: dir)
            #expect(accept.err.contains("accepted 1 item edited after the key was changed (--accept-old-key)"), "\(accept.err)")
            #expect(try owner.ok(["get", "v.coffer", "--service", "late", "--no-cache"], input: "New\n", in: dir).out == "late-secret-9f3\n")
            #expect(try owner.run(["get", "v.coffer", "--service", "shared", "--no-cache"], input: "Old\n", in: dir).status == 77)
            // The laptop, with the old password, is refused the rotated vault: its slot is gone there.
            let pull = try laptop.run(["merge", "laptop.coffer", "v.coffer"], input: "Old\n", in: dir)
            #expect(pull.status == 65, "\(pull.err)")
        }
    }

    @Test("After passwd the old copy and the old password never read an item saved afterwards: sync with the live vault as a conflict copy, restore, merge either way")
    func oldCopyReadsNothingLater() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), thief = Device("thief", root: dir)
            try setUp(owner, in: dir)
            try thief.ok(["add", "laptop.coffer", "--service", "thief-item"], input: "Old\nx\n", in: dir)   // leaves a .bak too
            try owner.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            try owner.ok(["add", "v.coffer", "--service", "after"], input: "New\nafter-secret-77\n", in: dir)
            // The live vault dropped beside the old copy as a conflict copy: refused, left in place.
            let conflict = dir.appendingPathComponent("laptop.sync-conflict-20260301-101500-ABCDEF2.coffer")
            try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: conflict)
            let sync = try thief.run(["sync", "laptop.coffer"], input: "Old\n", in: dir)
            #expect(sync.status == 65, "\(sync.err)")
            #expect(FileManager.default.fileExists(atPath: conflict.path))
            try thief.ok(["restore", "laptop.coffer", "--yes"], input: "Old\n", in: dir)
            #expect(try thief.run(["merge", "laptop.coffer", "v.coffer"], input: "Old\n", in: dir).status == 65)
            let seen = try thief.ok(["list", "laptop.coffer", "--json"], input: "Old\n", in: dir)
            #expect(!seen.out.contains("after"), "\(seen.out)")
            // The owner merges the old copy: no slot of it enters, the thief's password opens nothing.
            let merge = try owner.ok(["merge", "v.coffer", "laptop.coffer"], input: "New\n", in: dir)
            #expect(merge.err.contains("none of its key slots"), "\(merge.err)")
            #expect(try owner.run(["get", "v.coffer", "--service", "after", "--no-cache"], input: "Old\n", in: dir).status == 77)
        }
    }

    @Test("sync: a conflict copy under an earlier key with held edits stays in place and is not counted merged; without held edits it is merged and deleted")
    func syncLeavesHeldCopy() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), laptop = Device("laptop", root: dir)
            try setUp(owner, in: dir)
            let conflict = dir.appendingPathComponent("v.sync-conflict-20260301-101500-ABCDEF2.coffer")
            try laptop.ok(["add", "laptop.coffer", "--service", "honest"], input: "Old\nh\n", in: dir)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("laptop.coffer"), to: conflict)
            try owner.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            let clean = try owner.ok(["sync", "v.coffer"], input: "New\n", in: dir)
            #expect(clean.err.contains("merged 1 of 1 file"), "\(clean.err)")
            #expect(!FileManager.default.fileExists(atPath: conflict.path))

            try laptop.ok(["add", "laptop.coffer", "--service", "late"], input: "Old\nl\n", in: dir)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("laptop.coffer"), to: conflict)
            let held = try owner.ok(["sync", "v.coffer", "--json"], input: "New\n", in: dir)
            #expect(held.err.contains("held 1 item") && held.err.contains("left in place"), "\(held.err)")
            #expect(try held.jsonObject()["merged"] as? Int == 0)
            #expect(FileManager.default.fileExists(atPath: conflict.path))
            let accepted = try owner.ok(["sync", "v.coffer", "--accept-old-key"], input: "New\n", in: dir)
            #expect(accepted.err.contains("merged 1 of 1 file"), "\(accepted.err)")
            #expect(!FileManager.default.fileExists(atPath: conflict.path))
            #expect(Set(try itemsByName(try owner.ok(["list", "v.coffer", "--json"], input: "New\n", in: dir)).keys) == ["shared", "honest", "late"])
        }
    }

    @Test("merge-driver: THEIRS under an earlier key with held edits exits 65 naming them; --accept-old-key merges them")
    func mergeDriverHolds() throws {
        try withTemporaryDirectory { dir in
            let owner = Device("owner", root: dir), laptop = Device("laptop", root: dir)
            try setUp(owner, in: dir, keyFile: true)
            try owner.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            Thread.sleep(forTimeInterval: 0.01)
            try laptop.ok(["add", "laptop.coffer", "--service", "late"], input: "Old\nl\n", in: dir)
            let driver = try owner.run(["merge-driver", "--key-file", "k.key", "base", "v.coffer", "laptop.coffer", "vault.coffer"], in: dir)
            #expect(driver.status == 65, "\(driver.err)")
            #expect(driver.err.contains("held 1 item") && driver.err.contains("late"), "\(driver.err)")
            let accepted = try owner.run(["merge-driver", "--key-file", "k.key", "--accept-old-key", "base", "v.coffer", "laptop.coffer"], in: dir)
            #expect(accepted.status == 0, "\(accepted.err)")
            #expect(Set(try itemsByName(try owner.ok(["list", "v.coffer", "--json"], input: "New\n", in: dir)).keys) == ["shared", "late"])
        }
    }
}

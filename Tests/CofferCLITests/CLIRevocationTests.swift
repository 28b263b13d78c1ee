import CofferTestSupport
import Foundation
import Testing

/// Issue 27, findings 1–3, run as real processes with the stock CLI: `passwd` changes every
/// slot the old password opens (keeping each slot's key file, without needing it), a key
/// file can be made a required second factor, and every change that takes a way in away
/// rotates the vault key by default, so an old copy and its old credential read nothing
/// saved afterwards (the old copy's holder is refused with exit 65; the vault merges the old
/// copy's items without its key slots, SPEC.md §17.8).
@Suite("coffer passwd, add-keyfile --required, remove-keyfile: revocation")
struct CLIRevocationTests {
    /// `get` of service `s` in `v.coffer` with `password` and optionally `--key-file k.key`.
    private func get(_ device: Device, _ password: String, keyFile: Bool, in dir: URL) throws -> CLIResult {
        try device.run(["get", "v.coffer", "--service", "s", "--no-cache"] + (keyFile ? ["--key-file", "k.key"] : []),
                       input: "\(password)\n", in: dir)
    }

    /// `v.coffer` with password "Old" and one item, `service` (its password `secret`), copied
    /// to `old.coffer` (returned): the copy someone who knew the old password kept.
    @discardableResult
    private func vaultWithOldCopy(_ device: Device, service: String, secret: String, in dir: URL) throws -> URL {
        try device.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
        try device.ok(["add", "v.coffer", "--service", service], input: "Old\n\(secret)\n", in: dir)
        let old = dir.appendingPathComponent("old.coffer")
        try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: old)
        return old
    }

    private func initVault(_ device: Device, in dir: URL) throws {
        try device.ok(["init", "v.coffer"] + fastKDF, input: "Old\n", in: dir)
        try device.ok(["add", "v.coffer", "--service", "s"], input: "Old\nsecret\n", in: dir)
        try device.ok(["add-keyfile", "v.coffer", "k.key"], input: "Old\n", in: dir)
    }

    @Test("Finding 1: passwd without the key file changes the password slot and the password+key-file slot; remove-keyfile works with the new password")
    func passwdChangesEverySlot() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try initVault(device, in: dir)
            let passwd = try device.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            #expect(passwd.err.contains("in 2 slots (password, password+key-file)"), "\(passwd.err)")
            #expect(try get(device, "Old", keyFile: true, in: dir).status == 77)
            #expect(try get(device, "Old", keyFile: false, in: dir).status == 77)
            #expect(try get(device, "New", keyFile: true, in: dir).out == "secret\n")
            #expect(try get(device, "New", keyFile: false, in: dir).out == "secret\n")
            let remove = try device.ok(["remove-keyfile", "v.coffer", "k.key"], input: "New\n", in: dir)
            #expect(remove.err.contains("removed 1 slot (password+key-file)"), "\(remove.err)")
            let slots = try device.ok(["info", "v.coffer", "--json"], in: dir).jsonObject()["slots"] as? [[String: Any]]
            #expect(slots?.compactMap { $0["kind"] as? String } == ["password"])
        }
    }

    @Test("Finding 1, the reverse: passwd --key-file changes the password-only slot too")
    func passwdWithKeyFileChangesEverySlot() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try initVault(device, in: dir)
            let passwd = try device.ok(["passwd", "v.coffer", "--key-file", "k.key"], input: "Old\nNew\n", in: dir)
            #expect(passwd.err.contains("in 2 slots"), "\(passwd.err)")
            #expect(try get(device, "Old", keyFile: false, in: dir).status == 77)
            #expect(try get(device, "Old", keyFile: true, in: dir).status == 77)
            #expect(try get(device, "New", keyFile: false, in: dir).out == "secret\n")
            #expect(try get(device, "New", keyFile: true, in: dir).out == "secret\n")
            try device.ok(["remove-keyfile", "v.coffer", "k.key"], input: "New\n", in: dir)
            #expect(try get(device, "New", keyFile: false, in: dir).out == "secret\n")
        }
    }

    @Test("Finding 2: add-keyfile --required removes the password-only slot in a rotating save; info says the key file is required")
    func requiredKeyFile() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try vaultWithOldCopy(device, service: "s", secret: "secret", in: dir)
            #expect(try device.ok(["restore", "v.coffer", "--list"], input: "Old\n", in: dir).out.split(separator: "\n").count == 1)

            // A wrong password is refused before anything changes, and no key file is left behind.
            let wrong = try device.run(["add-keyfile", "v.coffer", "k.key", "--required"], input: "Wrong\n", in: dir)
            #expect(wrong.status == 77, "\(wrong.err)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("k.key").path))

            let add = try device.ok(["add-keyfile", "v.coffer", "k.key", "--required"], input: "Old\n", in: dir)
            #expect(add.err.contains("removed 1 password slot: the password alone no longer opens v.coffer"), "\(add.err)")
            #expect(add.err.contains("rekeyed v.coffer"), "\(add.err)")
            let alone = try get(device, "Old", keyFile: false, in: dir)
            #expect(alone.status != 0 && alone.out.isEmpty, "\(alone.err)")
            #expect(try get(device, "Old", keyFile: true, in: dir).out == "secret\n")

            let info = try device.ok(["info", "v.coffer"], in: dir)
            #expect(info.out.contains("opens with:     password + key file (required)"), "\(info.out)")
            let json = try device.ok(["info", "v.coffer", "--json"], in: dir).jsonObject()
            #expect(json["opensWith"] as? [String] == ["password+key-file"])
            #expect(json["keyFileRequired"] as? Bool == true)

            // The slot change dropped the kept undo versions (none opens with the password alone).
            let versions = try device.ok(["restore", "v.coffer", "--list", "--key-file", "k.key"], input: "Old\n", in: dir)
            #expect(versions.out.isEmpty, "\(versions.out)")

            // A password change keeps the key file required, and needs the file only to unlock.
            let passwd = try device.ok(["passwd", "v.coffer", "--key-file", "k.key"], input: "Old\nNew\n", in: dir)
            #expect(passwd.err.contains("in 1 slot (password+key-file)"), "\(passwd.err)")
            #expect(try device.ok(["info", "v.coffer", "--json"], in: dir).jsonObject()["keyFileRequired"] as? Bool == true)
            #expect(try get(device, "New", keyFile: true, in: dir).out == "secret\n")

            // The old copy and the password alone read nothing saved after.
            try device.ok(["add", "v.coffer", "--service", "after", "--key-file", "k.key"], input: "New\nafter-secret\n", in: dir)
            let pull = try device.run(["merge", "old.coffer", "v.coffer"], input: "Old\n", in: dir)
            #expect(pull.status == 65, "\(pull.err)")
            #expect(!pull.out.contains("after-secret") && !pull.err.contains("after-secret"))
        }
    }

    @Test("info of a vault with a password slot and a password+key-file slot lists both, the key file not required")
    func infoListsFactors() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try initVault(device, in: dir)
            let info = try device.ok(["info", "v.coffer"], in: dir)
            #expect(info.out.contains("opens with:     password; password + key file\n"), "\(info.out)")
            let json = try device.ok(["info", "v.coffer", "--json"], in: dir).jsonObject()
            #expect(json["opensWith"] as? [String] == ["password", "password+key-file"])
            #expect(json["keyFileRequired"] as? Bool == false)
        }
    }

    @Test("Rotation by default: after passwd, an old copy and the old password read nothing saved afterwards, by merge either way or by opening it")
    func passwdRotates() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            let old = try vaultWithOldCopy(device, service: "before", secret: "before-secret", in: dir)
            let passwd = try device.ok(["passwd", "v.coffer"], input: "Old\nNew\n", in: dir)
            #expect(passwd.err.contains("rekeyed v.coffer: 1 entry sealed under a new key"), "\(passwd.err)")
            try device.ok(["add", "v.coffer", "--service", "after"], input: "New\nafter-secret\n", in: dir)
            let oldBytes = try bytes(old)

            // The old copy takes nothing in: refused as sealed under another key (exit 65).
            let pull = try device.run(["merge", "old.coffer", "v.coffer"], input: "Old\n", in: dir)
            #expect(pull.status == 65, "\(pull.err)")
            #expect(!pull.out.contains("after") && !pull.err.contains("after-secret"))
            // The vault reads the old copy with the earlier key it keeps: nothing new in it, and
            // no old slot comes back with it.
            let push = try device.run(["merge", "v.coffer", "old.coffer"], input: "New\n", in: dir)
            #expect(push.status == 0, "\(push.err)")
            #expect(push.err.contains("is under an earlier key: 0 items from an earlier key merged, none of its key slots"), "\(push.err)")
            #expect(try device.run(["get", "v.coffer", "--service", "after", "--no-cache"], input: "Old\n", in: dir).status == 77)
            // Opening the old copy with the old password shows what it held, nothing newer.
            let oldItems = try itemsByName(try device.ok(["list", "old.coffer", "--json"], input: "Old\n", in: dir))
            #expect(Set(oldItems.keys) == ["before"])
            #expect(try bytes(old) == oldBytes)

            // The sequence: the holder of the old copy gives it a password of their own
            // (even keeping its key), then merges; the rotated vault gives it nothing.
            try device.ok(["passwd", "old.coffer", "--no-rekey"], input: "Old\nmine\n", in: dir)
            let steal = try device.run(["merge", "old.coffer", "v.coffer"], input: "mine\n", in: dir)
            #expect(steal.status == 65, "\(steal.err)")
            let stolen = try itemsByName(try device.ok(["list", "old.coffer", "--json"], input: "mine\n", in: dir))
            #expect(Set(stolen.keys) == ["before"])
            // Nor does it give the vault a slot: "mine" opens nothing there.
            #expect(try device.run(["merge", "v.coffer", "old.coffer"], input: "New\n", in: dir).status == 0)
            #expect(try device.run(["get", "v.coffer", "--service", "before", "--no-cache"], input: "mine\n", in: dir).status == 77)
        }
    }

    @Test("passwd --no-rekey keeps the key and says so: the old copy then still merges what is saved later")
    func passwdNoRekey() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try vaultWithOldCopy(device, service: "before", secret: "before-secret", in: dir)
            let passwd = try device.ok(["passwd", "v.coffer", "--no-rekey"], input: "Old\nNew\n", in: dir)
            #expect(passwd.err.contains("the vault key was kept (--no-rekey)"), "\(passwd.err)")
            #expect(!passwd.err.contains("rekeyed"), "\(passwd.err)")
            try device.ok(["add", "v.coffer", "--service", "after"], input: "New\nafter-secret\n", in: dir)
            // Same key: the old copy opened with the old password takes in what was saved after
            // (and, merged, the new slots: it then opens with the new password).
            let merge = try device.ok(["merge", "old.coffer", "v.coffer"], input: "Old\n", in: dir)
            #expect(merge.err.contains("1 added"), "\(merge.err)")
            let oldItems = try itemsByName(try device.ok(["list", "old.coffer", "--json"], input: "New\n", in: dir))
            #expect(Set(oldItems.keys) == ["before", "after"])
        }
    }

    @Test("Rotation by default: remove-keyfile rotates, so the removed key file and an old copy read nothing saved afterwards")
    func removeKeyfileRotates() throws {
        try withTemporaryDirectory { dir in
            let device = Device("a", root: dir)
            try device.ok(["init", "v.coffer"] + fastKDF, input: "pw\n", in: dir)
            try device.ok(["add", "v.coffer", "--service", "before"], input: "pw\nx\n", in: dir)
            try device.ok(["add-keyfile", "v.coffer", "k.key", "--alone"], input: "pw\n", in: dir)
            try FileManager.default.copyItem(at: dir.appendingPathComponent("v.coffer"), to: dir.appendingPathComponent("old.coffer"))
            let remove = try device.ok(["remove-keyfile", "v.coffer", "k.key"], input: "pw\n", in: dir)
            #expect(remove.err.contains("removed 1 slot (key-file)"), "\(remove.err)")
            #expect(remove.err.contains("rekeyed v.coffer"), "\(remove.err)")
            #expect(try device.ok(["restore", "v.coffer", "--list"], in: dir).out.isEmpty)
            try device.ok(["add", "v.coffer", "--service", "after"], input: "pw\nafter-secret\n", in: dir)
            let pull = try device.run(["merge", "old.coffer", "v.coffer", "--key-file", "k.key"], input: "", in: dir)
            #expect(pull.status == 65, "\(pull.err)")
            let oldItems = try itemsByName(try device.ok(["list", "old.coffer", "--json", "--key-file", "k.key"], input: "", in: dir))
            #expect(Set(oldItems.keys) == ["before"])
        }
    }
}

import CofferTestSupport
import Foundation
import Testing

/// One device: its own replica state (`XDG_STATE_HOME`), as a second computer would have.
struct Device {
    let environment: [String: String]

    init(_ name: String, root: URL) {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = nil
        env["WAYLAND_DISPLAY"] = nil
        env["XDG_STATE_HOME"] = root.appendingPathComponent("state-\(name)").path
        environment = env
    }

    /// Runs `coffer` as this device, with the master password `pw` on stdin by default.
    @discardableResult
    func run(_ arguments: [String], input: String = "pw\n", in directory: URL) throws -> CLIResult {
        try CLI.run(arguments, input: input, in: directory, environment: environment)
    }

    /// Runs `coffer` and requires exit 0.
    @discardableResult
    func ok(_ arguments: [String], input: String = "pw\n", in directory: URL,
            sourceLocation: SourceLocation = #_sourceLocation) throws -> CLIResult {
        let result = try run(arguments, input: input, in: directory)
        try #require(result.status == 0, "coffer \(arguments.joined(separator: " ")): exit \(result.status): \(result.err)",
                     sourceLocation: sourceLocation)
        return result
    }
}

/// The folders `A` and `B` under `root`, created: two devices' copies of one vault.
func deviceFolders(in root: URL) throws -> (a: URL, b: URL) {
    let a = root.appendingPathComponent("A"), b = root.appendingPathComponent("B")
    try FileManager.default.createDirectory(at: a, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: b, withIntermediateDirectories: true)
    return (a, b)
}

/// The items of a vault as `list --json` shows them, by service (or label for notes).
func itemsByName(_ result: CLIResult) throws -> [String: [String: Any]] {
    var items: [String: [String: Any]] = [:]
    for item in try result.jsonArray() {
        let name = (item["service"] as? String) ?? (item["label"] as? String) ?? "?"
        items[name] = item
    }
    return items
}

func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

/// `coffer merge`, `sync`, `history`, `resolve`, `list --conflicts` and the rollback
/// warning, on real files, each "device" with its own replica state.
@Suite("coffer merge, sync, history, resolve and rollbacks")
struct CLIReplicaTests {
    /// A vault in `folder/vault.coffer` with generic passwords for `services` (password `S-0`).
    static func makeVault(in folder: URL, services: [String], device: Device) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try device.ok(["init", "vault.coffer"] + fastKDF, in: folder)
        for service in services {
            try device.ok(["add", "vault.coffer", "--service", service, "--account", "me"], input: "pw\n\(service)-0\n", in: folder)
        }
    }

    @Test("Two devices edit apart; merging A with B and B with A gives both every edit, conflicts kept")
    func mergeBothWays() throws {
        try withTemporaryDirectory { root in
            let a = Device("a", root: root), b = Device("b", root: root)
            let folderA = root.appendingPathComponent("A"), folderB = root.appendingPathComponent("B")
            try Self.makeVault(in: folderA, services: ["keep", "edit-b", "del-a", "del-vs-edit", "both", "label-both"], device: a)
            try FileManager.default.createDirectory(at: folderB, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folderA.appendingPathComponent("vault.coffer"), to: folderB.appendingPathComponent("vault.coffer"))

            // Device A, offline: an addition, a deletion, a deletion B will not have seen, and
            // edits of fields B edits too.
            try a.ok(["add", "vault.coffer", "--service", "new-a", "--account", "me"], input: "pw\nnew-a-0\n", in: folderA)
            try a.ok(["remove", "vault.coffer", "--service", "del-a"], in: folderA)
            try a.ok(["remove", "vault.coffer", "--service", "del-vs-edit"], in: folderA)
            try a.ok(["edit", "vault.coffer", "--service", "both", "--password-stdin"], input: "pw\nfrom-a\n", in: folderA)
            try a.ok(["edit", "vault.coffer", "--service", "label-both", "--label", "Label A"], in: folderA)
            // Device B, later.
            Thread.sleep(forTimeInterval: 0.05)
            try b.ok(["add", "vault.coffer", "--service", "new-b", "--account", "me"], input: "pw\nnew-b-0\n", in: folderB)
            try b.ok(["edit", "vault.coffer", "--service", "edit-b", "--label", "Edited on B"], in: folderB)
            try b.ok(["edit", "vault.coffer", "--service", "del-vs-edit", "--comment", "still needed"], in: folderB)
            try b.ok(["edit", "vault.coffer", "--service", "both", "--password-stdin"], input: "pw\nfrom-b\n", in: folderB)
            try b.ok(["edit", "vault.coffer", "--service", "label-both", "--label", "Label B"], in: folderB)

            // Each merges the other's file as it was before either merge.
            let snapA = root.appendingPathComponent("a-before.coffer"), snapB = root.appendingPathComponent("b-before.coffer")
            try FileManager.default.copyItem(at: folderA.appendingPathComponent("vault.coffer"), to: snapA)
            try FileManager.default.copyItem(at: folderB.appendingPathComponent("vault.coffer"), to: snapB)
            let snapABytes = try bytes(snapA), snapBBytes = try bytes(snapB)

            let intoA = try a.ok(["merge", "vault.coffer", snapB.path, "--json"], in: folderA).jsonObject()
            #expect(intoA["merged"] as? Int == 1)
            #expect(intoA["failed"] as? Int == 0)
            #expect(intoA["added"] as? Int == 1)          // new-b
            #expect(intoA["restored"] as? Int == 1)       // del-vs-edit: B's edit beats A's deletion
            #expect((intoA["conflicted"] as? [String])?.count == 2)
            let fileA = try #require((intoA["files"] as? [[String: Any]])?.first)
            #expect(fileA["path"] as? String == snapB.path)
            #expect(fileA["service"] is NSNull)
            #expect(fileA["movedTo"] is NSNull)

            let intoB = try b.ok(["merge", "vault.coffer", snapA.path, "--json"], in: folderB)
            #expect(try intoB.jsonObject()["merged"] as? Int == 1)
            #expect(intoB.err.contains("merged 1 of 1 file into vault.coffer"))
            // The other files are only read.
            #expect(try bytes(snapA) == snapABytes)
            #expect(try bytes(snapB) == snapBBytes)

            var lists: [[String: [String: Any]]] = []
            for (device, folder) in [(a, folderA), (b, folderB)] {
                let items = try itemsByName(try device.ok(["list", "vault.coffer", "--json"], in: folder))
                #expect(Set(items.keys) == ["keep", "edit-b", "del-vs-edit", "both", "label-both", "new-a", "new-b"])
                #expect(items["edit-b"]?["label"] as? String == "Edited on B")
                #expect(items["del-vs-edit"]?["comment"] as? String == "still needed")
                #expect(items["label-both"]?["label"] as? String == "Label B")     // the newer edit
                lists.append(items)

                // The same field on both: the newer password wins, the other is kept.
                #expect(try device.ok(["get", "vault.coffer", "--service", "both"], in: folder).out == "from-b\n")
                #expect(try device.ok(["get", "vault.coffer", "--service", "new-a"], in: folder).out == "new-a-0\n")
                let history = try device.ok(["history", "vault.coffer", "--service", "both", "--json", "--show-passwords"], in: folder).jsonObject()
                let passwords = (history["passwordHistory"] as? [[String: Any]] ?? []).compactMap { $0["password"] as? String }
                #expect(passwords.contains("from-a"))
                #expect(passwords.contains("both-0"))
                let conflicts = try #require(history["conflicts"] as? [[String: Any]])
                #expect(conflicts.count == 1)
                #expect(conflicts.first?["field"] as? String == "password")
                #expect(conflicts.first?["secret"] as? Bool == true)
                #expect(conflicts.first?["value"] as? String == "from-a")
                #expect((conflicts.first?["date"] as? String)?.hasSuffix("Z") == true)

                // Without --show-passwords, secrets are hidden; attributes are shown as text.
                let hidden = try device.ok(["history", "vault.coffer", "--service", "both", "--json"], in: folder).jsonObject()
                #expect((hidden["passwordHistory"] as? [[String: Any]] ?? []).allSatisfy { $0["password"] is NSNull })
                #expect((hidden["conflicts"] as? [[String: Any]])?.first?["value"] is NSNull)
                let text = try device.ok(["history", "vault.coffer", "--service", "both"], in: folder)
                #expect(!text.out.contains("from-a"))
                #expect(text.out.contains("password: (hidden"))
                let label = try device.ok(["history", "vault.coffer", "--service", "label-both"], in: folder)
                #expect(label.out.contains("label: Label A"), "\(label.out)")
                let labelJSON = try device.ok(["history", "vault.coffer", "--service", "label-both", "--json"], in: folder).jsonObject()
                let labelConflict = (labelJSON["conflicts"] as? [[String: Any]])?.first
                #expect(labelConflict?["field"] as? String == "label")
                #expect(labelConflict?["secret"] as? Bool == false)
                #expect(labelConflict?["value"] as? String == "Label A")

                let flagged = try itemsByName(try device.ok(["list", "vault.coffer", "--conflicts", "--json"], in: folder))
                #expect(Set(flagged.keys) == ["both", "label-both"])
            }
            // The same items on both devices: same ids, same attributes.
            for name in lists[0].keys {
                #expect(lists[0][name]?["id"] as? String == lists[1][name]?["id"] as? String, "\(name)")
                #expect(lists[0][name]?["modified"] as? String == lists[1][name]?["modified"] as? String, "\(name)")
            }

            // Resolving: the conflict records go; the losing password stays in the history.
            let resolved = try a.ok(["resolve", "vault.coffer", "--service", "both"], in: folderA)
            #expect(resolved.err.contains("resolved 1 conflicting edit"))
            let after = try a.ok(["history", "vault.coffer", "--service", "both", "--json", "--show-passwords"], in: folderA).jsonObject()
            #expect((after["conflicts"] as? [[String: Any]])?.isEmpty == true)
            #expect((after["passwordHistory"] as? [[String: Any]] ?? []).contains { $0["password"] as? String == "from-a" })
            let again = try a.ok(["resolve", "vault.coffer", "--service", "both"], in: folderA)
            #expect(again.err.contains("no conflicting edits"))
            try a.ok(["resolve", "vault.coffer", "--service", "label-both"], in: folderA)
            let none = try a.run(["list", "vault.coffer", "--conflicts"], in: folderA)
            #expect(none.status == 1)
            expectOneLineMessage(none, containing: "conflicting edits")
            // Merged back, B learns that the conflicts were resolved.
            try b.ok(["merge", "vault.coffer", folderA.appendingPathComponent("vault.coffer").path], in: folderB)
            #expect(try b.run(["list", "vault.coffer", "--conflicts"], in: folderB).status == 1)
        }
    }

    @Test("merge refuses the vault itself (64), reports another vault (65) and a missing file (74), merges the rest")
    func mergeProblems() throws {
        try withTemporaryDirectory { root in
            let a = Device("a", root: root), b = Device("b", root: root)
            let folder = root.appendingPathComponent("A"), other = root.appendingPathComponent("B")
            try Self.makeVault(in: folder, services: ["one"], device: a)
            try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: folder.appendingPathComponent("vault.coffer"), to: other.appendingPathComponent("vault.coffer"))
            try b.ok(["add", "vault.coffer", "--service", "two", "--account", "me"], input: "pw\ntwo-0\n", in: other)
            try Self.makeVault(in: root.appendingPathComponent("C"), services: [], device: b)

            let itself = try a.run(["merge", "vault.coffer", "./vault.coffer"], input: "", in: folder)
            #expect(itself.status == 64)
            expectOneLineMessage(itself, containing: "the vault file itself")

            let mixed = try a.run(["merge", "vault.coffer", "../C/vault.coffer", "../B/vault.coffer", "../missing.coffer", "--json"], in: folder)
            #expect(mixed.status == 74, "\(mixed.err)")        // the worst: a file that cannot be read
            let report = try mixed.jsonObject()
            #expect(report["merged"] as? Int == 1)
            #expect(report["failed"] as? Int == 2)
            let errors = (report["files"] as? [[String: Any]] ?? []).map { $0["error"] as? String }
            #expect(errors == ["differentVault", nil, "fileNotFound"])
            #expect(mixed.err.contains("not merged: not a replica of this vault"))
            #expect(try a.ok(["get", "vault.coffer", "--service", "two"], in: folder).out == "two-0\n")

            let onlyOther = try a.run(["merge", "vault.coffer", "../C/vault.coffer"], in: folder)
            #expect(onlyOther.status == 65)
            #expect(onlyOther.err.hasSuffix("coffer: 1 file not merged (see above)\n"), "\(onlyOther.err)")
        }
    }

    /// The names each service gives a conflict copy of `vault.coffer`.
    static let syncthingName = "vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
    static let dropboxName = "vault (Jane's conflicted copy 2026-03-01).coffer"
    static let nextcloudName = "vault (conflicted copy 2026-03-01 101500).coffer"

    /// A synced folder `Sync/vault.coffer` (item `base`) with a conflict copy from each
    /// service: each adds `from-SERVICE`, and Dropbox's also edits `base`'s comment.
    static func syncedFolder(_ root: URL, laptop: Device) throws -> URL {
        let sync = root.appendingPathComponent("Sync")
        try makeVault(in: sync, services: ["base"], device: laptop)
        for (service, name) in [("syncthing", syncthingName), ("dropbox", dropboxName), ("nextcloud", nextcloudName)] {
            let elsewhere = root.appendingPathComponent("device-\(service)")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: sync.appendingPathComponent("vault.coffer"), to: elsewhere.appendingPathComponent("vault.coffer"))
            let device = Device(service, root: root)
            try device.ok(["add", "vault.coffer", "--service", "from-\(service)", "--account", "me"], input: "pw\n\(service)\n", in: elsewhere)
            if service == "dropbox" { try device.ok(["edit", "vault.coffer", "--service", "base", "--comment", "dropbox"], in: elsewhere) }
            // What the service leaves beside the vault.
            try FileManager.default.copyItem(at: elsewhere.appendingPathComponent("vault.coffer"), to: sync.appendingPathComponent(name))
        }
        return sync
    }

    @Test("sync merges each service's copy and deletes it; another vault's and a truncated copy stay (65)")
    func syncConflictCopies() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            let sync = try Self.syncedFolder(root, laptop: laptop)
            // A copy of ANOTHER vault with a conflict-copy name, and a truncated copy.
            try Self.makeVault(in: root.appendingPathComponent("Other"), services: ["stranger"], device: Device("other", root: root))
            let strangerName = "vault.sync-conflict-20260302-090000-XYZ2345.coffer"
            let truncatedName = "vault (Jane's conflicted copy 2026-03-02).coffer"
            try FileManager.default.copyItem(at: root.appendingPathComponent("Other/vault.coffer"), to: sync.appendingPathComponent(strangerName))
            let whole = try bytes(sync.appendingPathComponent("vault.coffer"))
            try whole.prefix(whole.count / 2).write(to: sync.appendingPathComponent(truncatedName))
            let strangerBytes = try bytes(sync.appendingPathComponent(strangerName))

            let result = try laptop.run(["sync", "vault.coffer", "--json"], in: sync)
            #expect(result.status == 65, "\(result.err)")
            let report = try result.jsonObject()
            #expect(report["merged"] as? Int == 3)
            #expect(report["failed"] as? Int == 2)
            #expect(report["added"] as? Int == 3)
            #expect(report["updated"] as? Int == 1)
            let files = try #require(report["files"] as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: files.map { (URL(fileURLWithPath: $0["path"] as? String ?? "").lastPathComponent, $0) })
            #expect(byName[Self.syncthingName]?["service"] as? String == "syncthing")
            #expect(byName[Self.dropboxName]?["service"] as? String == "dropbox")
            #expect(byName[Self.nextcloudName]?["service"] as? String == "nextcloud")
            for name in [Self.syncthingName, Self.dropboxName, Self.nextcloudName] {
                #expect(byName[name]?["merged"] as? Bool == true, "\(name)")
                #expect(byName[name]?["removed"] as? Bool == true, "\(name)")
                #expect(byName[name]?["movedTo"] is NSNull, "\(name)")
            }
            #expect(byName[strangerName]?["error"] as? String == "differentVault")
            #expect(byName[truncatedName]?["error"] as? String == "truncated")
            // Reported on stderr, one line each.
            #expect(result.err.split(separator: "\n").filter { $0.hasPrefix("coffer: not merged: ") }.count == 2)
            #expect(result.err.contains("\(strangerName) left in place"))
            #expect(result.err.split(separator: "\n").filter { $0.hasSuffix("; deleted it") }.count == 3, "\(result.err)")

            // Good copies deleted; bad ones untouched; nothing new in the synced folder.
            for name in [Self.syncthingName, Self.dropboxName, Self.nextcloudName] {
                #expect(!FileManager.default.fileExists(atPath: sync.appendingPathComponent(name).path))
            }
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: sync.path))
                    == ["vault.coffer", "vault.coffer.bak", "vault.coffer.lock", strangerName, truncatedName])
            #expect(try bytes(sync.appendingPathComponent(strangerName)) == strangerBytes)

            let items = try itemsByName(try laptop.ok(["list", "vault.coffer", "--json"], in: sync))
            #expect(Set(items.keys) == ["base", "from-syncthing", "from-dropbox", "from-nextcloud"])
            #expect(items["base"]?["comment"] as? String == "dropbox")

            // Nothing left to merge: exit 0 without unlocking (no password on stdin).
            try FileManager.default.removeItem(at: sync.appendingPathComponent(strangerName))
            try FileManager.default.removeItem(at: sync.appendingPathComponent(truncatedName))
            let idle = try laptop.run(["sync", "vault.coffer"], input: "", in: sync)
            #expect(idle.status == 0, "\(idle.err)")
            #expect(idle.err.contains("no conflict copies"))
        }
    }

    @Test("sync --keep-copies moves what it merged into this device's state folder, never beside the vault; --copy adds a file")
    func syncKeepCopies() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            let sync = try Self.syncedFolder(root, laptop: laptop)
            let usb = root.appendingPathComponent("usb")
            try FileManager.default.createDirectory(at: usb, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: sync.appendingPathComponent("vault.coffer"), to: usb.appendingPathComponent("vault.coffer"))
            let stick = Device("stick", root: root)
            try stick.ok(["add", "vault.coffer", "--service", "from-usb", "--account", "me"], input: "pw\nusb\n", in: usb)
            let vaultID = try #require(try laptop.ok(["info", "vault.coffer", "--json"], input: "", in: sync).jsonObject()["vaultID"] as? String)
            let kept = root.appendingPathComponent("state-laptop/coffer/merged/" + vaultID)

            let result = try laptop.run(["sync", "vault.coffer", "--keep-copies", "--copy", usb.appendingPathComponent("vault.coffer").path, "--json"], in: sync)
            #expect(result.status == 0, "\(result.err)")
            let report = try result.jsonObject()
            #expect(report["merged"] as? Int == 4)
            for file in report["files"] as? [[String: Any]] ?? [] {
                #expect(file["removed"] as? Bool == false)
                #expect((file["movedTo"] as? String)?.hasPrefix(kept.path + "/") == true, "\(file)")
            }
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: kept.path))
                    == [Self.syncthingName, Self.dropboxName, Self.nextcloudName, "vault.coffer"])
            let mode = try FileManager.default.attributesOfItem(atPath: kept.path)[.posixPermissions] as? Int
            #expect(mode == 0o700)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: sync.path)) == ["vault.coffer", "vault.coffer.bak", "vault.coffer.lock"])
            #expect(!FileManager.default.fileExists(atPath: usb.appendingPathComponent("vault.coffer").path))
            let items = try itemsByName(try laptop.ok(["list", "vault.coffer", "--json"], in: sync))
            #expect(Set(items.keys) == ["base", "from-syncthing", "from-dropbox", "from-nextcloud", "from-usb"])

            // The same name again (a later conflict): kept beside the first, never over it.
            let device = Device("syncthing", root: root)
            let elsewhere = root.appendingPathComponent("device-syncthing")
            try device.ok(["add", "vault.coffer", "--service", "later", "--account", "me"], input: "pw\nlater\n", in: elsewhere)
            try FileManager.default.copyItem(at: elsewhere.appendingPathComponent("vault.coffer"), to: sync.appendingPathComponent(Self.syncthingName))
            let firstKept = try bytes(kept.appendingPathComponent(Self.syncthingName))
            let second = try laptop.ok(["sync", "vault.coffer", "--keep-copies"], in: sync)
            #expect(second.err.contains("merged 1 of 1 file into vault.coffer: 1 item added"), "\(second.err)")
            #expect(second.err.contains("; kept in " + kept.path + "/vault.sync-conflict-20260301-101500-ABCDEF2~2.coffer"), "\(second.err)")
            #expect(try bytes(kept.appendingPathComponent(Self.syncthingName)) == firstKept)
            #expect(try laptop.ok(["get", "vault.coffer", "--service", "later"], in: sync).out == "later\n")

            // The vault itself is never a copy to merge.
            let itself = try laptop.run(["sync", "vault.coffer", "--copy", "vault.coffer"], input: "", in: sync)
            #expect(itself.status == 64)
            expectOneLineMessage(itself, containing: "the vault file itself")
            let missing = try laptop.run(["sync", "absent.coffer"], input: "", in: sync)
            #expect(missing.status == 74)
            expectOneLineMessage(missing, containing: "absent.coffer")
        }
    }

    @Test("A rolled-back vault: readers warn and work, writers exit 76 and change nothing, --accept-rollback saves, a merge heals")
    func rollback() throws {
        try withTemporaryDirectory { root in
            let laptop = Device("laptop", root: root)
            let folder = root.appendingPathComponent("V")
            try Self.makeVault(in: folder, services: ["first"], device: laptop)
            let vault = folder.appendingPathComponent("vault.coffer")
            let older = root.appendingPathComponent("older.coffer"), newer = root.appendingPathComponent("newer.coffer")
            try FileManager.default.copyItem(at: vault, to: older)
            try laptop.ok(["add", "vault.coffer", "--service", "later", "--account", "me"], input: "pw\nlater\n", in: folder)
            try FileManager.default.copyItem(at: vault, to: newer)
            // A backup restore (or a sync tool) puts the older file back.
            try FileManager.default.removeItem(at: vault)
            try FileManager.default.copyItem(at: older, to: vault)
            let rolledBack = try bytes(vault)

            let list = try laptop.run(["list", "vault.coffer", "--json"], in: folder)
            #expect(list.status == 0)
            #expect(Set(try itemsByName(list).keys) == ["first"])
            let warning = list.err.split(separator: "\n")
            #expect(warning.count == 1, "\(list.err)")
            #expect(warning.first?.hasPrefix("coffer: warning: vault.coffer: this file (generation") == true, "\(list.err)")
            #expect(list.err.contains("--accept-rollback"))
            let get = try laptop.run(["get", "vault.coffer", "--service", "first"], in: folder)
            #expect(get.status == 0)
            #expect(get.out == "first-0\n")
            #expect(get.err.contains("warning"))

            for command in [["add", "vault.coffer", "--service", "x", "--account", "me"],
                            ["remove", "vault.coffer", "--service", "first"],
                            ["edit", "vault.coffer", "--service", "first", "--label", "L"]] {
                let refused = try laptop.run(command, input: "pw\nsecret\n", in: folder)
                #expect(refused.status == 76, "\(command): \(refused.err)")
                #expect(refused.err.contains("coffer: warning: "))
                #expect(refused.err.contains("nothing was saved"))
                #expect(try bytes(vault) == rolledBack, "\(command) changed the file")
            }

            let accepted = try laptop.run(["add", "vault.coffer", "--service", "x", "--account", "me", "--accept-rollback"],
                                          input: "pw\nx\n", in: folder)
            #expect(accepted.status == 0, "\(accepted.err)")
            #expect(accepted.err.contains("accepted (--accept-rollback)"))
            let read = try laptop.ok(["get", "vault.coffer", "--service", "x"], in: folder)
            #expect(read.out == "x\n")
            // Accepted for good on this device: the next command neither warns nor refuses.
            #expect(!read.err.contains("warning"), "\(read.err)")

            // Merging the newer copy brings its edits back and ends the rollback.
            let healed = try laptop.run(["merge", "vault.coffer", newer.path], in: folder)
            #expect(healed.status == 0, "\(healed.err)")
            let after = try laptop.ok(["list", "vault.coffer", "--json"], in: folder)
            #expect(Set(try itemsByName(after).keys) == ["first", "later", "x"])
            #expect(!after.err.contains("warning"), "\(after.err)")
        }
    }
}

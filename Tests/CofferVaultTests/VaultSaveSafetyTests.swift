import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Issue 15, findings 2, 3 and 4: saves onto an older copy, through a symbolic link,
/// and after a password change. Real files in a temporary folder.
@Suite("Vault: saves onto stale copies, through symbolic links, backups after passwd")
struct VaultSaveSafetyTests {
    static func names(in dir: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    }

    static func isSymbolicLink(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    }

    // MARK: Finding 2: an older generation renamed into place

    @Test("a save onto an older copy of the same vault (a sync tool renamed it into place) merges: nothing the open vault held is dropped")
    func olderGenerationIsMerged() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let older = dir.appendingPathComponent("older-copy").path
            let writer = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            try writer.add(.genericPassword(service: "one", account: "a"))                        // generation 2
            try FileManager.default.copyItem(atPath: path, toPath: older)
            try writer.add(.genericPassword(service: "only-in-3", account: "a"))                  // generation 3

            let process = try Vault.open(at: path, password: try secure("pw"), options: testOptions)
            #expect(process.generation == 3)
            #expect(rename(older, path) == 0)                      // the sync tool puts generation 2 back
            try process.add(.genericPassword(service: "new", account: "a"))
            #expect(process.generation == 4)
            let reread = try Vault.open(at: path, password: try secure("pw"), options: testOptions)
            #expect(try reread.items().compactMap(\.service).sorted() == ["new", "one", "only-in-3"])
            #expect(reread.generation == 4)
            print("[reliability] save onto an older generation (2 renamed over 3): merged, generation 4 holds all three items")
        }
    }

    @Test("a save onto a fork with the same generation (another copy saved from an older one) merges both")
    func forkWithSameGenerationIsMerged() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let fork = dir.appendingPathComponent("fork.coffer").path
            let writer = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            try writer.add(.genericPassword(service: "one", account: "a"))                        // generation 2
            try FileManager.default.copyItem(atPath: path, toPath: fork)
            try writer.add(.genericPassword(service: "here", account: "a"))                       // generation 3 here
            let elsewhere = try Vault.open(at: fork, password: try secure("pw"), options: testOptions)
            try elsewhere.add(.genericPassword(service: "there", account: "a"))                   // generation 3 there
            #expect(elsewhere.generation == 3)
            #expect(rename(fork, path) == 0)
            try writer.add(.genericPassword(service: "more", account: "a"))
            #expect(writer.generation == 4)
            #expect(Set(try writer.items().compactMap(\.service)) == ["one", "here", "there", "more"])
            let reread = try Vault.open(at: path, password: try secure("pw"), options: testOptions)
            #expect(Set(try reread.items().compactMap(\.service)) == ["one", "here", "there", "more"])
        }
    }

    @Test("an identical copy of the current version renamed into place (a sync tool's download) is not a conflict")
    func identicalCopyIsAccepted() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let copy = dir.appendingPathComponent("download").path
            let vault = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            try vault.add(.genericPassword(service: "one", account: "a"))
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            #expect(rename(copy, path) == 0)
            try vault.add(.genericPassword(service: "two", account: "a"))
            #expect(vault.generation == 3)
            #expect(try Vault.open(at: path, password: try secure("pw"), options: testOptions).items().count == 2)
        }
    }

    @Test("after another writer's newer save, the next generation is above every one seen")
    func generationsNeverRepeat() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let a = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            let b = try Vault.open(at: path, password: try secure("pw"), options: testOptions)
            var seen: [UInt64: Data] = [:]
            func record() throws {
                let info = try Vault.info(at: path)
                let bytes = try #require(FileManager.default.contents(atPath: path))
                if let earlier = seen[info.generation] { #expect(earlier == bytes, "generation \(info.generation) repeated") }
                seen[info.generation] = bytes
            }
            try record()
            for round in 0..<5 {
                try a.add(.genericPassword(service: "a\(round)", account: "x")); try record()
                try b.add(.genericPassword(service: "b\(round)", account: "x")); try record()
            }
            #expect(try Vault.info(at: path).generation == 11)
        }
    }

    // MARK: Finding 3: symbolic links

    @Test("a save through a symbolic link writes the target in its folder and keeps the link; .bak goes beside the target")
    func saveThroughSymbolicLink() throws {
        try withTemporaryDirectory { dir in
            let synced = dir.appendingPathComponent("Synced", isDirectory: true)
            try FileManager.default.createDirectory(at: synced, withIntermediateDirectories: true)
            let target = synced.appendingPathComponent("vault.coffer").path
            let link = dir.appendingPathComponent("vault.coffer").path
            _ = try Vault.create(at: target, password: try secure("pw"), options: testOptions)
            #expect(symlink("Synced/vault.coffer", link) == 0)     // relative, like `ln -s Synced/vault.coffer`

            let vault = try Vault.open(at: link, password: try secure("pw"), options: testOptions)
            try vault.add(.genericPassword(service: "one", account: "a"))
            try vault.add(.genericPassword(service: "two", account: "a"))

            #expect(Self.isSymbolicLink(link), "the link was replaced by a regular file")
            let beside = try Self.names(in: dir)
            #expect(beside == ["Synced", "vault.coffer"], "files beside the link: \(beside)")
            #expect(try Self.names(in: synced) == ["vault.coffer", "vault.coffer.bak", "vault.coffer.lock"])
            let direct = try Vault.open(at: target, password: try secure("pw"), options: testOptions)
            #expect(try direct.items().compactMap(\.service).sorted() == ["one", "two"])
            #expect(direct.generation == 3)
            let backup = try Vault.open(at: target + ".bak", password: try secure("pw"), options: testOptions)
            #expect(try backup.items().compactMap(\.service) == ["one"])
            // A writer using the real path and one using the link see each other's saves.
            try direct.add(.genericPassword(service: "three", account: "a"))
            try vault.add(.genericPassword(service: "four", account: "a"))
            #expect(try Vault.open(at: target, password: try secure("pw"), options: testOptions).items().count == 4)
            #expect(Self.isSymbolicLink(link))
            print("[reliability] save through a symbolic link: link kept, target updated in its folder, .bak beside the target")
        }
    }

    @Test("the write lock taken through a link and through the real path exclude each other")
    func lockThroughSymbolicLink() throws {
        try withTemporaryDirectory { dir in
            let target = dir.appendingPathComponent("real.coffer").path
            let link = dir.appendingPathComponent("link.coffer").path
            let chain = dir.appendingPathComponent("chain.coffer").path
            #expect(FileManager.default.createFile(atPath: target, contents: Data([1])))
            #expect(symlink(target, link) == 0)
            #expect(symlink("link.coffer", chain) == 0)           // a link to a link
            for (holder, other) in [(link, target), (target, link), (chain, target), (link, chain)] {
                let outcome = storeError {
                    try VaultFileStore(path: holder).withExclusiveLock(timeout: .seconds(5)) { () throws(CofferError) in
                        try VaultFileStore(path: other).withExclusiveLock(timeout: .milliseconds(100)) { () throws(CofferError) in 0 }
                    }
                }
                #expect(outcome == .lockTimeout(other), "holding \(holder), locking \(other): \(String(describing: outcome))")
            }
        }
    }

    @Test("a vault created through a dangling link is created at the link's target")
    func createThroughDanglingLink() throws {
        try withTemporaryDirectory { dir in
            let target = dir.appendingPathComponent("real.coffer").path
            let link = dir.appendingPathComponent("link.coffer").path
            #expect(symlink("real.coffer", link) == 0)
            let vault = try Vault.create(at: link, password: try secure("pw"), options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"))
            #expect(Self.isSymbolicLink(link))
            #expect(try Vault.open(at: target, password: try secure("pw"), options: testOptions).items().count == 1)
        }
    }

    // MARK: Finding 4: no file left that opens with the old password

    @Test("after a password change no file beside the vault opens with the old password", arguments: [true, false])
    func passwordChangeLeavesNoOldBackup(keepsBackup: Bool) throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            var options = testOptions
            let vault = try Vault.create(at: path, password: try secure("old"), options: options)
            try vault.add(.genericPassword(service: "s", account: "a"), secrets: ItemSecrets(password: try secure("x")))
            try vault.add(.genericPassword(service: "t", account: "a"))
            #expect(FileManager.default.fileExists(atPath: path + ".bak"))

            options.keepsBackup = keepsBackup
            let reopened = try Vault.open(at: path, password: try secure("old"), options: options)
            try reopened.changePassword(to: try secure("new"))
            try reopened.add(.genericPassword(service: "after", account: "a"))   // its key would be readable with the old one
            try reopened.changePassword(to: try secure("newer"))

            var opened: [String] = []
            var checked = 0
            for name in try Self.names(in: dir) {
                let file = dir.appendingPathComponent(name).path
                for old in ["old", "new"] {
                    checked += 1
                    if (try? Vault.open(at: file, password: try secure(old), options: options)) != nil { opened.append("\(name) with \(old)") }
                }
            }
            #expect(opened.isEmpty, "files opening with a replaced password: \(opened)")
            #expect(try Vault.open(at: path, password: try secure("newer"), options: options).items().count == 3)
            if keepsBackup {
                #expect(try Vault.open(at: path + ".bak", password: try secure("newer"), options: options).items().count == 3)
            } else {
                #expect(!FileManager.default.fileExists(atPath: path + ".bak"))
            }
            print("[reliability] after passwd (backups \(keepsBackup ? "kept" : "off")): \(checked) open attempts with replaced passwords on the files beside the vault, \(opened.count) opened")
        }
    }

    @Test("removing a key slot also replaces the backup that still held it")
    func removedSlotLeavesNoBackup() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let deviceKey = try SecureBytes.random(count: 32)
            let vault = try Vault.create(at: path, credential: .password(try secure("pw")), additional: [.rawKey(deviceKey)], options: testOptions)
            try vault.add(.genericPassword(service: "s", account: "a"))
            try vault.removeKeySlot(.rawKey(deviceKey))
            for name in try Self.names(in: dir) {
                #expect(throws: CofferError.self, "\(name)") {
                    try Vault.open(at: dir.appendingPathComponent(name).path, credential: .rawKey(deviceKey), options: testOptions)
                }
            }
        }
    }
}

import Foundation
import Testing
@testable import CofferStore
import CofferTestSupport

@Suite("Store: files")
struct StoreFileTests {
    @Test("Paths: backup, lock, folder and name")
    func paths() {
        let store = VaultFileStore(path: "/a/b/v.coffer")
        #expect(store.path == "/a/b/v.coffer")
        #expect(store.backupPath == "/a/b/v.coffer.bak")
        #expect(store.lockPath == "/a/b/v.coffer.lock")
        #expect(store.directory == "/a/b")
        #expect(store.baseName == "v.coffer")
        #expect(VaultFileStore(path: "/v").directory == "/")
        #expect(VaultFileStore(path: "v").directory == ".")
        #expect(VaultFileStore(path: "v").baseName == "v")
        #expect(storeFailure { try VaultFileStore(path: "/a/b/").create([1]) } == .notARegularFile("vault path must name a file: /a/b/", path: "/a/b/"))
        #expect(storeFailure { try VaultFileStore(path: "").replace(with: [1], keepBackup: false) } != nil)
    }

    @Test("create: exact content, mode 0600, identity matches the file")
    func create() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            let bytes = storeBytes("first")
            let identity = try store.create(bytes)
            #expect(fixture.contents(fixture.path) == bytes)
            #expect(fixture.permissions(fixture.path) == 0o600)
            #expect(try store.currentIdentity() == identity)
            #expect(identity.size == Int64(bytes.count))
            let snapshot = try store.read()
            #expect(snapshot.bytes == bytes)
            #expect(snapshot.identity == identity)
            #expect(fixture.temporaryFiles().isEmpty)
            #expect(fixture.contents(fixture.backupPath) == nil)
        }
    }

    @Test("create: empty content")
    func createEmpty() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            try fixture.store().create([])
            #expect(try fixture.store().read().bytes == [])
        }
    }

    @Test("create refuses an existing file and leaves it untouched")
    func createExisting() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let original = storeBytes("original")
            fixture.write(original, to: fixture.path)
            #expect(storeFailure { try fixture.store().create(storeBytes("other")) } == .fileExists(fixture.path))
            #expect(fixture.contents(fixture.path) == original)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }

    @Test("create refuses when the file appears after the existence check (link never overwrites)")
    func createRace() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let intruder = storeBytes("intruder")
            // Another writer creates the file right after the store checked for it.
            let injector = StoreFaultInjector([])
            var io = injector.io
            let listDirectory = io.listDirectory
            io.listDirectory = { path in
                if FileManager.default.fileExists(atPath: fixture.path) == false {
                    _ = FileManager.default.createFile(atPath: fixture.path, contents: Data(intruder))
                }
                return listDirectory(path)
            }
            #expect(storeFailure { try fixture.store(io).create(storeBytes("mine")) } == .fileExists(fixture.path))
            #expect(fixture.contents(fixture.path) == intruder)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }

    @Test("create in a missing folder -> fileNotFound(folder)")
    func createMissingFolder() throws {
        try withTemporaryDirectory { url throws in
            let folder = url.path + "/missing"
            let store = VaultFileStore(path: folder + "/vault.coffer")
            #expect(storeFailure { try store.create([1, 2, 3]) } == .fileNotFound(folder))
            #expect(!FileManager.default.fileExists(atPath: folder))
        }
    }

    @Test("replace: exact content, mode 0600, .bak holds the previous version")
    func replace() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            let (v1, v2, v3) = (storeBytes("one"), storeBytes("two", count: 5000), storeBytes("three", count: 7))
            let first = try store.create(v1)
            let second = try store.replace(with: v2, keepBackup: true)
            #expect(fixture.contents(fixture.path) == v2)
            #expect(fixture.contents(fixture.backupPath) == v1)
            #expect(fixture.permissions(fixture.path) == 0o600)
            #expect(fixture.permissions(fixture.backupPath) == 0o600)
            #expect(second != first)
            #expect(try store.currentIdentity() == second)

            let third = try store.replace(with: v3, keepBackup: true)
            #expect(fixture.contents(fixture.path) == v3)
            #expect(fixture.contents(fixture.backupPath) == v2)
            #expect(try store.read().identity == third)

            // Without a backup, .bak stays as it was.
            _ = try store.replace(with: v1, keepBackup: false)
            #expect(fixture.contents(fixture.path) == v1)
            #expect(fixture.contents(fixture.backupPath) == v2)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }

    /// A save killed after it made the vault's file `.bak` (a hard link) and before its commit
    /// leaves the two names on one file. The next save's backup link then named that same file
    /// too, so its rename onto `.bak` did nothing (POSIX) and the link stayed beside the vault
    /// (found by `VaultKilledSaveTests` on a fresh clone under load).
    @Test("replace after a save killed between its backup and its commit: .bak the previous version, no temporary file left")
    func replaceAfterInterruptedBackup() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            let (v1, v2) = (storeBytes("one"), storeBytes("two", count: 300))
            try store.create(v1)
            #expect(link(fixture.path, fixture.backupPath) == 0)   // the interrupted save's backup
            _ = try store.replace(with: v2, keepBackup: true)
            #expect(fixture.contents(fixture.path) == v2)
            #expect(fixture.contents(fixture.backupPath) == v1)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }

    @Test("replace of a missing file -> fileNotFound(path)")
    func replaceMissing() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            #expect(storeFailure { try fixture.store().replace(with: [1], keepBackup: true) } == .fileNotFound(fixture.path))
            #expect(fixture.contents(fixture.path) == nil)
        }
    }

    @Test("restoreBackup swaps: .bak goes in place and the replaced version becomes .bak; no backup -> fileNotFound")
    func restore() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            let (v1, v2) = (storeBytes("one"), storeBytes("two"))
            try store.create(v1)
            #expect(storeFailure { try store.restoreBackup() } == .fileNotFound(fixture.backupPath))
            _ = try store.replace(with: v2, keepBackup: true)
            let restored = try store.restoreBackup()
            #expect(fixture.contents(fixture.path) == v1)
            #expect(fixture.contents(fixture.backupPath) == v2)   // nothing lost: restoring again undoes it
            #expect(try store.currentIdentity() == restored)
            try store.restoreBackup()
            #expect(fixture.contents(fixture.path) == v2 && fixture.contents(fixture.backupPath) == v1)
            try store.restoreBackup()
            #expect(fixture.contents(fixture.path) == v1)
            #expect(fixture.permissions(fixture.path) == 0o600)

            // Also when the vault file is gone: .bak is copied into place and kept.
            try FileManager.default.removeItem(atPath: fixture.path)
            try store.restoreBackup()
            #expect(fixture.contents(fixture.path) == v2 && fixture.contents(fixture.backupPath) == v2)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }

    @Test("read: missing -> fileNotFound; a folder is refused; identity changes after replace")
    func read() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            #expect(storeFailure { try store.read() } == .fileNotFound(fixture.path))
            #expect(try store.currentIdentity() == nil)
            #expect(try VaultFileStore(path: fixture.path + "/inside").currentIdentity() == nil)

            try store.create(storeBytes("a"))
            let before = try store.read().identity
            // Same size, same content length: the identity still changes (new inode).
            _ = try store.replace(with: storeBytes("b"), keepBackup: false)
            let after = try store.read().identity
            #expect(before != after)
            #expect(try store.currentIdentity() == after)

            try FileManager.default.createDirectory(atPath: fixture.directory + "/folder", withIntermediateDirectories: false)
            let folder = VaultFileStore(path: fixture.directory + "/folder")
            #expect(storeFailure { try folder.read() } == .system(.read, path: folder.path, errno: EISDIR))
        }
    }

    @Test("read: files over 1 GiB are refused before allocating; exactly 1 GiB is not refused by the limit")
    func readLimit() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            // A sparse file: no disk space, no memory.
            fixture.write([], to: fixture.path)
            let handle = try #require(FileHandle(forWritingAtPath: fixture.path))
            try handle.truncate(atOffset: UInt64(VaultFileStore.maximumFileSize) + 1)
            try handle.close()
            #expect(storeFailure { try fixture.store().read() } == .vaultTooLarge(fixture.path))
            #expect(storeFailure { try fixture.store().restoreBackup() } == .fileNotFound(fixture.backupPath))
            try FileManager.default.moveItem(atPath: fixture.path, toPath: fixture.backupPath)
            #expect(storeFailure { try fixture.store().restoreBackup() } == .vaultTooLarge(fixture.backupPath))
        }
    }

    @Test("read: short reads and EINTR are retried; EIO is reported")
    func readFaults() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let bytes = storeBytes("read", count: 100_000)
            try fixture.store().create(bytes)

            let interrupted = StoreFaultInjector([
                StoreFaultRule(matches: { if case .read = $0 { true } else { false } }, injection: .fail(EINTR), times: 3),
            ])
            #expect(try fixture.store(interrupted.io).read().bytes == bytes)
            #expect(interrupted.injections == 3)

            let failing = StoreFaultInjector([
                StoreFaultRule(matches: { if case .read = $0 { true } else { false } }, injection: .fail(EIO)),
            ])
            #expect(storeFailure { try fixture.store(failing.io).read() } == .system(.read, path: fixture.path, errno: EIO))
        }
    }

    @Test("Leftover temporary files of crashed writers are removed by the next write; others are kept")
    func leftoverCleanup() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let store = fixture.store()
            try store.create(storeBytes("one"))
            let stale = [".vault.coffer.tmp-0123456789abcdef", ".vault.coffer.tmp-fedcba9876543210"]
            // Not this vault's temporaries: another vault's, and names that only look alike.
            let unrelated = [".other.tmp-0123456789abcdef", ".vault.coffer.tmp-x.tmp-0123456789abcdef",
                             ".vault.coffer.tmp-0123", "vault.coffer.tmp-0123456789abcdef"]
            for name in stale + unrelated { fixture.write([9, 9], to: fixture.directory + "/" + name) }

            _ = try store.replace(with: storeBytes("two"), keepBackup: true)
            let remaining = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
            for name in stale { #expect(!remaining.contains(name)) }
            for name in unrelated { #expect(remaining.contains(name)) }

            // create cleans up too (in another folder, where the vault does not exist yet).
            try withTemporaryDirectory { other throws in
                let second = StoreFixture(other)
                second.write([1], to: second.directory + "/" + stale[0])
                try second.store().create([1, 2])
                #expect(second.temporaryFiles().isEmpty)
            }
        }
    }

    @Test("Writes through a file system without hard links: backups are copies, create still never overwrites")
    func noHardLinks() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            let noLinks = StoreFaultInjector([
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EPERM), times: .max),
            ])
            let store = fixture.store(noLinks.io)
            let (v1, v2, v3) = (storeBytes("one"), storeBytes("two"), storeBytes("three"))
            try store.create(v1)
            _ = try store.replace(with: v2, keepBackup: true)
            #expect(fixture.contents(fixture.backupPath) == v1)
            _ = try store.replace(with: v3, keepBackup: true)
            #expect(fixture.contents(fixture.path) == v3)
            #expect(fixture.contents(fixture.backupPath) == v2)
            #expect(fixture.permissions(fixture.backupPath) == 0o600)
            #expect(storeFailure { try store.create(v1) } == .fileExists(fixture.path))
            #expect(fixture.contents(fixture.path) == v3)
            #expect(fixture.temporaryFiles().isEmpty)
            #expect(noLinks.injections > 0)
        }
    }

    @Test("Short writes are completed by looping; EINTR is retried everywhere")
    func shortWritesAndInterrupts() throws {
        try withTemporaryDirectory { url throws in
            let fixture = StoreFixture(url)
            try fixture.store().create(storeBytes("one"))
            let bytes = storeBytes("long", count: 10_000)
            let isWrite: @Sendable (StoreCall) -> Bool = { if case .write = $0 { true } else { false } }
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: isWrite, injection: .fail(EINTR), times: 2),
                StoreFaultRule(matches: isWrite, injection: .shortWrite(777), times: .max),
                StoreFaultRule(matches: { if case .fsync = $0 { true } else { false } }, injection: .fail(EINTR), times: 2),
                StoreFaultRule(matches: { if case .rename = $0 { true } else { false } }, injection: .fail(EINTR), times: 1),
                StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EINTR), times: 1),
                StoreFaultRule(matches: { if case .open = $0 { true } else { false } }, injection: .fail(EINTR), times: 1),
            ])
            let identity = try fixture.store(injector.io).replace(with: bytes, keepBackup: true)
            #expect(fixture.contents(fixture.path) == bytes)
            #expect(fixture.contents(fixture.backupPath) == storeBytes("one"))
            #expect(identity.size == Int64(bytes.count))
            let writes = injector.calls.filter(isWrite).count
            #expect(writes >= 10_000 / 777)
            #expect(fixture.temporaryFiles().isEmpty)
        }
    }
}

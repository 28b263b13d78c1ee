import Foundation
import Testing
@testable import CofferStore
import CofferVault
import CofferTestSupport

@Suite("Store: lock")
struct StoreLockTests {
    /// Holds the lock on a Dispatch thread (not the cooperative pool) until released.
    final class Holder: Sendable {
        let entered = StoreFlag(false)
        let finished = StoreFlag(false)
        let release = StoreFlag(false)
        let error = StoreLocked<CofferError?>(nil)

        init(_ store: VaultFileStore) {
            DispatchQueue.global().async { [self] in
                error.value = storeError {
                    try store.withExclusiveLock(timeout: .seconds(30)) {
                        entered.value = true
                        // Bounded (600 s), so a failing test cannot hang; generous because on a loaded
                        // machine the contender (a detached task) may start only minutes later: with
                        // two cores, the cooperative pool's two threads serve the queued synchronous
                        // tests (the CLI's processes) first; 120 s was seen to be too short.
                        for _ in 0..<120_000 where !release.value { FileLock.pause(.milliseconds(5)) }
                    }
                }
                finished.value = true
            }
        }

        /// Polls `flag` for up to 120 s (blocking; for synchronous tests).
        static func wait(for flag: StoreFlag) {
            for _ in 0..<24_000 where !flag.value { FileLock.pause(.milliseconds(5)) }
        }

        /// Polls `flag` for up to 120 s without blocking a cooperative thread.
        static func wait(for flag: StoreFlag) async throws {
            for _ in 0..<24_000 where !flag.value { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    @Test("Threads: a second holder times out while the first holds the lock, then gets it")
    func contentionAcrossThreads() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let holder = Holder(f.store())
            Holder.wait(for: holder.entered)
            try #require(holder.entered.value, "the holder thread never took the lock")

            // Another thread (this one), another store value for the same path.
            #expect(storeError { try f.store().withExclusiveLock(timeout: .milliseconds(200)) { 1 } } == .lockTimeout(f.path))
            // Zero timeout: one try.
            #expect(storeError { try f.store().withExclusiveLock(timeout: .zero) { 1 } } == .lockTimeout(f.path))

            holder.release.value = true
            Holder.wait(for: holder.finished)
            #expect(holder.finished.value)
            #expect(holder.error.value == nil)
            #expect(try f.store().withExclusiveLock(timeout: .seconds(5)) { 42 } == 42)
        }
    }

    @Test("Tasks: a task times out while another thread holds the lock")
    func contentionAcrossTasks() async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("coffer-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let f = StoreFixture(directory)
        let store = f.store()

        let holder = Holder(store)
        try await Holder.wait(for: holder.entered)
        try #require(holder.entered.value, "the holder thread never took the lock")
        let fromTask = await Task.detached {
            storeError { try store.withExclusiveLock(timeout: .milliseconds(200)) { 1 } }
        }.value
        #expect(fromTask == .lockTimeout(f.path))

        holder.release.value = true
        try await Holder.wait(for: holder.finished)
        #expect(holder.error.value == nil)
        let afterwards = await Task.detached { storeError { try store.withExclusiveLock(timeout: .seconds(5)) { 1 } } }.value
        #expect(afterwards == nil)
    }

    @Test("The lock is released when the body throws")
    func releasedAfterThrow() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let store = f.store()
            #expect(storeError { try store.withExclusiveLock(timeout: .seconds(1)) { () throws(CofferError) in throw .itemNotFound } } == .itemNotFound)
            #expect(try store.withExclusiveLock(timeout: .zero) { "free" } == "free")
            // Also for another thread.
            let holder = Holder(store)
            Holder.wait(for: holder.entered)
            try #require(holder.entered.value, "the holder thread never took the lock")
            holder.release.value = true
            Holder.wait(for: holder.finished)
            #expect(holder.error.value == nil)
        }
    }

    @Test("Not re-entrant: taking the lock again inside the body times out")
    func notReentrant() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let store = f.store()
            let inner = try store.withExclusiveLock(timeout: .seconds(1)) {
                storeError { try store.withExclusiveLock(timeout: .milliseconds(50)) { 1 } }
            }
            #expect(inner == .lockTimeout(f.path))
        }
    }

    @Test("The lock file is created with mode 0600 and kept; a missing folder -> fileNotFound")
    func lockFile() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try f.store().withExclusiveLock(timeout: .seconds(1)) {}
            #expect(f.permissions(f.lockPath) == 0o600)
            #expect(f.contents(f.path) == nil)
            let folder = url.path + "/missing"
            #expect(storeError { try VaultFileStore(path: folder + "/v").withExclusiveLock(timeout: .zero) {} } == .fileNotFound(folder))
        }
    }

    @Test("flock errors other than EWOULDBLOCK are typed; EINTR is retried")
    func flockErrors() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            let isFlock: @Sendable (StoreCall) -> Bool = { if case .flock = $0 { true } else { false } }
            let failing = StoreFaultInjector([StoreFaultRule(matches: isFlock, injection: .fail(ENOLCK))])
            let lockFailure = storeError { try f.store(failing.io).withExclusiveLock(timeout: .seconds(1)) {} }
            #expect(lockFailure?.kind == .io)
            #expect(lockFailure?.path == f.lockPath)
            #expect(lockFailure?.errno == ENOLCK)
            let interrupted = StoreFaultInjector([StoreFaultRule(matches: isFlock, injection: .fail(EINTR), times: 3)])
            #expect(try f.store(interrupted.io).withExclusiveLock(timeout: .zero) { 7 } == 7)
            #expect(interrupted.injections == 3)
            // No descriptor kept the lock.
            #expect(try f.store().withExclusiveLock(timeout: .zero) { 8 } == 8)
        }
    }

    @Test("Writers serialised by the lock lose no update")
    func serialisedWriters() throws {
        try withTemporaryDirectory { url throws in
            let f = StoreFixture(url)
            try f.store().create(Array("0".utf8))
            let store = f.store()
            let failure = StoreLocked<CofferError?>(nil)
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                for _ in 0..<2 {
                    let error = storeError {
                        try store.withExclusiveLock(timeout: .seconds(10)) { () throws(CofferError) in
                            try storeCall { () throws(StoreError) in
                                let count = Int(String(decoding: try store.read().bytes, as: UTF8.self)) ?? -1000
                                _ = try store.replace(with: Array(String(count + 1).utf8), keepBackup: true)
                            }
                        }
                    }
                    if let error { failure.value = error }
                }
            }
            #expect(failure.value == nil)
            #expect(try store.read().bytes == Array("12".utf8))
            #expect(f.contents(f.backupPath) == Array("11".utf8))
            #expect(f.temporaryFiles() == [])
        }
    }
}

import Foundation
import Testing
import CofferCrypto
@testable import CofferStore
import CofferTestSupport

/// Secret files (key files, imports, exports) read and written through the store's seam,
/// with faults injected there: interrupted and short calls, a FIFO, a file that grows or
/// shrinks while it is read.
@Suite("Store: secret files through the I/O seam")
struct StoreSecretFileTests {
    static let limit = 1 << 20

    /// Distinct secret-looking bytes.
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) } }

    static func read(_ path: String, io: FileIO, limit: Int = limit, ownerOnly: Bool = false) throws -> [UInt8] {
        let secret = try SecretFile.contents(of: path, limit: limit, kind: "key file", name: "key file \(path)", ownerOnly: ownerOnly, io: io)
        return secret.withUnsafeBytes { Array($0) }
    }

    static func isRead(of path: String) -> @Sendable (StoreCall) -> Bool {
        { if case .read(path) = $0 { true } else { false } }
    }

    @Test("EINTR at open and at every other read, and reads of at most 7 bytes: the whole file, exactly")
    func interruptedAndShortReads() throws {
        try withTemporaryDirectory { url in
            let path = url.path + "/secret.key"
            let contents = Self.bytes(1000)
            #expect(FileManager.default.createFile(atPath: path, contents: Data(contents)))
            let injector = StoreFaultInjector([
                StoreFaultRule(matches: { if case .open(path) = $0 { true } else { false } }, injection: .fail(EINTR), times: 3),
                StoreFaultRule(matches: Self.isRead(of: path), injection: .fail(EINTR), times: 50),
                StoreFaultRule(matches: Self.isRead(of: path), injection: .shortRead(7), times: .max),
            ])
            let read = try Self.read(path, io: injector.io)
            #expect(read == contents)
            // Every call went through the seam: open, fstat, the reads, close.
            let reads = injector.calls.filter { if case .read = $0 { true } else { false } }.count
            #expect(reads >= 50 + 1000 / 7)
            #expect(injector.calls.contains { if case .fstat(path) = $0 { true } else { false } })
            #expect(injector.calls.contains { if case .close(path) = $0 { true } else { false } })
        }
    }

    @Test("A read error or a file that ends early (it shrank) is a typed read error; the descriptor is closed")
    func failedAndShrunkReads() throws {
        try withTemporaryDirectory { url in
            let path = url.path + "/secret.key"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.bytes(100))))
            let failing = StoreFaultInjector([StoreFaultRule(matches: Self.isRead(of: path), injection: .fail(EIO))])
            #expect(throws: StoreError.system(.secretFile(.read, kind: "key file"), path: path, errno: EIO)) {
                try Self.read(path, io: failing.io)
            }
            #expect(failing.calls.contains { if case .close(path) = $0 { true } else { false } })

            // A read that finds the end before the size fstat gave.
            let shrunk = StoreFaultInjector([
                StoreFaultRule(matches: Self.isRead(of: path), injection: .shortRead(40)),
                StoreFaultRule(matches: Self.isRead(of: path), injection: .shortRead(0)),
            ])
            #expect(throws: StoreError.system(.secretFile(.read, kind: "key file"), path: path, errno: EIO)) {
                try Self.read(path, io: shrunk.io)
            }
            let opening = StoreFaultInjector([StoreFaultRule(matches: { if case .open = $0 { true } else { false } }, injection: .fail(EACCES))])
            #expect(throws: StoreError.system(.secretFile(.open, kind: "key file"), path: path, errno: EACCES)) {
                try Self.read(path, io: opening.io)
            }
            let stat = StoreFaultInjector([StoreFaultRule(matches: { if case .fstat = $0 { true } else { false } }, injection: .fail(EIO))])
            #expect(throws: StoreError.system(.secretFile(.stat, kind: "key file"), path: path, errno: EIO)) {
                try Self.read(path, io: stat.io)
            }
        }
    }

    @Test("A FIFO is opened without blocking and refused before any read")
    func fifo() throws {
        try withTemporaryDirectory { url in
            let fifo = url.path + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            let injector = StoreFaultInjector([])
            #expect(throws: StoreError.notARegularFile("key file \(fifo) is not a regular file", path: fifo)) {
                try Self.read(fifo, io: injector.io)
            }
            #expect(!injector.calls.contains { if case .read = $0 { true } else { false } })
            #expect(injector.calls.contains { if case .close(fifo) = $0 { true } else { false } })
        }
    }

    /// `FileIO.live`, except that `fstat` reports `size` bytes: the file grew (or was
    /// written) after fstat, as when another process appends to it while it is read.
    /// Counts the bytes the reads return.
    static func statingSize(_ size: Int64, counted: StoreLocked<Int>) -> FileIO {
        var io = FileIO.live
        io.fstat = { fd in
            var (status, code) = FileIO.live.fstat(fd)
            status?.size = size
            return (status, code)
        }
        io.read = { fd, buffer in
            let outcome = FileIO.live.read(fd, buffer)
            if !outcome.failed { counted.value += outcome.value }
            return outcome
        }
        return io
    }

    @Test("A file that grows past its bound after fstat: fileTooLarge, and no more than bound + 1 bytes are read")
    func growsPastItsBound() throws {
        try withTemporaryDirectory { url in
            let path = url.path + "/secret.key"
            let limit = 64 << 10
            // Far more than the bound: reading it all would be the bug.
            #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.bytes(limit * 8))))
            let counted = StoreLocked(0)
            let io = Self.statingSize(100, counted: counted)
            #expect(throws: StoreError.fileTooLarge("key file \(path) is larger than 0 MiB", path: path)) {
                try Self.read(path, io: io, limit: limit)
            }
            #expect(counted.value == limit + 1)
        }
    }

    @Test("A file that grows within its bound after fstat: a read error (EAGAIN), never its first bytes alone")
    func growsWithinItsBound() throws {
        try withTemporaryDirectory { url in
            let path = url.path + "/secret.key"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.bytes(300))))
            let counted = StoreLocked(0)
            #expect(throws: StoreError.system(.secretFile(.read, kind: "key file"), path: path, errno: EAGAIN)) {
                try Self.read(path, io: Self.statingSize(100, counted: counted))
            }
            #expect(counted.value == 300)
            // As fstat says, no growth: read whole, at exactly the limit too.
            let whole = try Self.read(path, io: .live, limit: 300)
            #expect(whole == Self.bytes(300))
            #expect(throws: StoreError.fileTooLarge("key file \(path) is larger than 0 MiB", path: path)) {
                try Self.read(path, io: .live, limit: 299)
            }
        }
    }

    @Test("Writing a new secret file: EINTR and short writes still write it whole; a failed write or fsync removes it")
    func writeNew() throws {
        try withTemporaryDirectory { url in
            let secret = try SecureBytes(copying: Self.bytes(5000))
            let path = url.path + "/new.key"
            let isWrite: @Sendable (StoreCall) -> Bool = { if case .write(path, _) = $0 { true } else { false } }
            let choppy = StoreFaultInjector([
                StoreFaultRule(matches: isWrite, injection: .fail(EINTR), times: 5),
                StoreFaultRule(matches: isWrite, injection: .shortWrite(999), times: .max),
            ])
            try SecretFile.writeNew(secret, to: path, kind: "key file", io: choppy.io)
            #expect(FileManager.default.contents(atPath: path).map(Array.init) == Self.bytes(5000))
            #expect(choppy.calls.contains { if case .fsync(path) = $0 { true } else { false } })

            for (name, rule, expected) in [
                ("full.key", StoreFaultRule(matches: { if case .write = $0 { true } else { false } }, injection: .fail(ENOSPC)),
                 StoreOperation.SecretFileStep.write),
                ("stuck.key", StoreFaultRule(matches: { if case .write = $0 { true } else { false } }, injection: .shortWrite(0)),
                 .write),
                ("unsynced.key", StoreFaultRule(matches: { if case .fsync = $0 { true } else { false } }, injection: .fail(EIO)),
                 .fsync),
            ] {
                let target = url.path + "/" + name
                let injector = StoreFaultInjector([rule])
                let failure = storeFailure { try SecretFile.writeNew(secret, to: target, kind: "key file", io: injector.io) }
                guard case .system(.secretFile(expected, kind: "key file"), path: target, _) = failure else {
                    Issue.record("\(name): \(String(describing: failure))")
                    continue
                }
                #expect(!FileManager.default.fileExists(atPath: target), "\(name) was left behind")
            }
        }
    }
}

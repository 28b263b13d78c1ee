import Foundation
import Testing
import CofferCrypto
@testable import CofferStore
import CofferTestSupport

/// Random draws a test chooses: each request takes the next 8-byte value from `values`
/// (the last one repeats).
final class ScriptedEntropy: SeededEntropy, @unchecked Sendable {
    // @unchecked: `next` is guarded by `lock`.
    private let values: [UInt64]
    private let lock = NSLock()
    private var next = 0

    init(_ values: [UInt64]) { self.values = values }

    func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        lock.lock()
        let value = values[min(next, values.count - 1)]
        next += 1
        lock.unlock()
        for index in 0..<buffer.count {
            buffer[index] = index < 8 ? UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64(index))) : 0
        }
    }
}

/// A state folder in a temporary directory, checked with Foundation, not the seam.
struct ReplicaStateFixture {
    let root: String
    var directory: String { root + "/state/coffer" }

    init(_ url: URL) { root = url.path }

    func store(_ io: FileIO = .live, entropy: EntropySource = .system) -> ReplicaStateStore {
        ReplicaStateStore(directory: directory, io: io, entropy: entropy)
    }

    func replicaFile(_ path: String) throws -> String { try store().replicaFile(for: path) }
    func clockFile(_ vaultID: [UInt8]) throws -> String { try store().clockFile(vaultID: vaultID) }

    func text(_ file: String) -> String? {
        FileManager.default.contents(atPath: file).map { String(decoding: $0, as: UTF8.self) }
    }

    func write(_ text: String, to file: String) throws {
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
    }

    func permissions(_ path: String) -> Int? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.posixPermissions] as? NSNumber)?.intValue
    }

    /// Every file under the state folder whose name marks it as temporary.
    func temporaryFiles() -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).filter { $0.contains(".tmp-") }
    }
}

@Suite("Store: replica state")
struct StoreReplicaStateTests {
    static let vaultA: [UInt8] = Array(0..<16)
    static let vaultB: [UInt8] = Array(repeating: 0xAB, count: 16)

    // MARK: - Replica ids

    @Test("replicaID: made once, non-zero, then reused (also by a new store on the same folder)")
    func createAndReuse() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let id = try f.store().replicaID(forVaultAt: "/home/jane/vault.coffer")
            #expect(id != 0)
            #expect(try f.store().replicaID(forVaultAt: "/home/jane/vault.coffer") == id)
            #expect(try ReplicaStateStore(directory: f.directory).replicaID(forVaultAt: "/home/jane/vault.coffer") == id)
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("Different paths get different ids, each in its own file named by a hash")
    func differentPaths() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let paths = ["/a/vault.coffer", "/b/vault.coffer", "/a/vault.coffer/", "/a/Vault.coffer", ""]
            let ids = try paths.map { try f.store().replicaID(forVaultAt: $0) }
            #expect(Set(ids).count == paths.count)
            #expect(!ids.contains(0))
            let files = try paths.map { try f.replicaFile($0) }
            #expect(Set(files).count == paths.count)
            for file in files {
                let name = (file as NSString).lastPathComponent
                #expect(name.count == 64 && name.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                #expect((file as NSString).deletingLastPathComponent == f.directory + "/replicas")
            }
        }
    }

    @Test("The replica file's exact text; a path with a newline and % is escaped and round-trips")
    func replicaFileFormat() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let id = try f.store(entropy: EntropySource(seeded: ScriptedEntropy([0x0123_4567_89AB_CDEF])))
                .replicaID(forVaultAt: "/home/jane/vault.coffer")
            #expect(id == 0x0123_4567_89AB_CDEF)
            #expect(f.text(try f.replicaFile("/home/jane/vault.coffer")) == "coffer-replica 1\n/home/jane/vault.coffer\n0123456789abcdef\n")

            let odd = "/tmp/a\nb%c\u{7F}d\té"
            let oddID = try f.store().replicaID(forVaultAt: odd)
            #expect(f.text(try f.replicaFile(odd))?.hasPrefix("coffer-replica 1\n/tmp/a%0Ab%25c%7Fd%09é\n") == true)
            #expect(try f.store().replicaID(forVaultAt: odd) == oddID)
        }
    }

    @Test("rotateReplicaID: a fresh id that then sticks; without one, it makes one")
    func rotate() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let path = "/v/vault.coffer"
            let first = try f.store().replicaID(forVaultAt: path)
            let second = try f.store().rotateReplicaID(forVaultAt: path)
            #expect(second != first && second != 0)
            #expect(try f.store().replicaID(forVaultAt: path) == second)
            let third = try f.store().rotateReplicaID(forVaultAt: path)
            #expect(third != second && third != first)
            #expect(try f.store().replicaID(forVaultAt: path) == third)

            let fresh = try f.store().rotateReplicaID(forVaultAt: "/v/other.coffer")
            #expect(fresh != 0)
            #expect(try f.store().replicaID(forVaultAt: "/v/other.coffer") == fresh)
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("Ids are never zero, and a rotation never returns the id it replaces")
    func neverZeroNeverSame() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let zerosFirst = EntropySource(seeded: ScriptedEntropy([0, 0, 0, 42]))
            #expect(try f.store(entropy: zerosFirst).replicaID(forVaultAt: "/a") == 42)

            let repeats = EntropySource(seeded: ScriptedEntropy([42, 42, 0, 42, 7]))
            #expect(try f.store(entropy: repeats).rotateReplicaID(forVaultAt: "/a") == 7)

            let broken = EntropySource(seeded: ScriptedEntropy([0]))
            let error = storeFailure { try f.store(entropy: broken).replicaID(forVaultAt: "/b") }
            guard case .crypto? = error else {
                Issue.record("expected a crypto error, got \(String(describing: error))")
                return
            }
            #expect(f.text(try f.replicaFile("/b")) == nil)
        }
    }

    static let damagedReplicas: [String] = [
        "",
        "garbage",
        "coffer-replica 1\n/p\n0123456789abcdef",              // no final newline
        "coffer-replica 2\n/p\n0123456789abcdef\n",            // unknown version
        "coffer-replica 1\n/p\n0000000000000000\n",            // id zero
        "coffer-replica 1\n/p\n0123456789ABCDEF\n",            // uppercase hex
        "coffer-replica 1\n/p\n0123456789abcde\n",             // 15 digits
        "coffer-replica 1\n/p\n0123456789abcdef\n\n",          // a line too many
        "coffer-replica 1\n/q\n0123456789abcdef\n",            // another path (a collision)
        "coffer-replica 1\n/p%\n0123456789abcdef\n",           // broken escape
        "coffer-replica 1\n/p%41\n0123456789abcdef\n",         // escape of a byte never escaped
        "coffer-replica 1\n/p\r\n0123456789abcdef\n",          // raw control byte
        "\u{FFFD}\u{0}\u{1}\n\n\n",
    ]

    @Test("A damaged replica file is replaced by a fresh id, which then sticks", arguments: damagedReplicas)
    func damagedReplica(contents: String) throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let file = try f.replicaFile("/p")
            try f.write(contents, to: file)
            let id = try f.store().replicaID(forVaultAt: "/p")
            #expect(id != 0 && id != 0x0123_4567_89AB_CDEF)
            #expect(try f.store().replicaID(forVaultAt: "/p") == id)
            #expect(f.text(file)?.hasPrefix("coffer-replica 1\n/p\n") == true)
            #expect(f.permissions(file) == 0o600)
        }
    }

    @Test("Hostile replica files: too large, a symbolic link, a FIFO, a directory")
    func hostileReplicaFiles() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let file = try f.replicaFile("/p")

            // Over the size bound, even if it starts like a good file.
            try f.write("coffer-replica 1\n/p\n0123456789abcdef\n" + String(repeating: "x", count: ReplicaStateStore.maximumFileSize), to: file)
            let big = try f.store().replicaID(forVaultAt: "/p")
            #expect(big != 0x0123_4567_89AB_CDEF)
            #expect(try f.store().replicaID(forVaultAt: "/p") == big)

            // A symbolic link to a good-looking file elsewhere is not followed, and is
            // replaced (the file it points to stays as it was).
            let elsewhere = f.root + "/elsewhere"
            try f.write("coffer-replica 1\n/p\n0123456789abcdef\n", to: elsewhere)
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
            let linked = try f.store().replicaID(forVaultAt: "/p")
            #expect(linked != 0x0123_4567_89AB_CDEF)
            #expect(f.text(elsewhere) == "coffer-replica 1\n/p\n0123456789abcdef\n")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: file)) == nil)

            // A FIFO does not block the read.
            try FileManager.default.removeItem(atPath: file)
            #expect(mkfifo(file, 0o600) == 0)
            let afterFIFO = try f.store().replicaID(forVaultAt: "/p")
            #expect(try f.store().replicaID(forVaultAt: "/p") == afterFIFO)

            // A directory cannot be replaced by a file: a typed error, no temporary file left.
            try FileManager.default.removeItem(atPath: file)
            try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
            guard case .system(.commit, path: file, errno: EISDIR)? = storeFailure({ try f.store().replicaID(forVaultAt: "/p") }) else {
                Issue.record("expected a failed rename over the directory")
                return
            }
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("Concurrent first calls for one path all get the same id")
    func concurrentCreation() async throws {
        try await withTemporaryDirectoryAsync { url async throws in
            let f = ReplicaStateFixture(url)
            let ids = await withTaskGroup(of: UInt64?.self) { group in
                for _ in 0..<16 {
                    group.addTask { try? f.store().replicaID(forVaultAt: "/shared/vault.coffer") }
                }
                var all: [UInt64?] = []
                for await id in group { all.append(id) }
                return all
            }
            #expect(!ids.contains(nil))
            #expect(Set(ids).count == 1)
            let stored = try f.store().replicaID(forVaultAt: "/shared/vault.coffer")
            #expect(ids.allSatisfy { $0 == stored })
            #expect(f.temporaryFiles() == [])
        }
    }

    // MARK: - Clocks

    @Test("remember merges by pointwise maximum; zero counters are not stored")
    func rememberMerges() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let store = f.store()
            #expect(try store.rememberedClock(vaultID: Self.vaultA) == [:])
            try store.remember(clock: [1: 5, 2: 3], vaultID: Self.vaultA)
            #expect(try store.rememberedClock(vaultID: Self.vaultA) == [1: 5, 2: 3])
            try store.remember(clock: [1: 2, 2: 7, 3: 1, 4: 0], vaultID: Self.vaultA)
            #expect(try store.rememberedClock(vaultID: Self.vaultA) == [1: 5, 2: 7, 3: 1])
            try store.remember(clock: [:], vaultID: Self.vaultA)
            try store.remember(clock: [.max: .max], vaultID: Self.vaultA)
            #expect(try ReplicaStateStore(directory: f.directory).rememberedClock(vaultID: Self.vaultA)
                    == [1: 5, 2: 7, 3: 1, .max: .max])
            // Vaults are kept apart.
            #expect(try store.rememberedClock(vaultID: Self.vaultB) == [:])
            try store.remember(clock: [9: 9], vaultID: Self.vaultB)
            #expect(try store.rememberedClock(vaultID: Self.vaultB) == [9: 9])
            #expect(try store.rememberedClock(vaultID: Self.vaultA)[9] == nil)
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("The clock file's exact text: header, vault id, replicas ascending")
    func clockFileFormat() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            try f.store().remember(clock: [0xFF: 10, 0x01: 1, 0xFFFF_FFFF_FFFF_FFFF: 18_446_744_073_709_551_615], vaultID: Self.vaultA)
            let file = try f.clockFile(Self.vaultA)
            #expect((file as NSString).lastPathComponent == "000102030405060708090a0b0c0d0e0f")
            #expect(f.text(file) == """
                coffer-clock 1
                000102030405060708090a0b0c0d0e0f
                0000000000000001 1
                00000000000000ff 10
                ffffffffffffffff 18446744073709551615

                """)
        }
    }

    @Test("Nothing to remember writes nothing; reading creates no folder")
    func noNeedlessWrites() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [:])
            try f.store().remember(clock: [:], vaultID: Self.vaultA)
            try f.store().remember(clock: [5: 0], vaultID: Self.vaultA)
            #expect(!FileManager.default.fileExists(atPath: f.directory))
        }
    }

    @Test("Wrong vault id length and replica id 0 are invalid arguments")
    func invalidArguments() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            for id in [[], Array(Self.vaultA.prefix(15)), Self.vaultA + [0]] {
                guard case .invalidArgument? = storeFailure({ try f.store().rememberedClock(vaultID: id) }) else {
                    Issue.record("vault id of \(id.count) bytes accepted")
                    continue
                }
                guard case .invalidArgument? = storeFailure({ try f.store().remember(clock: [1: 1], vaultID: id) }) else {
                    Issue.record("vault id of \(id.count) bytes accepted")
                    continue
                }
            }
            guard case .invalidArgument? = storeFailure({ try f.store().remember(clock: [0: 1, 1: 1], vaultID: Self.vaultA) }) else {
                Issue.record("replica id 0 accepted")
                return
            }
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [:])
            #expect(CofferError(StoreError.invalidArgument("x")) == .invalidArgument)
        }
    }

    static let damagedClocks: [String] = [
        "",
        "garbage\n",
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 1",         // no final newline
        "coffer-clock 2\n000102030405060708090a0b0c0d0e0f\n",                          // unknown version
        "coffer-clock 1\nabababababababababababababababab\n0000000000000001 1\n",       // another vault
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000002 1\n0000000000000001 1\n",  // unsorted
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 1\n0000000000000001 2\n",  // duplicate
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000000 1\n",      // replica 0
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 0\n",      // counter 0
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 01\n",     // leading zero
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 -1\n",
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 18446744073709551616\n",  // overflow
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001  1\n",     // two spaces
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n000000000000001 1\n",       // 15 digits
        "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n0000000000000001 1\n\n",
    ]

    @Test("A damaged clock reads as empty and the next remember overwrites it", arguments: damagedClocks)
    func damagedClock(contents: String) throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let file = try f.clockFile(Self.vaultA)
            try f.write(contents, to: file)
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [:])
            try f.store().remember(clock: [7: 3], vaultID: Self.vaultA)
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [7: 3])
            #expect(f.permissions(file) == 0o600)
        }
    }

    @Test("A damaged clock is overwritten even by an empty remember; an oversized one reads as empty")
    func damagedClockEdges() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let file = try f.clockFile(Self.vaultA)
            try f.write("garbage", to: file)
            try f.store().remember(clock: [:], vaultID: Self.vaultA)
            #expect(f.text(file) == "coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n")

            let line = "0000000000000001 1\n"
            try f.write("coffer-clock 1\n000102030405060708090a0b0c0d0e0f\n" + line
                        + String(repeating: "0", count: ReplicaStateStore.maximumFileSize), to: file)
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [:])
        }
    }

    /// A remembered clock is bounded as a vault clock is (SPEC.md §17.9: the newest 16,384
    /// entries, and those asked to be kept), so it always fits in its file.
    @Test("A clock of more replicas than a vault clock names is stored bounded, the newest and the kept ones")
    func boundedClock() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            try f.store().remember(clock: [1: 1], vaultID: Self.vaultA)
            let limit = ReplicaStateStore.maximumClockEntries
            let huge = Dictionary(uniqueKeysWithValues: (2...(limit + 500)).map { (UInt64($0), UInt64.max - UInt64($0)) })
            try f.store().remember(clock: huge, vaultID: Self.vaultA, keeping: [1])
            let stored = try f.store().rememberedClock(vaultID: Self.vaultA)
            #expect(stored.count == limit)
            #expect(stored[1] == 1, "the kept replica stays whatever its age")
            #expect(stored[2] == UInt64.max - 2 && stored[UInt64(limit + 500)] == nil, "the newest others stay")
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("Concurrent remembers leave a sound clock whose counters someone remembered")
    func concurrentRemember() async throws {
        try await withTemporaryDirectoryAsync { url async throws in
            let f = ReplicaStateFixture(url)
            await withTaskGroup(of: Void.self) { group in
                for task in 1...8 {
                    group.addTask {
                        for counter in 1...20 {
                            try? f.store().remember(clock: [UInt64(task): UInt64(counter)], vaultID: Self.vaultA)
                        }
                    }
                }
            }
            let clock = try f.store().rememberedClock(vaultID: Self.vaultA)
            // Last rename wins: a merge may be lost, but the file is whole and every
            // counter was remembered by its replica's task. The final round of each
            // task ran after the others' last reads only sometimes, so no more is sure.
            #expect(!clock.isEmpty)
            for (replica, counter) in clock {
                #expect((1...8).contains(replica) && (1...20).contains(counter))
            }
            #expect(f.temporaryFiles() == [])
        }
    }

    // MARK: - Folders, permissions, failures

    @Test("Folders are made with mode 0700 (intermediate ones too), files 0600")
    func permissions() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            _ = try f.store().replicaID(forVaultAt: "/p")
            try f.store().remember(clock: [1: 1], vaultID: Self.vaultA)
            for folder in [f.root + "/state", f.directory, f.directory + "/replicas", f.directory + "/clocks"] {
                #expect(f.permissions(folder) == 0o700, "\(folder)")
            }
            #expect(f.permissions(try f.replicaFile("/p")) == 0o600)
            #expect(f.permissions(try f.clockFile(Self.vaultA)) == 0o600)

            // An existing folder is used as it is.
            let open = f.root + "/open"
            try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o755])
            _ = try ReplicaStateStore(directory: open).replicaID(forVaultAt: "/p")
            #expect(f.permissions(open) == 0o755)
            #expect(f.permissions(open + "/replicas") == 0o700)
        }
    }

    @Test("A file where the state folder should be: a typed error")
    func fileInTheWay() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            try f.write("not a folder", to: f.root + "/state")
            #expect(storeFailure { try f.store().replicaID(forVaultAt: "/p") }
                    == .system(.makeDirectory, path: f.root + "/state", errno: ENOTDIR))
            #expect(storeFailure { try f.store().remember(clock: [1: 1], vaultID: Self.vaultA) }
                    == .system(.makeDirectory, path: f.root + "/state", errno: ENOTDIR))
            // Reading needs no folder.
            #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [:])
        }
    }

    @Test("A folder that cannot be made: a typed error naming it")
    func mkdirFailure() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let injector = StoreFaultInjector([StoreFaultRule(matches: { if case .makeDirectory(let p) = $0 { p.hasSuffix("/state") } else { false } },
                                                              injection: .fail(EACCES))])
            #expect(storeFailure { try f.store(injector.io).replicaID(forVaultAt: "/p") }
                    == .system(.makeDirectory, path: f.root + "/state", errno: EACCES))
            #expect(!FileManager.default.fileExists(atPath: f.root + "/state"))
        }
    }

    @Test("Failed writes leave no temporary file and the stored state as it was",
          arguments: ["rename", "write", "fchmod", "close", "link"])
    func failedWrites(step: String) throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            try f.store().remember(clock: [1: 1], vaultID: Self.vaultA)
            let temporary: @Sendable (String) -> Bool = { $0.contains("/.") && $0.contains(".tmp-") }
            let rule: StoreFaultRule
            switch step {
            case "rename": rule = StoreFaultRule(matches: { if case .rename = $0 { true } else { false } }, injection: .fail(EIO))
            case "write": rule = StoreFaultRule(matches: { if case .write(let p, _) = $0 { temporary(p) } else { false } }, injection: .fail(ENOSPC))
            case "fchmod": rule = StoreFaultRule(matches: { if case .fchmod = $0 { true } else { false } }, injection: .fail(EPERM))
            case "close": rule = StoreFaultRule(matches: { if case .close(let p) = $0 { temporary(p) } else { false } }, injection: .fail(EIO))
            default: rule = StoreFaultRule(matches: { if case .link = $0 { true } else { false } }, injection: .fail(EIO))
            }
            let injector = StoreFaultInjector([rule])
            let store = f.store(injector.io)
            if step == "link" {
                // Only creating a replica id links.
                #expect(storeFailure { try store.replicaID(forVaultAt: "/p") } != nil)
                #expect(f.text(try f.replicaFile("/p")) == nil)
            } else {
                #expect(storeFailure { try store.remember(clock: [1: 2], vaultID: Self.vaultA) } != nil)
                #expect(try f.store().rememberedClock(vaultID: Self.vaultA) == [1: 1])
            }
            #expect(injector.injections == 1)
            #expect(f.temporaryFiles() == [])
        }
    }

    @Test("Without hard links, a new replica id is still stored")
    func noHardLinks() throws {
        try withTemporaryDirectory { url throws in
            let f = ReplicaStateFixture(url)
            let injector = StoreFaultInjector([StoreFaultRule(matches: { if case .link = $0 { true } else { false } },
                                                              injection: .fail(EPERM), times: 10)])
            let id = try f.store(injector.io).replicaID(forVaultAt: "/p")
            #expect(try f.store().replicaID(forVaultAt: "/p") == id)
            #expect(f.temporaryFiles() == [])
        }
    }

    // MARK: - Default folder

    @Test("defaultDirectory: XDG_STATE_HOME if absolute, else HOME/.local/state, else nil")
    func defaultDirectory() {
        let cases: [([String: String], String?)] = [
            (["XDG_STATE_HOME": "/x/state", "HOME": "/home/jane"], "/x/state/coffer"),
            (["XDG_STATE_HOME": "/x/state/", "HOME": "/home/jane"], "/x/state/coffer"),
            (["XDG_STATE_HOME": "relative/state", "HOME": "/home/jane"], "/home/jane/.local/state/coffer"),
            (["XDG_STATE_HOME": "", "HOME": "/home/jane"], "/home/jane/.local/state/coffer"),
            (["HOME": "/home/jane/"], "/home/jane/.local/state/coffer"),
            (["HOME": "/"], "/.local/state/coffer"),
            (["XDG_STATE_HOME": "/"], "/coffer"),
            (["HOME": ""], nil),
            (["HOME": "jane"], nil),
            (["XDG_STATE_HOME": "state"], nil),
            ([:], nil),
        ]
        for (environment, expected) in cases {
            #expect(ReplicaStateStore.defaultDirectory(environment: environment) == expected, "\(environment)")
        }
    }
}

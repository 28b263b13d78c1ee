import CofferTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `coffer sync` refuses a hostile conflict copy cheaply (issue 32): from its start, in
/// bounded time and memory, and remembers it so that later runs do not read it again.
@Suite("coffer sync: copies refused cheaply, and remembered")
struct CLIRefusedCopyTests {
    /// One `coffer` run measured on its own: exit status, wall time and the child's peak
    /// resident set, `VmHWM` of /proc/PID/status read every millisecond until it exits (a
    /// high-water mark: the last reading holds every earlier peak). Not `wait4`'s rusage:
    /// on Linux a child spawned from this large test process inherits its high-water mark at
    /// exec, so `ru_maxrss` says the test process's size, not the child's.
    struct Measured {
        let status: Int32
        let seconds: Double
        let peakKiB: Int
        let stderr: String
    }

    /// Runs `coffer arguments…` with `input` on stdin, as `device`, by `posix_spawn` and `wait4`.
    static func measure(_ arguments: [String], input: String, device: Device, in folder: URL) throws -> Measured {
        let binary = try #require(CLI.binary, "the coffer binary is not built")
        let stdinPath = folder.appendingPathComponent(".stdin-measured").path
        let stderrPath = folder.appendingPathComponent(".stderr-measured").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: stdinPath))
        defer {
            try? FileManager.default.removeItem(atPath: stdinPath)
            try? FileManager.default.removeItem(atPath: stderrPath)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Absolute paths throughout: the child runs in this process's folder.
        let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = device.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let began = Date()
        let spawned = posix_spawn(&pid, binary, &actions, nil, argv, envp)
        try #require(spawned == 0, "posix_spawn: \(spawned)")
        var status: Int32 = 0
        var peakKiB = 0
        var readings = 0
        while true {
            if let kib = Self.highWaterKiB(pid) {
                peakKiB = max(peakKiB, kib)
                readings += 1
            }
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            try #require(reaped == 0 || errno == EINTR, "waitpid: \(errno)")
            usleep(1_000)
        }
        let seconds = Date().timeIntervalSince(began)
        try #require(readings > 0, "the child exited before its memory could be read once")
        let exited = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let stderr = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: stderrPath))) ?? Data(), as: UTF8.self)
        return Measured(status: exited, seconds: seconds, peakKiB: peakKiB, stderr: stderr)
    }

    /// `VmHWM` (peak resident set, KiB) of a running process; nil once it has exited.
    static func highWaterKiB(_ pid: pid_t) -> Int? {
        // Read to the end of the file: /proc files have no size to read by.
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/status") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.dropFirst("VmHWM:".count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
    }

    @Test("A sparse 1,000 MB conflict copy starting with the vault's preamble: refused in under 1 s and 100 MB, every time, the vault unchanged")
    func sparseConflictCopy() throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            let folder = root.appendingPathComponent("Sync")
            try CLIReplicaTests.makeVault(in: folder, services: ["mail"], device: device)
            let vault = folder.appendingPathComponent("vault.coffer")
            let before = try bytes(vault)
            let copy = folder.appendingPathComponent("vault.sync-conflict-20260301-101500-ABCDEF2.coffer")
            try Data(before.prefix(14)).write(to: copy)
            let handle = try FileHandle(forWritingTo: copy)
            try handle.truncate(atOffset: 1_000_000_000)
            try handle.close()

            var kinds: [String] = []
            for (run, extra) in [[], [], ["--retry-refused"]].enumerated() {
                let result = try Self.measure(["sync", vault.path, "--json"] + extra, input: "pw\n", device: device, in: root)
                #expect(result.status == 65, "run \(run): exit \(result.status): \(result.stderr)")
                #expect(result.seconds < 1, "run \(run): \(result.seconds) s")
                #expect(result.peakKiB < 100 * 1024, "run \(run): peak RSS \(result.peakKiB) KiB")
                #expect(try bytes(vault) == before, "run \(run): the vault changed")
                kinds.append(result.stderr.contains("refused before") ? "refusedBefore" : "read")
                Reliability.figure("sync refuses a sparse 1,000 MB copy",
                                   "run \(run + 1)\(extra.isEmpty ? "" : " " + extra[0]): \(String(format: "%.3f", result.seconds)) s, peak RSS \(result.peakKiB / 1024) MB")
            }
            // Read the first time, skipped unread the second, read again when asked.
            #expect(kinds == ["read", "refusedBefore", "read"])

            // `status` lists it; once removed, it is no longer listed, and sync finds nothing.
            let status = try device.ok(["status"], input: "", in: root)
            #expect(status.out.contains(copy.lastPathComponent))
            try FileManager.default.removeItem(at: copy)
            #expect(!(try device.ok(["status"], input: "", in: root)).out.contains(copy.lastPathComponent))
            try device.ok(["sync", vault.path], in: root)
        }
    }

    @Test("sync --json names a copy refused before with the refusedBefore kind, and merges the other copies")
    func refusedBeforeInJSON() throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            let folder = root.appendingPathComponent("Sync")
            try CLIReplicaTests.makeVault(in: folder, services: ["mail"], device: device)
            let other = root.appendingPathComponent("Other")
            try CLIReplicaTests.makeVault(in: other, services: ["bank"], device: device)
            let foreign = folder.appendingPathComponent("vault.sync-conflict-20260301-101500-FOREIGN.coffer")
            try FileManager.default.copyItem(at: other.appendingPathComponent("vault.coffer"), to: foreign)
            let first = try device.run(["sync", "vault.coffer", "--json"], in: folder)
            #expect(first.status == 65)
            #expect(first.err.contains("remembered on this device"))

            // A good copy appears beside it: it merges; the foreign one is skipped unread.
            let good = folder.appendingPathComponent("vault (conflicted copy 2026-03-01 101500).coffer")
            try FileManager.default.copyItem(at: folder.appendingPathComponent("vault.coffer"), to: good)
            let second = try device.run(["sync", "vault.coffer", "--json"], in: folder)
            #expect(second.status == 65)
            let report = try second.jsonObject()
            #expect(report["merged"] as? Int == 1)
            let files = try #require(report["files"] as? [[String: Any]])
            let refused = try #require(files.first { ($0["path"] as? String)?.contains("FOREIGN") == true })
            #expect(refused["error"] as? String == "refusedBefore", "\(refused)")
        }
    }
}

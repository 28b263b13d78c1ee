import Foundation
import Testing
import CofferCrypto
import CofferTestSupport

/// Issue 15, findings 14 and 15: no core dumps or crash output with memory contents, and
/// guarded memory that could not be locked into RAM is reported, or refused on request.
/// The processes run for real: `coffer` and `CofferTestWriter`, under `setpriv`/`prlimit`
/// (util-linux) to take away what root would otherwise have (CAP_IPC_LOCK, its own uid).
@Suite("Crypto: process hardening (undumpable, quiet crashes, locked memory)", .serialized)
struct CryptoProcessHardeningTests {
    /// A product started with its stdin left open, so that it waits (`coffer estimate`
    /// waits for the password to rate).
    final class Waiting {
        let process = Process()
        private let input = Pipe()
        private let errors = Pipe()

        init(_ executable: String, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
        }

        var pid: Int32 { process.processIdentifier }

        /// Waits until the process runs `name` (after any `setpriv` exec) and sleeps in a read.
        func waitUntilWaiting(as name: String) -> Bool {
            for _ in 0..<400 {
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                // The state letter follows the parenthesised command name.
                let state = stat.split(separator: ")").last?.split(separator: " ").first
                if comm == name, state == "S" { return true }
                usleep(25_000)
            }
            return false
        }

        func finish() -> (signal: Int32?, status: Int32, stderr: String) {
            try? input.fileHandleForWriting.close()
            let text = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let signal = process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil
            return (signal, process.terminationStatus, String(decoding: text, as: UTF8.self))
        }
    }

    static var coffer: String { buildProductsDirectory().appendingPathComponent("coffer").path }
    static var writer: String { buildProductsDirectory().appendingPathComponent("CofferTestWriter").path }

    /// A copy of `coffer` in a folder every user can read, for a run as `nobody`.
    static func publicCopyOfCoffer() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-hardening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let copy = folder.appendingPathComponent("coffer")
        try FileManager.default.copyItem(atPath: coffer, toPath: copy.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
        return copy.path
    }

    static func coreLimit(_ pid: Int32) -> String? {
        guard let limits = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8) else { return nil }
        return limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
            .map { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).joined(separator: " ") }
    }

    @Test("coffer is undumpable with a core limit of 0 while it waits for a secret (run as nobody)")
    func cofferIsUndumpable() throws {
        #if os(Linux)
        let copy = try Self.publicCopyOfCoffer()
        defer { try? FileManager.default.removeItem(atPath: (copy as NSString).deletingLastPathComponent) }
        let child = try Waiting("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", copy, "estimate"])
        defer { _ = child.finish() }
        #expect(child.waitUntilWaiting(as: "coffer"))
        #expect(Self.coreLimit(child.pid) == "0 0")
        // /proc/PID of an undumpable process belongs to root, whatever the process's uid.
        var info = stat()
        #expect(stat("/proc/\(child.pid)/status", &info) == 0)
        #expect(info.st_uid == 0, "/proc/\(child.pid) belongs to uid \(info.st_uid): the process is dumpable")
        let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t65534"))
        #endif
    }

    @Test("A crash of coffer prints one line and no registers or memory, and dies of the signal",
          arguments: [SIGSEGV, SIGBUS, SIGILL, SIGTRAP])
    func quietCrash(_ signal: Int32) throws {
        let child = try Waiting(Self.coffer, ["estimate"])
        #expect(child.waitUntilWaiting(as: "coffer"))
        _ = kill(child.pid, signal)
        let result = child.finish()
        #expect(result.signal == signal)
        #expect(result.stderr.contains("crashed; no memory contents are shown"))
        for needle in ["Registers", "rax", "rip", "0x", "Backtrace", "Thread 0"] {
            #expect(!result.stderr.contains(needle), "crash output shows \(needle): \(result.stderr.prefix(400))")
        }
    }

    @Test("The library call: undumpable, core limit 0, and the status reads back")
    func libraryCall() throws {
        try ProcessHardening.apply()
        #expect(!ProcessHardening.isDumpable)
        #if os(Linux)
        #expect(Self.coreLimit(getpid()) == "0 0")
        #endif
    }

    /// `setpriv` without CAP_IPC_LOCK and `prlimit` with no lockable memory: what an
    /// ordinary user with `ulimit -l 0` has.
    static let withoutLockableMemory = ["/usr/bin/setpriv", "--inh-caps=-ipc_lock", "--bounding-set=-ipc_lock",
                                        "/usr/bin/prlimit", "--memlock=0:0"]

    @Test("Memory that cannot be locked: counted by default, refused with .required (a region of its own, or a pooled slab)",
          arguments: ["65536", "32"])
    func unlockedMemory(bytes: String) throws {
        #if os(Linux)
        let bestEffort = try runProductCapturingCommand(Self.withoutLockableMemory + [Self.writer, "secure-memory", "best-effort", bytes])
        #expect(bestEffort.status == 0)
        let counted = bestEffort.stdout.split(separator: "=").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        #expect(bestEffort.stdout.hasPrefix("allocated \(bytes) "))
        #expect((counted ?? 0) >= 1)

        let required = try runProductCapturingCommand(Self.withoutLockableMemory + [Self.writer, "secure-memory", "required", bytes])
        #expect(required.stdout.hasPrefix("refused"), "\(required.stdout) \(required.stderr)")

        // Control: with lockable memory, nothing is counted or refused.
        let normal = try runProductCapturingCommand([Self.writer, "secure-memory", "required", bytes])
        #expect(normal.stdout == "allocated \(bytes) unlocked=0\n")
        #endif
    }

    @Test("coffer warns once when secrets could not be locked into RAM, and still works")
    func cofferWarnsAboutUnlockedMemory() throws {
        #if os(Linux)
        let limited = try runProductCapturingCommand(Self.withoutLockableMemory + [Self.coffer, "generate", "--count", "3"])
        #expect(limited.status == 0)
        #expect(limited.stdout.split(separator: "\n").count == 3)
        #expect(limited.stderr.components(separatedBy: "could not be locked into RAM").count == 2, "\(limited.stderr)")

        let normal = try runProductCapturingCommand([Self.coffer, "generate", "--count", "3"])
        #expect(normal.status == 0)
        #expect(!normal.stderr.contains("locked into RAM"))
        #endif
    }
}

/// Runs a command line to the end (stdin empty): status, stdout, stderr.
private func runProductCapturingCommand(_ command: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let result = try runProcess(URL(fileURLWithPath: command[0]), Array(command.dropFirst()))
    return (result.status, result.out, result.err)
}

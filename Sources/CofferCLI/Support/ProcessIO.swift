import CCofferSystem
import Coffer
import Foundation
// The one file of the CLI that imports the C library: the process itself (its standard
// descriptors, SIGPIPE, exit) and the helper programs it starts (the clipboard tools:
// finding them on PATH, posix_spawn through CCofferSystem, their pipes, waitpid). Files
// the user names (vaults, copies, key files, imports, exports) are the library's: every
// call on them goes through the store's I/O seam (Coffer's FileChecks, FileVersion, Vault).
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's own descriptors and signals, in C terms, for the rest of the CLI.
enum ProcessIO {
    static let standardInput: Int32 = 0
    static let standardOutput: Int32 = 1
    static let standardError: Int32 = 2

    /// Writes all of `bytes` to `fd` with plain `write(2)` (no stdio buffer holds a secret),
    /// retrying after signals; nil when written, else the `errno` of the failed write.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            // A descriptor that takes nothing would loop forever.
            guard n > 0 else { return EIO }
            offset += n
        }
        return nil
    }

    /// Whether `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// The C library's text for `code`, e.g. "Permission denied".
    static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }

    /// A closed pipe becomes a write error (EPIPE) instead of killing the process.
    static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

    /// Ends the process with `status`.
    static func exit(_ status: Int32) -> Never { cExit(status) }

    /// Keeps `value` until the process exits, never releasing it. `coffer` runs one command
    /// and exits: freeing what a command printed only delays that exit (a listing of 100,000
    /// rows took 24 ms of one core to free, after its last line was out). Only for what is
    /// not secret (listed rows, overviews): secrets live in guarded memory that is wiped when
    /// released, and a value kept here never is.
    static func keepUntilExit(_ value: some Sendable) { KeptUntilExit.shared.append(value) }

    /// Whether `path` is a program this process may run (`access(X_OK)`): finding a
    /// clipboard tool on PATH, as posix_spawnp would.
    static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Closes standard input (the clipboard clearer, once it has read the secret).
    static func closeStandardInput() { close(standardInput) }

    /// Holds SIGINT, SIGTERM and SIGHUP pending instead of ending the process, so a
    /// long-running command (`ssh-agent`) can notice them (``terminationRequested``) and
    /// clean up (its socket) before it exits.
    static func holdTerminationSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for signo in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, signo) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Whether a signal ``holdTerminationSignals()`` holds has arrived.
    static var terminationRequested: Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return [SIGINT, SIGTERM, SIGHUP].contains { sigismember(&pending, $0) == 1 }
    }

    /// Sleeps for `seconds`.
    static func sleep(seconds: Int) { _ = cSleep(UInt32(clamping: max(0, seconds))) }
}

/// `coffer run`: the process becomes `program` (`execvp`, found on PATH as a shell would),
/// so the command's exit status and signals are its own and no copy of a secret outlives
/// the exec in this process's memory.
enum ProgramExec {
    /// The largest secret `--stdin` hands over: it goes through a pipe written before the
    /// exec, so it must fit the pipe's buffer (64 KiB on Linux, 16 KiB on macOS).
    static let maximumStdinSecret = 16 * 1024

    /// Replaces this process with `program arguments…`, with this process's environment
    /// plus `variables` (each set, replacing one of the same name), and `stdinSecret`, when
    /// given, as its whole standard input. Returns only by throwing: a secret with a NUL
    /// byte (no environment can hold it), a pipe that cannot be made, or a program that
    /// cannot be run (127: not found, 126: not executable, as a shell says).
    static func replaceProcess(with program: String, _ arguments: [String], variables: [(name: String, value: SecureBytes)],
                               stdinSecret: SecureBytes?) throws -> Never {
        let overridden = Set(variables.map(\.name))
        // The environment for execve is plain C memory: the secrets are copied out of guarded
        // memory only here, just before the exec replaces this process image (and on a
        // failed exec, wiped before the error is reported).
        var entries: [(pointer: UnsafeMutablePointer<CChar>, length: Int)] = []
        defer { for entry in entries { memset(entry.pointer, 0, entry.length); free(entry.pointer) } }
        var index = 0
        while let entry = currentEnvironment[index] {
            index += 1
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overridden.contains(name) { continue }
            guard let copy = strdup(entry) else { throw CLIFailure(.ioError, "out of memory") }
            entries.append((copy, strlen(copy) + 1))
        }
        for (name, value) in variables {
            let length = name.utf8.count + 1 + value.count + 1
            guard let buffer = malloc(length)?.assumingMemoryBound(to: CChar.self) else { throw CLIFailure(.ioError, "out of memory") }
            entries.append((buffer, length))
            let nul = value.withUnsafeBytes { bytes -> Bool in
                guard !bytes.contains(0) else { return true }
                var offset = 0
                for byte in name.utf8 { buffer[offset] = CChar(bitPattern: byte); offset += 1 }
                buffer[offset] = 0x3D; offset += 1   // "="
                for byte in bytes { buffer[offset] = CChar(bitPattern: byte); offset += 1 }
                buffer[offset] = 0
                return false
            }
            if nul { throw CLIFailure(.usage, "the secret for \(name) holds a NUL byte, which no environment variable can carry") }
        }
        if let stdinSecret {
            guard stdinSecret.count <= maximumStdinSecret else {
                throw CLIFailure(.usage, "--stdin hands over at most \(maximumStdinSecret) bytes; this secret has \(stdinSecret.count)")
            }
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw CLIFailure(.ioError, "cannot make a pipe: \(ProcessIO.errorText(errno))") }
            let flags = fcntl(fds[1], F_GETFL)
            _ = fcntl(fds[1], F_SETFL, flags | O_NONBLOCK)
            let failed = stdinSecret.withUnsafeBytes { ProcessIO.writeAll(fds[1], $0) }
                ?? [UInt8(10)].withUnsafeBytes { ProcessIO.writeAll(fds[1], $0) }
            close(fds[1])
            if let failed {
                close(fds[0])
                throw CLIFailure(.ioError, "cannot hand the secret to the command's standard input: \(ProcessIO.errorText(failed))")
            }
            guard dup2(fds[0], ProcessIO.standardInput) >= 0 else { throw CLIFailure(.ioError, "cannot set the command's standard input") }
            close(fds[0])
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = entries.map { Optional($0.pointer) } + [nil]
        let path = program.contains("/") ? program : searchPath(program)
        guard let path else { throw CLIFailure(.commandNotFound, "cannot run \(program): not found on PATH") }
        _ = execve(path, &argv, &envp)
        let code = errno
        throw CLIFailure(code == ENOENT ? .commandNotFound : .commandNotRunnable, "cannot run \(program): \(ProcessIO.errorText(code))")
    }

    /// `program` found on PATH as `execvp` finds it: the first executable file.
    private static func searchPath(_ program: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        return path.split(separator: ":", omittingEmptySubsequences: false)
            .map { ($0.isEmpty ? "." : String($0)) + "/" + program }
            .first { ProcessIO.isExecutable($0) }
    }

    /// The process's environment, as `execve` takes it.
    private static var currentEnvironment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
        #if canImport(Darwin)
        return _NSGetEnviron().pointee!
        #else
        return environ
        #endif
    }
}

// The C functions under names the members above do not shadow.
private func cExit(_ status: Int32) -> Never { exit(status) }
private func cSleep(_ seconds: UInt32) -> UInt32 { sleep(seconds) }

/// A helper program (a clipboard tool) started with `posix_spawn`, not Foundation's `Process`.
///
/// Why: `Process.waitUntilExit()` on Linux waits for a descriptor that the child inherits to
/// close, and a tool that leaves a daemon behind to serve the selection (xclip, xsel,
/// wl-copy) keeps it open for good: `coffer get --clip` never returned. Here the child gets
/// stdin, stdout and stderr only, and the wait is `waitpid` with a deadline.
struct ChildProcess {
    let pid: pid_t
    /// Our end of the child's stdin (when asked for), to write and close.
    let input: Int32?
    /// Our end of the child's stdout (when asked for), to read.
    let output: Int32?

    /// Starts `path arguments…`; `pipeInput`/`pipeOutput` connect its stdin/stdout to us,
    /// otherwise they are /dev/null, as is its stderr. `detached`: a session of its own.
    static func spawn(_ path: String, _ arguments: [String], pipeInput: Bool, pipeOutput: Bool = false,
                      detached: Bool = false) throws -> ChildProcess {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        if pipeInput { guard makePipe(&inPipe) else { throw failure("pipe", errno) } }
        if pipeOutput {
            guard makePipe(&outPipe) else {
                closeAll(inPipe)
                throw failure("pipe", errno)
            }
        }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: Int32 = 0
        let status = coffer_spawn(path, &argv, inPipe[0], outPipe[1], -1, detached ? 1 : 0, &pid)
        // The child's ends are its own now (or unused on failure).
        if inPipe[0] >= 0 { close(inPipe[0]) }
        if outPipe[1] >= 0 { close(outPipe[1]) }
        guard status == 0 else {
            if inPipe[1] >= 0 { close(inPipe[1]) }
            if outPipe[0] >= 0 { close(outPipe[0]) }
            throw failure("start \(path)", status)
        }
        return ChildProcess(pid: pid, input: pipeInput ? inPipe[1] : nil, output: pipeOutput ? outPipe[0] : nil)
    }

    /// Writes all of `secret` to the child's stdin from guarded memory, then closes it.
    /// False when the child stopped reading.
    func send(_ secret: SecureBytes) -> Bool {
        guard let input else { return false }
        defer { close(input) }
        return secret.withUnsafeBytes { bytes in ProcessIO.writeAll(input, bytes) == nil }
    }

    /// Everything the child writes to stdout, up to `limit` bytes, straight into guarded memory.
    func receive(limit: Int) throws -> SecureBytes {
        guard let output else { return try SecureBytes(copying: []) }
        defer { close(output) }
        return try Self.readAll(fd: output, limit: limit)
    }

    /// Every byte of `fd` to its end (nothing dropped), up to `limit`, into guarded memory.
    static func readAll(fd: Int32, limit: Int) throws -> SecureBytes {
        let buffer = WipingBuffer(capacity: 256)
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { SecureBytes.wipe(&chunk) }
        while buffer.count <= limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        return try buffer.secureBytes()
    }

    /// Waits up to `timeout` for the child to exit; its exit status, or nil after killing
    /// it at the deadline.
    func wait(timeout: Duration) -> Int32? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if reaped < 0 && errno != EINTR { return nil }
            if clock.now >= deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return nil
            }
            usleep(5_000)
        }
    }

    /// A pipe whose ends are not inherited by other programs we start.
    private static func makePipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private static func closeAll(_ fds: [Int32]) { for fd in fds where fd >= 0 { close(fd) } }

    private static func failure(_ what: String, _ code: Int32) -> CLIFailure {
        CLIFailure(.ioError, "cannot \(what): \(ProcessIO.errorText(code))")
    }
}

/// What ``ProcessIO/keepUntilExit(_:)`` holds.
final class KeptUntilExit: @unchecked Sendable {
    // @unchecked: `values` is guarded by `lock` (a command's own thread adds to it; a lock all the same).
    static let shared = KeptUntilExit()
    private let lock = NSLock()
    private var values: [any Sendable] = []

    func append(_ value: any Sendable) { lock.withLock { values.append(value) } }

    /// How many values are kept.
    var count: Int { lock.withLock { values.count } }
}

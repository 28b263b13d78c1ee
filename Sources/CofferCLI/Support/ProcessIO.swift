import CCofferSystem
import Coffer
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

    /// Whether `path` is a program this process may run (`access(X_OK)`): finding a
    /// clipboard tool on PATH, as posix_spawnp would.
    static func isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

    /// Closes standard input (the clipboard clearer, once it has read the secret).
    static func closeStandardInput() { close(standardInput) }

    /// Sleeps for `seconds`.
    static func sleep(seconds: Int) { _ = cSleep(UInt32(clamping: max(0, seconds))) }
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

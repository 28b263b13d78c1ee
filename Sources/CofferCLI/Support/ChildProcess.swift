import CCofferSystem
import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        return secret.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count, let base = bytes.baseAddress {
                let n = write(input, base + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
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
        CLIFailure(.ioError, "cannot \(what): \(String(cString: strerror(code)))")
    }
}

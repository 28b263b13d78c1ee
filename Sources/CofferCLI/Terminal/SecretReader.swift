import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Zeroes memory in a way the compiler may not drop.
func wipeMemory(_ pointer: UnsafeMutableRawPointer?, _ count: Int) {
    guard let pointer, count > 0 else { return }
    #if canImport(Glibc)
    explicit_bzero(pointer, count)
    #else
    _ = memset_s(pointer, count, 0, count)
    #endif
}

/// A growable byte buffer that wipes every copy it leaves behind: on growth, on
/// `wipe()` and on release. Secrets read from stdin or a terminal go through it
/// straight into ``SecureBytes``.
final class WipingBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit {
        wipeMemory(pointer, capacity)
        pointer.deallocate()
    }

    func append(_ byte: UInt8) {
        if count == capacity { grow(to: capacity * 2) }
        pointer[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, let base = bytes.baseAddress else { return }
        if count + bytes.count > capacity {
            var next = capacity
            while next < count + bytes.count { next *= 2 }
            grow(to: next)
        }
        (pointer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    func removeLast() {
        guard count > 0 else { return }
        count -= 1
        pointer[count] = 0
    }

    var last: UInt8? { count > 0 ? pointer[count - 1] : nil }

    /// Copies the contents straight into guarded memory: no ordinary-memory copy.
    func secureBytes() throws -> SecureBytes {
        let source = UnsafeRawBufferPointer(start: pointer, count: count)
        return try SecureBytes(count: count) { (out) throws(CofferError) in out.copyMemory(from: source) }
    }

    func wipe() {
        wipeMemory(pointer, capacity)
        count = 0
    }

    private func grow(to newCapacity: Int) {
        let next = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        next.update(from: pointer, count: count)
        wipeMemory(pointer, capacity)
        pointer.deallocate()
        pointer = next
        capacity = newCapacity
    }
}

/// Reads secrets: lines from a pipe, or typed on a terminal with echo off.
///
/// When standard input is not a terminal, its lines are consumed in order: the
/// master password first, then whatever the command documents (an item's password,
/// a new master password, secret field values).
enum SecretReader {
    /// True when standard input is a terminal (then secrets are prompted for).
    static var isInteractive: Bool { isatty(0) == 1 }

    /// Reads one line from `fd` (up to, not including, "\n"; one trailing "\r" is
    /// dropped). Returns nil at end of input before any byte.
    static func readLine(fd: Int32) throws -> SecureBytes? {
        let buffer = WipingBuffer()
        defer { buffer.wipe() }
        var byte: UInt8 = 0
        var sawAny = false
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                byte = 0
                throw CLIFailure(.ioError, "cannot read standard input: \(String(cString: strerror(code)))")
            }
            if n == 0 { break }
            sawAny = true
            if byte == 10 { break }
            buffer.append(byte)
        }
        byte = 0
        guard sawAny else { return nil }
        if buffer.last == 13 { buffer.removeLast() }
        return try buffer.secureBytes()
    }

    /// Reads standard input to its end (for a secure note's text). One trailing
    /// newline ("\n" or "\r\n") is dropped.
    static func readAll(fd: Int32 = 0) throws -> SecureBytes {
        let buffer = WipingBuffer(capacity: 4096)
        defer { buffer.wipe() }
        let chunk = WipingBuffer(capacity: 4096)
        defer { chunk.wipe() }
        while true {
            let n = read(fd, chunk.pointer, chunk.capacity)
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIFailure(.ioError, "cannot read standard input: \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            buffer.append(UnsafeRawBufferPointer(start: chunk.pointer, count: n))
            guard buffer.count <= 16 << 20 else { throw CLIFailure(.usage, "the text on standard input is larger than 16 MiB") }
        }
        if buffer.last == 10 {
            buffer.removeLast()
            if buffer.last == 13 { buffer.removeLast() }
        }
        return try buffer.secureBytes()
    }

    /// Prompts on the terminal with echo off and reads one line.
    static func prompt(_ text: String) throws -> SecureBytes {
        let (fd, owned) = TerminalEcho.openTerminal()
        defer { if owned { close(fd) } }
        // Echo goes off before the prompt shows, so nothing typed after it is echoed.
        let line = try TerminalEcho.withEchoOff(fd: fd) { () throws -> SecureBytes? in
            Output.error(text, newline: false)
            return try readLine(fd: fd)
        }
        Output.error("")
        guard let line else { throw CLIFailure(.usage, "no password entered") }
        return line
    }

    /// The next secret: a prompt on a terminal, else the next line of standard input.
    /// `what` names it in messages, e.g. "the master password".
    static func next(prompt text: String, what: String) throws -> SecureBytes {
        if isInteractive { return try prompt(text) }
        guard let line = try readLine(fd: 0) else {
            throw CLIFailure(.usage, "expected \(what) on the next line of standard input")
        }
        return line
    }

    /// The master password that opens a vault.
    static func masterPassword(for vault: String) throws -> SecureBytes {
        try next(prompt: "Master password for \(vault): ", what: "the master password")
    }

    /// A new secret chosen by the user: asked twice on a terminal (a mismatch is
    /// refused), one line on a pipe. Empty secrets are refused.
    static func newSecret(prompt text: String, what: String) throws -> SecureBytes {
        let first = try next(prompt: text, what: what)
        guard first.count > 0 else { throw CLIFailure(.usage, "\(what) must not be empty") }
        if isInteractive {
            let again = try prompt("Retype to confirm: ")
            guard again == first else { throw CLIFailure(.usage, "the two entries do not match; nothing was changed") }
        }
        return first
    }
}

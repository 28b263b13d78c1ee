import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads secrets from standard input or the terminal, straight into guarded memory.
///
/// Every byte goes through a ``WipingBuffer`` into ``SecureBytes``: no `String`, no
/// stdio buffer and no array that leaves an unwiped copy behind. A prompt turns echo
/// off on the terminal and always turns it back on: when the read ends or fails, and on
/// Ctrl-C, Ctrl-Z, SIGTERM, SIGHUP and SIGQUIT.
///
/// ```swift
/// import CofferTerminal
///
/// let password: SecureBytes?
/// if SecretInput.isInteractive {
///     password = try SecretInput.prompt("Master password: ")   // echo off, signal-safe
/// } else {
///     password = try SecretInput.readLine()                    // the next line of a pipe
/// }
/// ```
///
/// Read lines with these functions only: mixing them with `readLine()` or other stdio
/// reads of standard input loses the lines stdio has buffered.
public enum SecretInput {
    /// True when standard input is a terminal (then secrets are prompted for).
    public static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Reads one line from `fd` (up to, not including, "\n"; one trailing "\r" is
    /// dropped). Returns nil at end of input before any byte.
    public static func readLine(fd: Int32 = STDIN_FILENO) throws(TerminalError) -> SecureBytes? {
        let buffer = WipingBuffer(capacity: 256)
        defer { buffer.removeAll() }
        guard try readLine(fd: fd, into: buffer) else { return nil }
        return try secure(buffer)
    }

    /// Reads one line of non-secret text (a menu choice, a user name); nil at end of input.
    /// Invalid UTF-8 is repaired with U+FFFD.
    public static func readTextLine(fd: Int32 = STDIN_FILENO) throws(TerminalError) -> String? {
        let buffer = WipingBuffer(capacity: 256)
        defer { buffer.removeAll() }
        guard try readLine(fd: fd, into: buffer) else { return nil }
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// Reads `fd` to its end (a secure note's text, a secret piped in whole). One trailing
    /// newline ("\n" or "\r\n") is dropped. More than `limit` bytes is
    /// ``TerminalError/Kind/inputTooLarge``.
    public static func readAll(fd: Int32 = STDIN_FILENO, limit: Int) throws(TerminalError) -> SecureBytes {
        let buffer = WipingBuffer(capacity: 4096)
        defer { buffer.removeAll() }
        let chunk = WipingBuffer(capacity: 4096)
        defer { chunk.removeAll() }
        while true {
            let n = read(fd, chunk.pointer, chunk.capacity)
            if n < 0 {
                if errno == EINTR { continue }
                throw TerminalError(.readFailed, errno: errno)
            }
            if n == 0 { break }
            buffer.append(UnsafeRawBufferPointer(start: chunk.pointer, count: n))
            guard buffer.count <= limit else { throw TerminalError(.inputTooLarge, limit: limit) }
        }
        if buffer.last == 10 {
            buffer.removeLast()
            if buffer.last == 13 { buffer.removeLast() }
        }
        return try secure(buffer)
    }

    /// Shows `text` on `promptFD` (standard error by default) and reads one line typed on
    /// the terminal with echo off; a newline follows on `promptFD` once the line is read.
    /// The terminal is `/dev/tty` when it is the one on standard input, else standard
    /// input itself. Returns nil at end of input (Ctrl-D) before any byte.
    ///
    /// Call it when ``isInteractive`` is true; on a pipe, use ``readLine(fd:)``.
    public static func prompt(_ text: String, promptFD: Int32 = STDERR_FILENO) throws(TerminalError) -> SecureBytes? {
        let (fd, owned) = TerminalEcho.openTerminal()
        defer { if owned { close(fd) } }
        // Anything the caller printed through stdio goes out before the prompt.
        fflush(nil)
        // Echo goes off before the prompt shows, so nothing typed after it is echoed.
        let line = try TerminalEcho.withEchoOff(fd: fd) { () throws(TerminalError) -> SecureBytes? in
            emit(text, to: promptFD)
            return try readLine(fd: fd)
        }
        emit("\n", to: promptFD)
        return line
    }

    /// Reads up to "\n" into `buffer`; false at end of input before any byte.
    private static func readLine(fd: Int32, into buffer: WipingBuffer) throws(TerminalError) -> Bool {
        var byte: UInt8 = 0
        defer { byte = 0 }
        var sawAny = false
        while true {
            let n = read(fd, &byte, 1)
            if n < 0 {
                if errno == EINTR { continue }
                throw TerminalError(.readFailed, errno: errno)
            }
            if n == 0 { break }
            sawAny = true
            if byte == 10 { break }
            buffer.append(byte)
        }
        guard sawAny else { return false }
        if buffer.last == 13 { buffer.removeLast() }
        return true
    }

    private static func secure(_ buffer: WipingBuffer) throws(TerminalError) -> SecureBytes {
        do {
            return try buffer.secureBytes()
        } catch {
            throw TerminalError(.secureMemoryUnavailable, errno: 0)
        }
    }

    private static func emit(_ text: String, to fd: Int32) {
        var copy = text
        copy.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let n = write(fd, base + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return }
                offset += n
            }
        }
    }
}

/// Why reading from standard input or the terminal failed. Never carries what was typed.
public struct TerminalError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// `read` failed (``TerminalError/errno`` says why).
        case readFailed
        /// The terminal's settings could not be read, so echo cannot be turned off.
        case terminalSettingsUnavailable
        /// Echo could not be turned off: nothing was read.
        case echoNotDisabled
        /// ``SecretInput/readAll(fd:limit:)`` read more than its limit.
        case inputTooLarge
        /// Guarded memory for the secret could not be allocated.
        case secureMemoryUnavailable
    }

    public let kind: Kind
    /// The system's error number, or 0.
    public let errno: Int32
    /// For ``Kind/inputTooLarge``: the limit in bytes.
    public let limit: Int

    init(_ kind: Kind, errno: Int32 = 0, limit: Int = 0) {
        self.kind = kind
        self.errno = errno
        self.limit = limit
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch kind {
        case .readFailed: return "cannot read standard input: \(reason)"
        case .terminalSettingsUnavailable: return "cannot read the terminal settings: \(reason)"
        case .echoNotDisabled: return "cannot turn off terminal echo: \(reason)"
        case .inputTooLarge: return "the text on standard input is larger than \(limit >> 20) MiB"
        case .secureMemoryUnavailable: return "guarded memory for the secret is unavailable"
        }
    }
}

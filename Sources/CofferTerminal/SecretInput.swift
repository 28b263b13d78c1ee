import Coffer

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
    public static var isInteractive: Bool { TerminalIO.isTerminal(TerminalIO.standardInput) }

    /// The longest line ``readLine(fd:)``, ``readTextLine(fd:)`` and ``prompt(_:promptFD:)``
    /// accept: 64 KiB. A longer line (or endless input without a newline, such as
    /// `/dev/zero`) is ``TerminalError/Kind/lineTooLong`` after reading at most this much.
    public static let maxLineLength = 64 * 1024

    /// Reads one line from `fd`, standard input (0) by default: up to, not including, "\n";
    /// one trailing "\r" is dropped. Returns nil at end of input before any byte. A line over
    /// ``maxLineLength`` bytes is ``TerminalError/Kind/lineTooLong``.
    ///
    /// Input is read in blocks, yet no more of `fd` is consumed than the line: on a file
    /// the bytes after the newline are given back (`lseek`); on a pipe or terminal they are
    /// kept, in memory that is wiped, for the next call of these functions on `fd`.
    public static func readLine(fd: Int32 = 0) throws(TerminalError) -> SecureBytes? {
        let buffer = WipingBuffer(capacity: 256)
        defer { buffer.removeAll() }
        guard try readLine(fd: fd, into: buffer) else { return nil }
        return try secure(buffer)
    }

    /// Reads one line of non-secret text (a menu choice, a user name); nil at end of input.
    /// Invalid UTF-8 is repaired with U+FFFD.
    public static func readTextLine(fd: Int32 = 0) throws(TerminalError) -> String? {
        let buffer = WipingBuffer(capacity: 256)
        defer { buffer.removeAll() }
        guard try readLine(fd: fd, into: buffer) else { return nil }
        return String(decoding: buffer.bytes, as: UTF8.self)
    }

    /// Reads `fd` (standard input, 0, by default) to its end (a secure note's text, a secret piped in whole). One trailing
    /// newline ("\n" or "\r\n") is dropped. More than `limit` bytes is
    /// ``TerminalError/Kind/inputTooLarge``.
    public static func readAll(fd: Int32 = 0, limit: Int) throws(TerminalError) -> SecureBytes {
        let buffer = WipingBuffer(capacity: 4096)
        defer { buffer.removeAll() }
        let chunk = WipingBuffer(capacity: 4096)
        defer { chunk.removeAll() }
        // What an earlier line read left over comes first.
        if let rest = Pending.take(fd) {
            buffer.append(rest.bytes)
            rest.removeAll()
            guard buffer.count <= limit else { throw TerminalError(.inputTooLarge, limit: limit) }
        }
        while true {
            let n = try TerminalIO.read(fd, into: chunk.pointer, count: chunk.capacity).get()
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
    public static func prompt(_ text: String, promptFD: Int32 = 2) throws(TerminalError) -> SecureBytes? {
        let (fd, owned) = TerminalEcho.openTerminal()
        defer {
            if owned {
                // Nothing read ahead on this descriptor may reach a later file with its number.
                Pending.take(fd)?.removeAll()
                TerminalIO.close(fd)
            }
        }
        // Anything the caller printed through stdio goes out before the prompt.
        TerminalIO.flushStandardStreams()
        // Echo goes off before the prompt shows, so nothing typed after it is echoed.
        let line = try TerminalEcho.withEchoOff(fd: fd) { () throws(TerminalError) -> SecureBytes? in
            emit(text, to: promptFD)
            return try readLine(fd: fd)
        }
        emit("\n", to: promptFD)
        return line
    }

    /// Prompts on the controlling terminal (`/dev/tty`), whatever standard input is, and
    /// reads one line there with echo off: for a program whose standard input is another
    /// program's pipe (a git credential helper). Nil when the process has no terminal, so
    /// the caller can fail at once instead of waiting; nil too at end of input (Ctrl-D).
    public static func promptOnTerminal(_ text: String) throws(TerminalError) -> SecureBytes? {
        guard let fd = TerminalEcho.openControllingTerminal() else { return nil }
        defer {
            Pending.take(fd)?.removeAll()
            TerminalIO.close(fd)
        }
        let line = try TerminalEcho.withEchoOff(fd: fd) { () throws(TerminalError) -> SecureBytes? in
            emit(text, to: fd)
            return try readLine(fd: fd)
        }
        emit("\n", to: fd)
        return line
    }

    /// Whether bytes read past the last line of `fd` (a pipe, which cannot seek back) are
    /// held for its next read: a program that hands `fd` on (`coffer run` to its command)
    /// would lose them.
    public static func hasReadAhead(fd: Int32 = 0) -> Bool {
        guard let rest = Pending.take(fd) else { return false }
        defer { Pending.keep(rest.bytes, for: fd); rest.removeAll() }
        return rest.count > 0
    }

    /// Reads up to "\n" into `buffer`, a block at a time; false at end of input before
    /// any byte. What follows the newline in the last block is given back to `fd` when it
    /// can seek, else kept for the next read (``Pending``).
    private static func readLine(fd: Int32, into buffer: WipingBuffer) throws(TerminalError) -> Bool {
        var sawAny = false
        var ended = false
        if let rest = Pending.take(fd) {
            defer { rest.removeAll() }
            sawAny = rest.count > 0
            ended = try appendLine(rest.bytes, fd: fd, into: buffer, seekable: false)
        }
        if !ended {
            let block = WipingBuffer(capacity: blockSize)
            defer { block.removeAll() }
            while true {
                let n = try TerminalIO.read(fd, into: block.pointer, count: block.capacity).get()
                if n == 0 { break }
                sawAny = true
                if try appendLine(UnsafeRawBufferPointer(start: block.pointer, count: n), fd: fd, into: buffer, seekable: true) { break }
            }
        }
        guard sawAny else { return false }
        if buffer.last == 13 { buffer.removeLast() }
        return true
    }

    private static let blockSize = 4096

    /// Appends `bytes` up to a newline to `buffer`; true when the line ended. The bytes
    /// after the newline go back to `fd` (when `seekable` and it can seek) or to ``Pending``.
    private static func appendLine(_ bytes: UnsafeRawBufferPointer, fd: Int32, into buffer: WipingBuffer,
                                   seekable: Bool) throws(TerminalError) -> Bool {
        let newline = bytes.firstIndex(of: 10)
        let lineBytes = UnsafeRawBufferPointer(rebasing: bytes[..<(newline ?? bytes.count)])
        guard buffer.count + lineBytes.count <= maxLineLength else {
            throw TerminalError(.lineTooLong, limit: maxLineLength)
        }
        buffer.append(lineBytes)
        guard let newline else { return false }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[(newline + 1)...])
        if !rest.isEmpty && !(seekable && TerminalIO.unread(rest.count, on: fd)) {
            Pending.keep(rest, for: fd)
        }
        return true
    }

    /// Bytes read past a line's end on a descriptor that cannot seek back (a pipe, a
    /// terminal), held for the next read of that descriptor and wiped once taken.
    ///
    /// Reads of one descriptor happen one at a time, as any read of standard input must,
    /// so the table is not locked.
    private enum Pending {
        nonisolated(unsafe) private static var remainders: [Int32: WipingBuffer] = [:]

        static func take(_ fd: Int32) -> WipingBuffer? {
            remainders.removeValue(forKey: fd)
        }

        /// Puts `bytes` before anything already held for `fd` (there is none: a line is
        /// only read past when nothing was held).
        static func keep(_ bytes: UnsafeRawBufferPointer, for fd: Int32) {
            let buffer = WipingBuffer(capacity: bytes.count)
            buffer.append(bytes)
            if let older = remainders.removeValue(forKey: fd) {
                buffer.append(older.bytes)
                older.removeAll()
            }
            remainders[fd] = buffer
        }
    }

    private static func secure(_ buffer: WipingBuffer) throws(TerminalError) -> SecureBytes {
        do {
            return try buffer.secureBytes()
        } catch {
            throw TerminalError(.secureMemoryUnavailable, errno: 0)
        }
    }

    static func emit(_ text: String, to fd: Int32) {
        var copy = text
        copy.withUTF8 { TerminalIO.writeAll(fd, UnsafeRawBufferPointer($0)) }
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
        /// A line was longer than ``SecretInput/maxLineLength``: nothing was returned.
        case lineTooLong
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
        let reason = TerminalIO.errorText(errno)
        switch kind {
        case .readFailed: return "cannot read standard input: \(reason)"
        case .terminalSettingsUnavailable: return "cannot read the terminal settings: \(reason)"
        case .echoNotDisabled: return "cannot turn off terminal echo: \(reason)"
        case .inputTooLarge:
            return "the text on standard input is larger than " + (limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB")
        case .lineTooLong: return "a line of input is longer than \(limit >> 10) KiB; nothing was read from it"
        case .secureMemoryUnavailable: return "guarded memory for the secret is unavailable"
        }
    }
}

import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to stdout and stderr with plain `write(2)`, so secrets never pass through
/// a `String` or a stdio buffer.
enum Output {
    /// Writes a line to standard output.
    static func line(_ text: String) {
        emit(fd: 1, text + "\n")
    }

    /// Writes a diagnostic or prompt to standard error.
    static func error(_ text: String, newline: Bool = true) {
        emit(fd: 2, newline ? text + "\n" : text)
    }

    /// Writes a secret's bytes to standard output, then a newline.
    static func secretLine(_ secret: SecureBytes) throws {
        try secret.withUnsafeBytes { bytes in try writeAll(fd: 1, bytes) }
        try writeAll(fd: 1, [UInt8(10)])
    }

    /// Writes bytes the caller owns (and wipes).
    static func bytes(_ bytes: UnsafeRawBufferPointer, fd: Int32 = 1) throws {
        try writeAll(fd: fd, bytes)
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    private static func emit(fd: Int32, _ text: String) {
        var copy = text
        copy.withUTF8 { buffer in try? writeAll(fd: fd, UnsafeRawBufferPointer(buffer)) }
    }

    private static func writeAll(fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll(fd: fd, $0) }
    }

    private static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw CLIFailure(.ioError, "cannot write to \(fd == 1 ? "standard output" : "standard error"): \(String(cString: strerror(code)))")
            }
            offset += n
        }
    }
}

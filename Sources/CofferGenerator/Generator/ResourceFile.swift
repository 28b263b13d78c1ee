import CofferCrypto
import Foundation

/// Reads whole files: user-supplied word lists (the bundled ones are compiled in: BundledWordList).
enum ResourceFile {
    /// Files larger than this are refused, so a wrong path cannot exhaust memory.
    static let maximumSize = 64 * 1024 * 1024

    /// The bytes of the file at `path`.
    static func read(_ path: String) throws(CofferError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .fileNotFound(path) }
            throw .io(operation: "open", path: path, errno: code)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = chunk.withUnsafeMutableBytes { buffer in
                readBytes(descriptor, buffer.baseAddress, buffer.count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "read", path: path, errno: errno)
            }
            if got == 0 { break }
            guard bytes.count + got <= maximumSize else {
                throw .fileTooLarge("\(path) is larger than \(maximumSize / (1024 * 1024)) MiB")
            }
            bytes.append(contentsOf: chunk[0..<got])
        }
        return bytes
    }

    /// The lines of a UTF-8 text, without line terminators (LF or CRLF).
    /// Throws ``CofferError/Kind/invalidWordList`` naming the line that is not valid UTF-8.
    static func lines(_ bytes: [UInt8], source: String) throws(CofferError) -> [String] {
        var lines: [String] = []
        var lineNumber = 0
        // Split the bytes, not a String: Swift treats "\r\n" as one Character.
        for var line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let text = String(decoding: line, as: UTF8.self)
            // Decoding repairs invalid UTF-8 (String(validating:) needs macOS 15).
            guard text.utf8.elementsEqual(line) else {
                throw .invalidWordList("\(source), line \(lineNumber): not valid UTF-8")
            }
            lines.append(text)
        }
        return lines
    }
}

/// `read(2)`, named apart from the static `read(_:)` above.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

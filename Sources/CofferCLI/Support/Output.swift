import Coffer

/// Writes to stdout and stderr with plain `write(2)`, so secrets never pass through
/// a `String` or a stdio buffer.
enum Output {
    /// Writes a line of human-readable text to standard output, control characters
    /// escaped (``visible(_:)``).
    static func line(_ text: String) {
        emit(fd: 1, visible(text) + "\n")
    }

    /// Writes a diagnostic or prompt to standard error, control characters escaped
    /// (``visible(_:)``).
    static func error(_ text: String, newline: Bool = true) {
        emit(fd: 2, newline ? visible(text) + "\n" : visible(text))
    }

    /// `text` safe to show on a terminal: every control character (C0, DEL and C1, which
    /// could retitle or repaint the terminal, e.g. ESC ] 0 ; title BEL) is written as
    /// `\u{1B}` (hexadecimal, uppercase), and a backslash as `\\`, so the form is never
    /// ambiguous. The one place human-readable output is escaped, whether it goes to a
    /// terminal or a pipe: messages, prompts, `list` and `search`. `--json` escapes the
    /// JSON way; secrets (`get`, `generate`) are printed as they are.
    static func visible(_ text: String) -> String {
        func isControl(_ value: UInt32) -> Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
        // In place for a native string: iterating the UTF-8 view byte by byte took 264
        // million instructions for `coffer list` at 100,000 rows.
        let plain = text.utf8.withContiguousStorageIfAvailable { !needsEscaping(UnsafeRawBufferPointer($0)) }
            ?? !text.utf8.contains(where: needsEscaping)
        guard !plain else { return text }
        var shown = ""
        shown.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                shown += "\\\\"
            } else if isControl(scalar.value) {
                shown += "\\u{" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 2) + "}"
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// A byte that may start what ``visible(_:)`` escapes: a C0 control, DEL, a backslash,
    /// or 0xC2, the first byte of every C1 control (and of U+00A0–U+00BF, which are kept).
    static func needsEscaping(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F || byte == 0x5C || byte == 0xC2 }

    /// Whether any of `bytes` ``needsEscaping(_:)``, eight at a time (every cell of a large
    /// listing is tested): a byte below 0x20 (`(v - 0x20…) & ~v & 0x80…`, exact for whether
    /// one exists), or one equal to 0x7F, 0x5C or 0xC2 (a zero byte of `v ^ c…`).
    static func needsEscaping(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func below(_ v: UInt64, _ n: UInt64) -> UInt64 { (v &- ones &* n) & ~v & highs }
        var index = 0
        while index + 8 <= bytes.count {
            let v = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if below(v, 0x20) | below(v ^ (ones &* 0x7F), 1) | below(v ^ (ones &* 0x5C), 1) | below(v ^ (ones &* 0xC2), 1) != 0 {
                return true
            }
            index += 8
        }
        while index < bytes.count {
            if needsEscaping(bytes[index]) { return true }
            index += 1
        }
        return false
    }

    /// Appends ``visible(_:)`` of the UTF-8 text `bytes` to `out`: the bytes themselves
    /// when nothing in them needs escaping (every cell of a usual listing), so a table
    /// makes no string of them.
    static func appendVisible(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        if !needsEscaping(bytes) {
            out.append(contentsOf: bytes)
        } else {
            out.append(contentsOf: visible(String(decoding: bytes, as: UTF8.self)).utf8)
        }
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

    /// A sentence made a clause inside a line: without its final full stop, so that
    /// `"…: This is a top-10 common password; a longer…"` has no ". ;".
    static func clause(_ sentence: String) -> String {
        var text = Substring(sentence)
        while text.last == "." || text.last == " " { text = text.dropLast() }
        return String(text)
    }

    /// "1 lane", "4 lanes": a count and its noun, in the singular for one.
    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    static var stderrIsTerminal: Bool { ProcessIO.isTerminal(ProcessIO.standardError) }

    /// Coffer's own terminal control on standard error, written as it is (not escaped):
    /// the carriage return and erase-line that take the progress line away. Only
    /// ``ProgressHint`` calls it, with text of its own, never with anything from a vault.
    static func terminalControl(_ sequence: TerminalControl) {
        emit(fd: 2, sequence.rawValue)
    }

    /// The control sequences Coffer itself writes to a terminal.
    enum TerminalControl: String {
        /// Back to the start of the line, then erase to its end: removes the progress line.
        case eraseLine = "\r\u{1B}[K"
    }

    private static func emit(fd: Int32, _ text: String) {
        var copy = text
        copy.withUTF8 { buffer in try? writeAll(fd: fd, UnsafeRawBufferPointer(buffer)) }
    }

    private static func writeAll(fd: Int32, _ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try writeAll(fd: fd, $0) }
    }

    private static func writeAll(fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        if let code = ProcessIO.writeAll(fd, bytes) {
            throw CLIFailure(.ioError, "cannot write to \(fd == 1 ? "standard output" : "standard error"): \(ProcessIO.errorText(code))")
        }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

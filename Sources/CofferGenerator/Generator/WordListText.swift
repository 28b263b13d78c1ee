import CofferCrypto

/// Word-list text cut into lines (the bundled lists and user-supplied ones alike). Reading
/// a file is not this layer's business: the Store's seam reads it (`Wordlist(contentsOf:)`).
enum WordListText {
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

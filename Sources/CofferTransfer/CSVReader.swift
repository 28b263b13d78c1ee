import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// RFC 4180 CSV, read in place: quoted fields, `""` escapes, newlines inside quotes,
/// CRLF or LF line ends, an optional UTF-8 byte-order mark, blank lines skipped.
///
/// Fields are spans of the input, never copies: a secret field is copied once, from
/// the input straight into guarded memory (through a wiped buffer when it holds `""`
/// escapes). Unquoted fields may contain a stray `"` (some exporters write them).
struct CSVReader {
    struct Field {
        let start: Int
        let end: Int
        /// The physical line the field starts on (1-based).
        let line: Int
        let quoted: Bool
        /// A quoted field with `""` inside, to be unescaped.
        let escapedQuotes: Bool
        var isEmpty: Bool { start == end }
    }

    struct Record {
        /// The physical line the record starts on (1-based).
        let line: Int
        let fields: [Field]
    }

    let bytes: UnsafeRawBufferPointer
    /// Names the format in error messages, e.g. "CSV".
    let formatName: String
    private(set) var records: [Record] = []

    init(_ bytes: UnsafeRawBufferPointer, formatName: String) throws(CofferError) {
        self.bytes = bytes
        self.formatName = formatName
        records = try parse()
    }

    /// A non-secret field as a `String`. Invalid UTF-8 is a malformed file.
    func string(_ field: Field) throws(CofferError) -> String {
        let text: String?
        if field.escapedQuotes {
            let out = WipingBuffer(capacity: field.end - field.start)
            unescape(field, into: out)
            text = out.string()
        } else {
            let span = UnsafeRawBufferPointer(rebasing: bytes[field.start..<field.end])
            let decoded = String(decoding: span, as: UTF8.self)
            text = decoded.utf8.elementsEqual(span) ? decoded : nil
        }
        guard let text else { throw malformed(line: field.line, "the text is not valid UTF-8 (save the export as UTF-8)") }
        return text
    }

    /// A secret field copied into guarded memory; nil when empty.
    func secret(_ field: Field) throws(CofferError) -> SecureBytes? {
        guard !field.isEmpty else { return nil }
        if field.escapedQuotes {
            let out = WipingBuffer(capacity: field.end - field.start)
            defer { out.removeAll() }
            unescape(field, into: out)
            return try out.secureBytes()
        }
        return try SecureBytes(count: field.end - field.start) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[field.start..<field.end]))
        }
    }

    func malformed(line: Int, _ message: String) -> CofferError {
        .malformedImport("\(formatName) line \(line): \(message)")
    }

    private func unescape(_ field: Field, into out: WipingBuffer) {
        var i = field.start
        while i < field.end {
            out.append(bytes[i])
            // `""` stands for one quote.
            i += bytes[i] == quote && i + 1 < field.end && bytes[i + 1] == quote ? 2 : 1
        }
    }

    private var quote: UInt8 { UInt8(ascii: "\"") }

    private func parse() throws(CofferError) -> [Record] {
        let comma = UInt8(ascii: ","), cr: UInt8 = 13, lf: UInt8 = 10
        let n = bytes.count
        var i = (n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF) ? 3 : 0
        var line = 1
        var result: [Record] = []
        while i < n {
            let recordLine = line
            var fields: [Field] = []
            while true {
                if i < n && bytes[i] == quote {
                    let fieldLine = line
                    i += 1
                    let start = i
                    var escaped = false
                    var end = i
                    while true {
                        guard i < n else { throw malformed(line: fieldLine, "a quoted field is never closed") }
                        let c = bytes[i]
                        if c == quote {
                            if i + 1 < n && bytes[i + 1] == quote {
                                escaped = true
                                i += 2
                                continue
                            }
                            end = i
                            i += 1
                            break
                        }
                        if c == lf || (c == cr && !(i + 1 < n && bytes[i + 1] == lf)) { line += 1 }
                        i += 1
                    }
                    fields.append(Field(start: start, end: end, line: fieldLine, quoted: true, escapedQuotes: escaped))
                    if i < n && bytes[i] != comma && bytes[i] != cr && bytes[i] != lf {
                        throw malformed(line: line, "unexpected text after the closing quote of field \(fields.count)")
                    }
                } else {
                    let start = i
                    while i < n && bytes[i] != comma && bytes[i] != cr && bytes[i] != lf { i += 1 }
                    fields.append(Field(start: start, end: i, line: line, quoted: false, escapedQuotes: false))
                }
                if i < n && bytes[i] == comma {
                    i += 1
                    continue
                }
                if i < n && bytes[i] == cr {
                    i += 1
                    if i < n && bytes[i] == lf { i += 1 }
                    line += 1
                } else if i < n && bytes[i] == lf {
                    i += 1
                    line += 1
                }
                break
            }
            let blank = fields.count == 1 && fields[0].isEmpty && !fields[0].quoted
            if !blank { result.append(Record(line: recordLine, fields: fields)) }
        }
        return result
    }
}

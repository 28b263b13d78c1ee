import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// RFC 8259 JSON, read in place.
///
/// Why not `JSONSerialization`/`JSONDecoder`: they turn every string, passwords
/// included, into a Swift `String` that cannot be wiped. Here a string value is a span
/// of the input; ``secret(_:)`` copies it once into guarded memory (through a wiped
/// buffer when it has escapes), and only keys and non-secret values become `String`s.
/// Nesting is bounded (``maxDepth``) so a hostile file cannot exhaust the stack.
struct JSONReader {
    struct Span {
        let start: Int
        let end: Int
        let escaped: Bool
    }

    indirect enum Value {
        case object([(key: String, node: Node)])
        case array([Node])
        case string(Span)
        case number(Span)
        case bool(Bool)
        case null
    }

    struct Node {
        let value: Value
        /// Where the value starts in the input.
        let offset: Int

        /// The member `key` of an object; nil for a missing key or a non-object.
        subscript(key: String) -> Node? {
            guard case .object(let members) = value else { return nil }
            return members.first { $0.key == key }?.node
        }

        var isNull: Bool {
            if case .null = value { return true }
            return false
        }

        var array: [Node]? {
            if case .array(let items) = value { return items }
            return nil
        }

        var isObject: Bool {
            if case .object = value { return true }
            return false
        }

        var bool: Bool? {
            if case .bool(let flag) = value { return flag }
            return nil
        }
    }

    static let maxDepth = 64

    let bytes: UnsafeRawBufferPointer
    let formatName: String
    /// Offsets of every newline, for line numbers in messages.
    private let newlines: [Int]

    init(_ bytes: UnsafeRawBufferPointer, formatName: String) {
        self.bytes = bytes
        self.formatName = formatName
        var lines: [Int] = []
        for (index, byte) in bytes.enumerated() where byte == 10 { lines.append(index) }
        newlines = lines
    }

    /// Parses the whole input as one JSON value.
    func parse() throws(CofferError) -> Node {
        var i = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        skipSpace(&i)
        guard i < bytes.count else { throw malformed(at: i, "the file is empty") }
        let node = try value(&i, depth: 0)
        skipSpace(&i)
        guard i == bytes.count else { throw malformed(at: i, "unexpected text after the JSON value") }
        return node
    }

    /// The 1-based line of an offset.
    func line(of offset: Int) -> Int {
        var low = 0, high = newlines.count
        while low < high {
            let mid = (low + high) / 2
            if newlines[mid] < offset { low = mid + 1 } else { high = mid }
        }
        return low + 1
    }

    func malformed(at offset: Int, _ message: String) -> CofferError {
        .malformedImport("\(formatName) line \(line(of: offset)): \(message)")
    }

    // MARK: Reading values

    /// A string value as `String` (non-secret values only); nil for `null` or a missing
    /// member. Another type is a malformed file naming `what`.
    func string(_ node: Node?, _ what: String) throws(CofferError) -> String? {
        guard let node, !node.isNull else { return nil }
        guard case .string(let span) = node.value else { throw malformed(at: node.offset, "\(what) is not a string") }
        let out = WipingBuffer(capacity: span.end - span.start)
        try decode(span, into: out)
        guard let text = out.string() else { throw malformed(at: node.offset, "\(what) is not valid UTF-8") }
        return text
    }

    /// A non-empty string value, trimmed of nothing; nil for null, missing or "".
    func nonEmptyString(_ node: Node?, _ what: String) throws(CofferError) -> String? {
        guard let text = try string(node, what), !text.isEmpty else { return nil }
        return text
    }

    /// A string value copied into guarded memory; nil for `null`, a missing member or "".
    func secret(_ node: Node?, _ what: String) throws(CofferError) -> SecureBytes? {
        guard let node, !node.isNull else { return nil }
        guard case .string(let span) = node.value else { throw malformed(at: node.offset, "\(what) is not a string") }
        guard span.end > span.start else { return nil }
        if !span.escaped {
            return try SecureBytes(count: span.end - span.start) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
                out.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.end]))
            }
        }
        let out = WipingBuffer(capacity: span.end - span.start)
        defer { out.removeAll() }
        try decode(span, into: out)
        return try out.secureBytes()
    }

    /// An integer value; nil for `null` or a missing member.
    func integer(_ node: Node?, _ what: String) throws(CofferError) -> Int64? {
        guard let node, !node.isNull else { return nil }
        switch node.value {
        case .number(let span):
            let text = String(decoding: bytes[span.start..<span.end], as: UTF8.self)
            if let value = Int64(text) { return value }
            if let value = Double(text), value.rounded() == value, abs(value) < 9e15 { return Int64(value) }
            throw malformed(at: node.offset, "\(what) is not an integer")
        case .string:
            // Some exporters quote numbers ("expMonth": "1").
            guard let text = try string(node, what), let value = Int64(text) else {
                throw malformed(at: node.offset, "\(what) is not an integer")
            }
            return value
        default:
            throw malformed(at: node.offset, "\(what) is not a number")
        }
    }

    /// A boolean value; nil for `null` or a missing member.
    func boolean(_ node: Node?, _ what: String) throws(CofferError) -> Bool? {
        guard let node, !node.isNull else { return nil }
        guard let flag = node.bool else { throw malformed(at: node.offset, "\(what) is not true or false") }
        return flag
    }

    /// An array value; nil for `null` or a missing member.
    func array(_ node: Node?, _ what: String) throws(CofferError) -> [Node]? {
        guard let node, !node.isNull else { return nil }
        guard let items = node.array else { throw malformed(at: node.offset, "\(what) is not an array") }
        return items
    }

    /// Any scalar as text, for values whose JSON type varies between exporters.
    func scalarText(_ node: Node?, _ what: String) throws(CofferError) -> String? {
        guard let node, !node.isNull else { return nil }
        switch node.value {
        case .string: return try string(node, what)
        case .number(let span): return String(decoding: bytes[span.start..<span.end], as: UTF8.self)
        case .bool(let flag): return flag ? "true" : "false"
        default: throw malformed(at: node.offset, "\(what) is not a string, number or boolean")
        }
    }

    // MARK: Parsing

    private func skipSpace(_ i: inout Int) {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    private func value(_ i: inout Int, depth: Int) throws(CofferError) -> Node {
        guard depth < Self.maxDepth else { throw malformed(at: i, "nested deeper than \(Self.maxDepth) levels") }
        guard i < bytes.count else { throw malformed(at: i, "the file ends inside a value") }
        let start = i
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var members: [(key: String, node: Node)] = []
            skipSpace(&i)
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                i += 1
                return Node(value: .object(members), offset: start)
            }
            while true {
                skipSpace(&i)
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw malformed(at: i, "expected a member name in quotes") }
                let keyOffset = i
                let keySpan = try stringSpan(&i)
                let out = WipingBuffer(capacity: keySpan.end - keySpan.start)
                try decode(keySpan, into: out)
                guard let key = out.string() else { throw malformed(at: keyOffset, "a member name is not valid UTF-8") }
                skipSpace(&i)
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw malformed(at: i, "expected ':' after \"\(key)\"") }
                i += 1
                skipSpace(&i)
                members.append((key, try value(&i, depth: depth + 1)))
                skipSpace(&i)
                guard i < bytes.count else { throw malformed(at: i, "the file ends inside an object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; break }
                throw malformed(at: i, "expected ',' or '}' in an object")
            }
            return Node(value: .object(members), offset: start)
        case UInt8(ascii: "["):
            i += 1
            var items: [Node] = []
            skipSpace(&i)
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                i += 1
                return Node(value: .array(items), offset: start)
            }
            while true {
                skipSpace(&i)
                items.append(try value(&i, depth: depth + 1))
                skipSpace(&i)
                guard i < bytes.count else { throw malformed(at: i, "the file ends inside an array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; break }
                throw malformed(at: i, "expected ',' or ']' in an array")
            }
            return Node(value: .array(items), offset: start)
        case UInt8(ascii: "\""):
            return Node(value: .string(try stringSpan(&i)), offset: start)
        case UInt8(ascii: "t"):
            try literal(&i, "true")
            return Node(value: .bool(true), offset: start)
        case UInt8(ascii: "f"):
            try literal(&i, "false")
            return Node(value: .bool(false), offset: start)
        case UInt8(ascii: "n"):
            try literal(&i, "null")
            return Node(value: .null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            while i < bytes.count, "+-.eE0123456789".utf8.contains(bytes[i]) { i += 1 }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard Double(text) != nil else { throw malformed(at: start, "\(text) is not a number") }
            return Node(value: .number(Span(start: start, end: i, escaped: false)), offset: start)
        default:
            throw malformed(at: i, "unexpected character '\(Character(Unicode.Scalar(bytes[i])))'")
        }
    }

    private func literal(_ i: inout Int, _ word: String) throws(CofferError) {
        let expected = Array(word.utf8)
        guard i + expected.count <= bytes.count, bytes[i..<(i + expected.count)].elementsEqual(expected) else {
            throw malformed(at: i, "expected \(word)")
        }
        i += expected.count
    }

    /// Scans a string starting at its opening quote; checks escapes and UTF-8.
    private func stringSpan(_ i: inout Int) throws(CofferError) -> Span {
        let open = i
        i += 1
        let start = i
        var escaped = false
        while true {
            guard i < bytes.count else { throw malformed(at: open, "a string is never closed") }
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw malformed(at: i, "a control character inside a string must be escaped") }
            if c == UInt8(ascii: "\\") {
                escaped = true
                guard i + 1 < bytes.count else { throw malformed(at: open, "a string is never closed") }
                switch bytes[i + 1] {
                case UInt8(ascii: "u"):
                    guard i + 5 < bytes.count, (2...5).allSatisfy({ hexValue(bytes[i + $0]) != nil }) else {
                        throw malformed(at: i, "bad \\u escape")
                    }
                    // Surrogates must pair up: a high one followed at once by a low one.
                    let unit = hex4(at: i + 2)
                    if (0xDC00...0xDFFF).contains(unit) { throw malformed(at: i, "a \\u escape is half of a surrogate pair") }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard i + 11 < bytes.count, bytes[i + 6] == UInt8(ascii: "\\"), bytes[i + 7] == UInt8(ascii: "u"),
                              (8...11).allSatisfy({ hexValue(bytes[i + $0]) != nil }),
                              (0xDC00...0xDFFF).contains(hex4(at: i + 8)) else {
                            throw malformed(at: i, "a \\u escape is half of a surrogate pair")
                        }
                        i += 6
                    }
                    i += 6
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                     UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    i += 2
                default:
                    throw malformed(at: i, "bad escape \\\(Character(Unicode.Scalar(bytes[i + 1])))")
                }
                continue
            }
            if c < 0x80 {
                i += 1
                continue
            }
            // A multi-byte UTF-8 sequence: check it here so no invalid text gets through.
            let length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0
            guard length > 0, c < 0xF5, i + length <= bytes.count else { throw malformed(at: i, "the text is not valid UTF-8") }
            var decoder = UTF8()
            var iterator = UnsafeRawBufferPointer(rebasing: bytes[i..<(i + length)]).makeIterator()
            guard case .scalarValue = decoder.decode(&iterator) else { throw malformed(at: i, "the text is not valid UTF-8") }
            i += length
        }
        let span = Span(start: start, end: i, escaped: escaped)
        i += 1
        return span
    }

    /// Writes a string span's text with escapes resolved.
    private func decode(_ span: Span, into out: WipingBuffer) throws(CofferError) {
        guard span.escaped else {
            out.append(UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.end]))
            return
        }
        var i = span.start
        while i < span.end {
            let c = bytes[i]
            guard c == UInt8(ascii: "\\") else {
                out.append(c)
                i += 1
                continue
            }
            let e = bytes[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                var scalar = hex4(at: i)
                i += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 6 <= span.end, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw malformed(at: i, "a \\u escape is half of a surrogate pair")
                    }
                    let low = hex4(at: i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw malformed(at: i, "a \\u escape is half of a surrogate pair") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw malformed(at: i, "a \\u escape is half of a surrogate pair")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw malformed(at: i, "bad \\u escape") }
                if let encoded = UTF8.encode(unicode) { for byte in encoded { out.append(byte) } }
            default: out.append(e)   // \" \\ \/
            }
        }
    }

    private func hex4(at i: Int) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 { value = value << 4 | UInt32(hexValue(bytes[i + k]) ?? 0) }
        return value
    }

    private func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

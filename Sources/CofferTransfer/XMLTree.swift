import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A small element tree read with `XMLParser`, for the KeePassXC XML import.
///
/// Safety: a document with a `<!DOCTYPE` is refused before parsing, so no entity can
/// be declared, let alone expanded; external entities are off as well. Text is kept in
/// ``WipingBuffer``s that are zeroed when the tree is released, but `XMLParser` itself
/// hands text over as `String`s (and libxml2 keeps its own buffers), which Coffer cannot
/// wipe: the import file is plaintext already, and those copies are short-lived.
final class XMLTreeNode {
    let name: String
    let attributes: [String: String]
    /// The line where the element starts.
    let line: Int
    private(set) var children: [XMLTreeNode] = []
    private var textBuffer: WipingBuffer?

    init(name: String, attributes: [String: String], line: Int) {
        self.name = name
        self.attributes = attributes
        self.line = line
    }

    func append(_ child: XMLTreeNode) { children.append(child) }

    func appendText(_ text: String) {
        if textBuffer == nil { textBuffer = WipingBuffer(capacity: text.utf8.count) }
        textBuffer?.append(text)
    }

    /// The first child named `name`.
    func child(_ name: String) -> XMLTreeNode? { children.first { $0.name == name } }

    /// Every child named `name`.
    func children(_ name: String) -> [XMLTreeNode] { children.filter { $0.name == name } }

    /// The element's text (non-secret values only).
    var text: String { textBuffer?.string() ?? "" }

    var hasText: Bool { textBuffer.map { !$0.isEmpty } ?? false }

    /// The element's text copied into guarded memory; nil when empty.
    func secret() throws(CofferError) -> SecureBytes? {
        guard let textBuffer, !textBuffer.isEmpty else { return nil }
        return try textBuffer.secureBytes()
    }

    /// Zeroes this element's text and its children's.
    func wipe() {
        textBuffer?.removeAll()
        for child in children { child.wipe() }
    }
}

enum XMLTree {
    /// Parses `bytes` into a tree; errors name the format and line.
    ///
    /// The whole document must be well-formed XML in UTF-8 before anything is returned:
    /// `XMLParser` runs libxml2 in recovery mode and reports a document cut short, or
    /// one with stray content, as a success with a few elements missing, so any error
    /// it reports refuses the file, and so does a root element that never closes.
    static func parse(_ bytes: UnsafeRawBufferPointer, formatName: String) throws(CofferError) -> XMLTreeNode {
        func line(at offset: Int) -> Int { bytes[..<offset].reduce(1) { $0 + ($1 == 10 ? 1 : 0) } }
        if let offset = find("<!DOCTYPE", in: bytes) {
            throw .malformedImport("\(formatName) line \(line(at: offset)): a DOCTYPE is not allowed (KeePassXC never writes one; entities are not expanded)")
        }
        guard !bytes.isEmpty else { throw .malformedImport("\(formatName) line 1: the file is empty") }
        // UTF-8 only, so that the bytes checked above are the text libxml2 reads: in UTF-16
        // or UTF-32 a DOCTYPE is not the bytes "<!DOCTYPE", and libxml2 would read it. Those
        // encodings hold NUL bytes (or a BOM that is not UTF-8); any other one must be declared.
        // Foundation's XMLParser also traps (crashes the process) on a name, comment or
        // processing instruction that is not UTF-8 (found by fuzzing: Fuzz/Regressions/inputs/).
        if let offset = firstInvalidUTF8(in: bytes) {
            throw .malformedImport("\(formatName) line \(line(at: offset)): the file is not UTF-8 text")
        }
        if let offset = firstNUL(in: bytes) {
            throw .malformedImport("\(formatName) line \(line(at: offset)): the file is not UTF-8 text (it holds NUL bytes: UTF-16 or UTF-32?)")
        }
        if let offset = processingInstructionWithoutData(in: bytes) {
            throw .malformedImport("\(formatName) line \(line(at: offset)): a processing instruction without data is not allowed (KeePassXC never writes one)")
        }
        if let declared = declaredEncoding(in: bytes), !["utf-8", "utf8"].contains(declared.lowercased()) {
            throw .malformedImport("\(formatName) line 1: the file declares the encoding \"\(declared)\"; only UTF-8 is read (KeePassXC writes UTF-8)")
        }

        // Streamed in chunks, not handed over whole: libxml2 refuses a document it is given
        // in one piece of more than 10 MB ("huge input lookup"), below the 256 MiB import limit.
        let parser = XMLParser(stream: GuardedBytesStream(bytes))
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        let ok = parser.parse()
        if let open = builder.openElement, builder.failure == nil || builder.failure?.atEnd == true {
            builder.root?.wipe()
            throw .malformedImport("\(formatName) line \(max(parser.lineNumber, line(at: bytes.count))): the file ends inside <\(open.name)> (line \(open.line)): it is incomplete, nothing was imported")
        }
        if let failure = builder.failure {
            builder.root?.wipe()
            throw .malformedImport("\(formatName) line \(failure.line): \(failure.message)")
        }
        guard ok, builder.rootClosed, let root = builder.root else {
            let reason = (parser.parserError as NSError?).map { Self.describe($0) } ?? "not well-formed XML"
            builder.root?.wipe()
            throw .malformedImport("\(formatName) line \(max(parser.lineNumber, 1)): \(reason)")
        }
        return root
    }

    /// The parser's error by its code only: libxml2's own text can quote the file's
    /// content (an entity name, a value), which may be secret.
    static func describe(_ error: NSError) -> String {
        "not well-formed XML (libxml2 error \(error.code))"
    }

    /// The offset of the first byte that is not part of valid UTF-8 (RFC 3629: no overlong
    /// forms, no surrogates, nothing above U+10FFFF), or nil. Allocates nothing; ASCII is
    /// checked eight bytes at a time, so a large file costs little even in a debug build.
    static func firstInvalidUTF8(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let count = bytes.count
        var offset = 0
        while offset < count {
            while offset + 8 <= count,
                  base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                offset += 8
            }
            guard offset < count else { break }
            let lead = base.load(fromByteOffset: offset, as: UInt8.self)
            if lead < 0x80 {
                offset += 1
                continue
            }
            // The sequence's length and the range its second byte must be in.
            let length: Int, lower: UInt8, upper: UInt8
            switch lead {
            case 0xC2...0xDF: (length, lower, upper) = (2, 0x80, 0xBF)
            case 0xE0: (length, lower, upper) = (3, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, lower, upper) = (3, 0x80, 0xBF)
            case 0xED: (length, lower, upper) = (3, 0x80, 0x9F)
            case 0xF0: (length, lower, upper) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, lower, upper) = (4, 0x80, 0xBF)
            case 0xF4: (length, lower, upper) = (4, 0x80, 0x8F)
            default: return offset
            }
            guard offset + length <= count else { return offset }
            let second = base.load(fromByteOffset: offset + 1, as: UInt8.self)
            guard second >= lower && second <= upper else { return offset }
            for index in 2..<length where base.load(fromByteOffset: offset + index, as: UInt8.self) & 0xC0 != 0x80 {
                return offset
            }
            offset += length
        }
        return nil
    }

    /// The `encoding` of the XML declaration (`<?xml version="1.0" encoding="…"?>`) that
    /// starts the document (after a UTF-8 byte order mark, if any); nil without one.
    /// The offset of the first `<?target?>` (a processing instruction whose data is empty
    /// or only spaces), or nil. Foundation's XMLParser hands libxml2's NULL data for one to
    /// `strlen` and the process dies (found by fuzzing:
    /// Fuzz/Regressions/inputs/keepassxc-xml-processing-instruction-without-data), so such a
    /// file is refused before it is parsed. A "<?" inside a comment or CDATA section counts
    /// too: refusing it there costs nothing, since KeePassXC writes neither.
    static func processingInstructionWithoutData(in bytes: UnsafeRawBufferPointer) -> Int? {
        var offset = 0
        while let found = find("<?", in: UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            let start = offset + found
            var index = start + 2
            while index < bytes.count, !Self.isSpace(bytes[index]), bytes[index] != UInt8(ascii: "?") { index += 1 }
            while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
            if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "?"), bytes[index + 1] == UInt8(ascii: ">") { return start }
            offset = start + 2
        }
        return nil
    }

    static func declaredEncoding(in bytes: UnsafeRawBufferPointer) -> String? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        let head = bytes[start...]
        guard head.starts(with: Array("<?xml".utf8)), head.count > 5, Self.isSpace(head[start + 5]) else { return nil }
        // The declaration ends at the first "?>"; only its bytes are looked at.
        var end = start + 5
        while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "?") && bytes[end + 1] == UInt8(ascii: ">")) { end += 1 }
        let declaration = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        guard let name = find("encoding", in: declaration) else { return nil }
        var index = name + 8
        while index < declaration.count, Self.isSpace(declaration[index]) { index += 1 }
        // Not `encoding = "name"`: libxml2 refuses the declaration, and so the file.
        guard index < declaration.count, declaration[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        while index < declaration.count, Self.isSpace(declaration[index]) { index += 1 }
        guard index < declaration.count, declaration[index] == UInt8(ascii: "\"") || declaration[index] == UInt8(ascii: "'") else { return nil }
        let quote = declaration[index]
        let valueStart = index + 1
        var valueEnd = valueStart
        while valueEnd < declaration.count, declaration[valueEnd] != quote { valueEnd += 1 }
        return String(decoding: declaration[valueStart..<valueEnd], as: UTF8.self)
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The offset of the first occurrence of `needle`, or nil (`memchr` and `memcmp`: fast
    /// in any build).
    private static func find(_ needle: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        let pattern = Array(needle.utf8)
        guard let base = bytes.baseAddress, let first = pattern.first, bytes.count >= pattern.count else { return nil }
        return pattern.withUnsafeBytes { pattern -> Int? in
            guard let patternBase = pattern.baseAddress else { return nil }
            let last = bytes.count - pattern.count   // the last offset where the pattern fits
            var offset = 0
            while offset <= last, let found = memchr(base + offset, Int32(first), last - offset + 1) {
                let at = base.distance(to: UnsafeRawPointer(found))
                if memcmp(found, patternBase, pattern.count) == 0 { return at }
                offset = at + 1
            }
            return nil
        }
    }

    /// The offset of the first NUL byte, or nil.
    private static func firstNUL(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress, let found = memchr(base, 0, bytes.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}

/// Hands `XMLParser` the import file in chunks (of the parser's choosing, 128 KiB),
/// read in place from guarded memory. Used only inside ``XMLTree/parse(_:formatName:)``,
/// on the calling thread, while `bytes` is valid.
private final class GuardedBytesStream: InputStream {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    private var status: Stream.Status = .notOpen

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        super.init(data: Data())
    }

    override func open() { status = .open }
    override func close() { status = .closed }
    override var streamStatus: Stream.Status { status }
    override var streamError: Error? { nil }
    override var hasBytesAvailable: Bool { offset < bytes.count }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        let count = min(max(length, 0), bytes.count - offset)
        guard count > 0, let base = bytes.baseAddress else {
            status = .atEnd
            return 0
        }
        UnsafeMutableRawPointer(buffer).copyMemory(from: base + offset, byteCount: count)
        offset += count
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}

/// The delegate that builds the tree as `XMLParser` reports elements.
private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// Bounds the tree so a hostile file cannot make millions of tiny elements.
    static let maxElements = 4_000_000
    static let maxDepth = 256
    /// libxml2's XML_ERR_DOCUMENT_END: what it reports when the input ends inside the root element.
    static let documentEndError = 5

    var root: XMLTreeNode?
    /// The first error, ours or libxml2's; `atEnd` when libxml2 reported the end of the input.
    var failure: (line: Int, message: String, atEnd: Bool)?
    /// True once the root element's end tag was read.
    private(set) var rootClosed = false
    private var stack: [XMLTreeNode] = []
    private var count = 0

    /// The innermost element still open, if any.
    var openElement: XMLTreeNode? { stack.last }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        count += 1
        guard count <= Self.maxElements, stack.count < Self.maxDepth else {
            fail(parser, "the document has too many or too deeply nested elements")
            return
        }
        guard !rootClosed else {
            fail(parser, "content after the end of the document")
            return
        }
        let node = XMLTreeNode(name: elementName, attributes: attributeDict, line: parser.lineNumber)
        if let parent = stack.last { parent.append(node) } else if root == nil { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        _ = stack.popLast()
        if stack.isEmpty && root != nil { rootClosed = true }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.appendText(string)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        CDATABlock.withUnsafeBytes { stack.last?.appendText(String(decoding: $0, as: UTF8.self)) }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(parser, "entity declarations are not allowed")
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(parser, "entity declarations are not allowed")
    }

    /// Every error libxml2 reports, including those it would recover from, stops the parse.
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        let error = parseError as NSError
        guard failure == nil else { return }
        failure = (max(parser.lineNumber, 1), XMLTree.describe(error), error.code == Self.documentEndError)
        parser.abortParsing()
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = (max(parser.lineNumber, 1), message, false) }
        parser.abortParsing()
    }
}

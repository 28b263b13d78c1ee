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
    static func parse(_ bytes: UnsafeRawBufferPointer, formatName: String) throws(CofferError) -> XMLTreeNode {
        if let offset = find("<!DOCTYPE", in: bytes) {
            let line = bytes[..<offset].reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
            throw .malformedImport("\(formatName) line \(line): a DOCTYPE is not allowed (KeePassXC never writes one; entities are not expanded)")
        }
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw .malformedImport("\(formatName) line 1: the file is empty") }
        // Foundation's XMLParser traps (crashes the process) on a name, comment or processing
        // instruction that is not UTF-8 (found by fuzzing: Fuzz/Regressions/inputs/).
        if let offset = firstInvalidUTF8(in: bytes) {
            let line = bytes[..<offset].reduce(1) { $0 + ($1 == 10 ? 1 : 0) }
            throw .malformedImport("\(formatName) line \(line): the file is not UTF-8 text")
        }
        // No copy: the parser reads the guarded input in place, inside this call.
        let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        let ok = parser.parse()
        if let failure = builder.failure { throw .malformedImport("\(formatName) line \(failure.line): \(failure.message)") }
        guard ok, let root = builder.root else {
            let reason = (parser.parserError as NSError?).map { Self.describe($0) } ?? "not well-formed XML"
            builder.root?.wipe()
            throw .malformedImport("\(formatName) line \(max(parser.lineNumber, 1)): \(reason)")
        }
        return root
    }

    private static func describe(_ error: NSError) -> String {
        let text = error.localizedDescription
        // Foundation's default text is a generic "operation could not be completed".
        return text.contains("could not be completed") || text.isEmpty ? "not well-formed XML (error \(error.code))" : text
    }

    /// The offset of the first byte that is not part of valid UTF-8, or nil. Allocates nothing.
    private static func firstInvalidUTF8(in bytes: UnsafeRawBufferPointer) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func find(_ needle: String, in bytes: UnsafeRawBufferPointer) -> Int? {
        let pattern = Array(needle.utf8)
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if (1..<pattern.count).allSatisfy({ bytes[start + $0] == pattern[$0] }) { return start }
        }
        return nil
    }
}

/// The delegate that builds the tree as `XMLParser` reports elements.
private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// Bounds the tree so a hostile file cannot make millions of tiny elements.
    static let maxElements = 4_000_000
    static let maxDepth = 256

    var root: XMLTreeNode?
    var failure: (line: Int, message: String)?
    private var stack: [XMLTreeNode] = []
    private var count = 0

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        count += 1
        guard count <= Self.maxElements, stack.count < Self.maxDepth else {
            fail(parser, "the document has too many or too deeply nested elements")
            return
        }
        let node = XMLTreeNode(name: elementName, attributes: attributeDict, line: parser.lineNumber)
        if let parent = stack.last { parent.append(node) } else if root == nil { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        _ = stack.popLast()
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

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = (parser.lineNumber, message) }
        parser.abortParsing()
    }
}

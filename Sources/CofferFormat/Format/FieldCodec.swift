import CofferCrypto
/// The tag-length-value encoding of entry plaintexts (SPEC.md §7.1).
///
/// A field is `tag u16 | length u32 | value`. Fields appear in non-decreasing tag
/// order; only repeatable tags may appear more than once, consecutively. Tags this
/// version does not know are kept and written back in place.
struct FieldReader {
    private var reader: ByteReader
    private let structure: String
    private var lastTag: UInt16?
    private let repeatable: (UInt16) -> Bool

    init(_ buffer: UnsafeRawBufferPointer, structure: String, repeatable: @escaping (UInt16) -> Bool) {
        reader = ByteReader(buffer)
        self.structure = structure
        self.repeatable = repeatable
    }

    var buffer: UnsafeRawBufferPointer { reader.buffer }

    /// The next field's tag and where its value is, or nil at the end.
    mutating func next() throws(FormatError) -> (tag: UInt16, value: Range<Int>)? {
        if reader.isAtEnd { return nil }
        let tag = try reader.u16("\(structure) field tag")
        let length = try reader.u32("\(structure) field length")
        let value = try reader.range(Int(length), "\(structure) field \(tag)")
        if let lastTag {
            guard tag >= lastTag else { throw .malformed("\(structure): field \(tag) after field \(lastTag)") }
            guard tag != lastTag || repeatable(tag) else { throw .malformed("\(structure): field \(tag) repeated") }
        }
        lastTag = tag
        return (tag, value)
    }

    func bytes(_ range: Range<Int>) -> [UInt8] { Array(buffer[range]) }

    /// The checks of ``string(_:_:)`` without making the string.
    func checkString(_ range: Range<Int>, _ name: String) throws(FormatError) {
        let slice = UnsafeRawBufferPointer(rebasing: buffer[range])
        if ASCIIBytes.all(slice) { return }
        _ = try string(range, name)
    }

    func string(_ range: Range<Int>, _ name: String) throws(FormatError) -> String {
        let slice = UnsafeRawBufferPointer(rebasing: buffer[range])
        let text = String(decoding: slice, as: UTF8.self)
        // ASCII is valid UTF-8: skip the byte-by-byte comparison below in the usual case.
        if ASCIIBytes.all(slice) { return text }
        // Decoding repairs invalid UTF-8; a repaired string no longer matches the bytes.
        guard text.utf8.elementsEqual(slice) else { throw .malformed("\(structure): \(name) is not UTF-8") }
        return text
    }

    func u8(_ range: Range<Int>, _ name: String) throws(FormatError) -> UInt8 {
        guard range.count == 1 else { throw .malformed("\(structure): \(name) must be 1 byte") }
        return buffer[range.lowerBound]
    }

    func u16(_ range: Range<Int>, _ name: String) throws(FormatError) -> UInt16 {
        guard range.count == 2 else { throw .malformed("\(structure): \(name) must be 2 bytes") }
        return UInt16(buffer[range.lowerBound]) | UInt16(buffer[range.lowerBound + 1]) << 8
    }

    func i64(_ range: Range<Int>, _ name: String) throws(FormatError) -> Int64 {
        guard range.count == 8 else { throw .malformed("\(structure): \(name) must be 8 bytes") }
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: buffer[range]))
        return Int64(bitPattern: try reader.u64(name))
    }

    /// A secret value copied into guarded memory.
    func secure(_ range: Range<Int>) throws(FormatError) -> SecureBytes {
        let slice = UnsafeRawBufferPointer(rebasing: buffer[range])
        return try crypto { () throws(CofferError) in
            try SecureBytes(count: slice.count) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
                out.copyMemory(from: slice)
            }
        }
    }

    /// A nested field list inside `range`.
    func nested(_ range: Range<Int>, _ name: String) -> FieldReader {
        nested(range, name) { _ in false }
    }

    /// ``nested(_:_:)`` for a list whose tags `repeatable` may repeat.
    func nested(_ range: Range<Int>, _ name: String, repeatable: @escaping (UInt16) -> Bool) -> FieldReader {
        FieldReader(UnsafeRawBufferPointer(rebasing: buffer[range]), structure: "\(structure) \(name)", repeatable: repeatable)
    }
}

/// Builds a field list from public bytes and guarded secrets, writing secrets
/// only into guarded memory.
package struct FieldList {
    enum Piece {
        case bytes([UInt8])
        case secret(SecureBytes)
        /// Part of a guarded buffer (a field cut from a decrypted list), copied only when assembled.
        case secretSlice(SecureBytes, Range<Int>)

        var count: Int {
            switch self {
            case .bytes(let b): return b.count
            case .secret(let s): return s.count
            case .secretSlice(_, let r): return r.count
            }
        }
    }

    private(set) var pieces: [Piece] = []

    /// An empty list.
    package init() {}

    var count: Int { pieces.reduce(0) { $0 + $1.count } }

    mutating func field(_ tag: UInt16, _ value: [UInt8]) {
        pieces.append(.bytes(Self.header(tag, value.count) + value))
    }

    mutating func field(_ tag: UInt16, string: String) { field(tag, Array(string.utf8)) }

    mutating func field(_ tag: UInt16, u8 value: UInt8) { field(tag, [value]) }

    mutating func field(_ tag: UInt16, u16 value: UInt16) {
        field(tag, [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)])
    }

    mutating func field(_ tag: UInt16, i64 value: Int64) {
        var writer = ByteWriter(capacity: 8)
        writer.u64(UInt64(bitPattern: value))
        field(tag, writer.bytes)
    }

    mutating func field(_ tag: UInt16, secret: SecureBytes) {
        pieces.append(.bytes(Self.header(tag, secret.count)))
        pieces.append(.secret(secret))
    }

    mutating func append(_ other: FieldList) { pieces.append(contentsOf: other.pieces) }

    /// A field header of a format-2 list (SPEC.md §7.1): the tag and the length as varints.
    mutating func compactHeader(_ tag: UInt16, _ length: Int) {
        var w = ByteWriter(capacity: 8)
        w.varint(UInt64(tag))
        w.varint(UInt64(length))
        pieces.append(.bytes(w.bytes))
    }

    /// A format-1 (in-memory) field header.
    mutating func header(_ tag: UInt16, _ length: Int) { pieces.append(.bytes(Self.header(tag, length))) }

    /// Appends encoded fields as they are.
    mutating func raw(_ bytes: [UInt8]) { if !bytes.isEmpty { pieces.append(.bytes(bytes)) } }

    /// Appends encoded fields cut from a guarded buffer.
    mutating func raw(_ fragment: SecretFragment) {
        if !fragment.range.isEmpty { pieces.append(.secretSlice(fragment.source, fragment.range)) }
    }

    mutating func field(_ tag: UInt16, nested: FieldList) {
        pieces.append(.bytes(Self.header(tag, nested.count)))
        pieces.append(contentsOf: nested.pieces)
    }

    /// The encoding in ordinary memory (for public data only).
    package var publicBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        for piece in pieces {
            switch piece {
            case .bytes(let b): out.append(contentsOf: b)
            case .secret(let s): s.withUnsafeBytes { out.append(contentsOf: $0) }
            case .secretSlice(let s, let r): s.withUnsafeBytes { out.append(contentsOf: $0[r]) }
            }
        }
        return out
    }

    /// The encoding, unpadded, assembled directly in guarded memory.
    package func secureBytes() throws(FormatError) -> SecureBytes {
        try assembled(size: count) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
    }

    /// The encoding padded to `blockSize`, assembled directly in guarded memory.
    func paddedSecureBytes(blockSize: Int) throws(FormatError) -> SecureBytes {
        let total = count
        return try assembled(size: (total / blockSize + 1) * blockSize) { (out) throws(CofferError) in
            try Padding.padInPlace(out, unpaddedLength: total, blockSize: blockSize)
        }
    }

    /// The encoding padded as format 2 pads (``Padme``), assembled directly in guarded memory.
    func padmeSecureBytes() throws(FormatError) -> SecureBytes {
        let total = count
        return try assembled(size: Padme.paddedLength(total + 1)) { (out) throws(CofferError) in
            try Padme.padInPlace(out, unpaddedLength: total)
        }
    }

    /// The pieces copied one after another into a guarded buffer of `size` bytes, which
    /// `finish` then completes (padding).
    private func assembled(size: Int, finish: (UnsafeMutableRawBufferPointer) throws(CofferError) -> Void) throws(FormatError) -> SecureBytes {
        try crypto { () throws(CofferError) in try SecureBytes(count: size) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            var offset = 0
            for piece in pieces {
                let target = UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + piece.count)])
                switch piece {
                case .bytes(let b): target.copyBytes(from: b)
                case .secret(let s): s.withUnsafeBytes { target.copyMemory(from: $0) }
                case .secretSlice(let s, let r): s.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[r])) }
                }
                offset += piece.count
            }
            try finish(out)
        } }
    }

    static func header(_ tag: UInt16, _ length: Int) -> [UInt8] {
        var writer = ByteWriter(capacity: 6)
        writer.u16(tag)
        writer.u32(UInt32(clamping: length))
        return writer.bytes
    }
}

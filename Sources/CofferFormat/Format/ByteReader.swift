import CofferCrypto
/// Bounds-checked little-endian reads. Every read names the structure it is in,
/// so a short input reports ``FormatError/truncated(_:)`` with that name. Names are
/// autoclosures: they are built only on failure, not once per field of a large vault.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    var remaining: Int { buffer.count - offset }

    /// Moves to `offset`, within the buffer: past what a caller read at once (``RecordV2/Row/usual(_:)``).
    mutating func move(to offset: Int) {
        self.offset = min(max(offset, 0), buffer.count)
    }
    var isAtEnd: Bool { offset >= buffer.count }

    mutating func skip(_ count: Int, in structure: @autoclosure () -> String) throws(FormatError) {
        guard count >= 0, count <= remaining else { throw .truncated(structure()) }
        offset += count
    }

    mutating func u8(_ structure: @autoclosure () -> String) throws(FormatError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(structure()) }
        defer { offset += 1 }
        return buffer[offset]
    }

    mutating func u16(_ structure: @autoclosure () -> String) throws(FormatError) -> UInt16 {
        UInt16(truncatingIfNeeded: try integer(2, structure()))
    }

    mutating func u32(_ structure: @autoclosure () -> String) throws(FormatError) -> UInt32 {
        UInt32(truncatingIfNeeded: try integer(4, structure()))
    }

    mutating func u64(_ structure: @autoclosure () -> String) throws(FormatError) -> UInt64 {
        try integer(8, structure())
    }

    /// An unsigned LEB128 integer of at most 64 bits (ten bytes; SPEC.md §1): seven bits a byte,
    /// low bits first, the high bit set on every byte but the last. Only the shortest
    /// encoding is accepted (no last byte 0x00 after another), so each value has one
    /// encoding; a value over `limit` is "malformed", a varint cut by the end is "truncated".
    mutating func varint(limit: UInt64, _ structure: @autoclosure () -> String) throws(FormatError) -> UInt64 {
        // One or two bytes in their shortest form, within the limit (a revision, a tag, a
        // record's length): the usual cases, read at once. The loop below decides every
        // other case, and every error.
        if remaining >= 1 {
            let first = buffer[offset]
            if first < 0x80 {
                if UInt64(first) <= limit { offset += 1; return UInt64(first) }
            } else if remaining >= 2, case let second = buffer[offset + 1], second != 0, second < 0x80 {
                let value = UInt64(first & 0x7F) | UInt64(second) << 7
                if value <= limit { offset += 2; return value }
            }
        }
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard remaining >= 1 else { throw .truncated(structure()) }
            let byte = buffer[offset]
            offset += 1
            // The tenth byte holds the 64th bit only.
            guard shift < 63 || byte <= 1 else { throw .malformed("\(structure()): varint too long") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                guard byte != 0 || shift == 0 else { throw .malformed("\(structure()): varint not in its shortest form") }
                break
            }
            shift += 7
        }
        guard value <= limit else { throw .malformed("\(structure()): \(value) is over \(limit)") }
        return value
    }

    /// Reads `count` bytes, after checking they are there (so no huge allocation happens first).
    mutating func bytes(_ count: Int, _ structure: @autoclosure () -> String) throws(FormatError) -> [UInt8] {
        let range = try range(count, structure())
        return Array(buffer[range])
    }

    /// Advances past `count` bytes and returns where they are.
    mutating func range(_ count: Int, _ structure: @autoclosure () -> String) throws(FormatError) -> Range<Int> {
        guard count >= 0, count <= remaining else { throw .truncated(structure()) }
        defer { offset += count }
        return offset..<(offset + count)
    }

    private mutating func integer(_ width: Int, _ structure: @autoclosure () -> String) throws(FormatError) -> UInt64 {
        guard remaining >= width else { throw .truncated(structure()) }
        let value: UInt64
        switch width {
        case 2: value = UInt64(UInt16(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: value = UInt64(UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: value = UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var bytes: UInt64 = 0
            for i in 0..<width { bytes |= UInt64(buffer[offset + i]) << (8 * UInt64(i)) }
            value = bytes
        }
        offset += width
        return value
    }
}

/// Little-endian appends into a growing byte array.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func u16(_ value: UInt16) { append(UInt64(value), width: 2) }
    mutating func u32(_ value: UInt32) { append(UInt64(value), width: 4) }
    mutating func u64(_ value: UInt64) { append(value, width: 8) }
    mutating func bytes<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }
    /// Unsigned LEB128, shortest form (``ByteReader/varint(limit:_:)``).
    mutating func varint(_ value: UInt64) { Self.appendVarint(value) { bytes.append($0) } }

    /// The bytes of `value` as unsigned LEB128, handed to `append` one by one.
    static func appendVarint(_ value: UInt64, _ append: (UInt8) -> Void) {
        var rest = value
        while rest >= 0x80 {
            append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        append(UInt8(rest))
    }

    /// How many bytes ``varint(_:)`` writes for `value`.
    static func varintLength(_ value: UInt64) -> Int {
        var length = 1, rest = value >> 7
        while rest > 0 { length += 1; rest >>= 7 }
        return length
    }
    mutating func raw(_ data: UnsafeRawBufferPointer) { bytes.append(contentsOf: data) }

    /// Overwrites a u32 written earlier (for lengths known only afterwards).
    mutating func patchU32(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }

    private mutating func append(_ value: UInt64, width: Int) {
        for i in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}

import CofferCrypto
/// The 128-bit random identifier of an item, shown as 32 lowercase hex digits.
///
/// ```swift
/// let id = item.id
/// print(id)                       // 3f2a9c…
/// let same = ItemID(hex: id.hex)  // parses it back
/// ```
public struct ItemID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    // Two big-endian halves: no heap allocation, and integer order is byte order.
    private let high: UInt64
    private let low: UInt64

    /// The 16 raw bytes.
    public var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 16) { buffer, count in
            write(to: UnsafeMutableRawBufferPointer(buffer))
            count = 16
        }
    }

    /// Writes the 16 raw bytes at the start of `out` (at least 16 bytes long).
    func write(to out: UnsafeMutableRawBufferPointer) {
        out.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
        out.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// `body` with the 16 raw bytes, on the stack (no array: a file's manifest writes one per row).
    func withRawBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { body($0) }
    }

    /// From exactly 16 bytes (callers check the length).
    package init(validated bytes: [UInt8]) {
        self.init(bytes: bytes[...])
    }

    init(bytes: ArraySlice<UInt8>) {
        var h: UInt64 = 0, l: UInt64 = 0
        for (i, byte) in bytes.prefix(16).enumerated() {
            if i < 8 { h = h << 8 | UInt64(byte) } else { l = l << 8 | UInt64(byte) }
        }
        high = h
        low = l
    }

    /// Reads 16 bytes in place.
    init(buffer: UnsafeRawBufferPointer) {
        // Two big-endian loads (a manifest has one id per row: a byte loop was a sixth of parsing it).
        if buffer.count >= 16 {
            high = UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            low = UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            return
        }
        var h: UInt64 = 0, l: UInt64 = 0
        for i in 0..<min(16, buffer.count) {
            if i < 8 { h = h << 8 | UInt64(buffer[i]) } else { l = l << 8 | UInt64(buffer[i]) }
        }
        high = h
        low = l
    }

    /// Parses 32 hex digits; returns nil for anything else.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 32 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = Self.nibble(digits[i]), let lo = Self.nibble(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        self.init(validated: out)
    }

    /// A new random id.
    package static func random() throws(FormatError) -> ItemID { ItemID(validated: try crypto { () throws(CofferError) in try SecureRandom.bytes(16) }) }

    /// Lowercase hex.
    public var hex: String {
        let table = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for byte in bytes {
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }

    public static func < (lhs: ItemID, rhs: ItemID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let id = ItemID(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a 32-digit hex item id"))
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

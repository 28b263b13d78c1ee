/// The 128-bit random identifier of an item, shown as 32 lowercase hex digits.
///
/// ```swift
/// let id = item.id
/// print(id)                       // 3f2a9c…
/// let same = ItemID(hex: id.hex)  // parses it back
/// ```
public struct ItemID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 16 raw bytes.
    public let bytes: [UInt8]

    init(validated bytes: [UInt8]) { self.bytes = bytes }

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
        bytes = out
    }

    /// A new random id.
    static func random() throws(CofferError) -> ItemID { ItemID(validated: try SecureRandom.bytes(16)) }

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

    public static func < (lhs: ItemID, rhs: ItemID) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

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

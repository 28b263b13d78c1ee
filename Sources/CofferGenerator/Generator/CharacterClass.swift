import CofferCrypto
/// A class of characters that a password policy can switch on or off.
///
/// All four classes together are the 94 printable ASCII characters (U+0021 to U+007E);
/// the space is never used.
///
/// ```swift
/// CharacterClass.digits.characters      // "0123456789"
/// CharacterClass.allCases.count         // 4
/// ```
public enum CharacterClass: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `a` to `z`.
    case lowercase
    /// `A` to `Z`.
    case uppercase
    /// `0` to `9`.
    case digits
    /// The 32 ASCII punctuation characters: `!"#$%&'()*+,-./:;<=>?@[\]^_{|}~` and the backtick.
    case symbols

    /// The characters of the class, in ASCII order.
    public var characters: String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// The class's name, such as `digits`.
    public var description: String { rawValue }

    /// The class's characters as ASCII bytes, in ascending order.
    var bytes: [UInt8] {
        switch self {
        case .lowercase: return Array(UInt8(ascii: "a")...UInt8(ascii: "z"))
        case .uppercase: return Array(UInt8(ascii: "A")...UInt8(ascii: "Z"))
        case .digits: return Array(UInt8(ascii: "0")...UInt8(ascii: "9"))
        case .symbols:
            return (UInt8(0x21)...UInt8(0x7E)).filter { byte in
                !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
    }
}

import CofferCrypto
import CofferFormat
/// RFC 4648 base32 (`A`–`Z`, `2`–`7`), as TOTP secrets are written.
///
/// Decoding is lenient where authenticator apps are: case-insensitive, `=` padding
/// optional, spaces (and tabs, hyphens) ignored. Decoded bytes go straight into
/// guarded memory; the one temporary buffer is wiped.
enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Decodes `text` into guarded memory. Throws ``CofferError/Kind/invalidOneTimePassword``
    /// for a character outside the alphabet, padding in the middle, or impossible length.
    static func decode(_ text: UnsafeRawBufferPointer) throws(CofferError) -> SecureBytes {
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 5 / 8 + 1)
        defer { SecureBytes.wipe(&out) }
        var buffer: UInt64 = 0
        var bits = 0
        var symbols = 0
        var sawPadding = false
        for byte in text {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "-"):
                continue
            case UInt8(ascii: "="):
                sawPadding = true
                continue
            default:
                break
            }
            guard !sawPadding else { throw .invalidOneTimePassword("base32 secret has characters after its '=' padding") }
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a")
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = byte - UInt8(ascii: "2") + 26
            default: throw .invalidOneTimePassword("the secret is not base32 (only A-Z and 2-7 are allowed)")
            }
            buffer = (buffer << 5) | UInt64(value)
            bits += 5
            symbols += 1
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt64(bits)))
            }
        }
        buffer = 0
        // 1, 3 and 6 symbols in a final group cannot encode whole bytes.
        guard [0, 2, 4, 5, 7].contains(symbols % 8) else {
            throw .invalidOneTimePassword("the base32 secret has an impossible length (\(symbols) symbols)")
        }
        guard !out.isEmpty else { throw .invalidOneTimePassword("the secret is empty") }
        return try SecureBytes(copying: out)
    }

    /// Encodes `bytes` without padding, as `otpauth://` URIs carry secrets.
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: WipingBuffer) {
        var buffer: UInt64 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[Int((buffer >> UInt64(bits)) & 31)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((buffer << UInt64(5 - bits)) & 31)]) }
        buffer = 0
    }
}

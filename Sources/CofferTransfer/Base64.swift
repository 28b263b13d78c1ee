import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
internal import CSodium
import CofferCrypto

/// Standard base64 (RFC 4648 §4, padded), decoded by libsodium into guarded memory.
enum Base64 {
    /// Decodes `text` (whitespace ignored); nil when it is not valid base64.
    static func decode(_ text: SecureBytes) throws(CofferError) -> SecureBytes? {
        var length = 0
        var status: Int32 = 0
        // Base64 is never shorter than its bytes: decode into guarded memory that size, then trim.
        let full = try SecureBytes(count: text.count) { (out: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CofferError) in
            status = text.withBytePointer { pointer, count in
                sodium_base642bin(out, capacity, UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self),
                                  count, " \t\r\n", &length, nil, Int32(sodium_base64_VARIANT_ORIGINAL))
            }
        }
        guard status == 0 else { return nil }
        return try full.slice(0..<length)
    }
}

extension SecureBytes {
    /// `value`, or an empty secret when nil (`??` cannot call a typed-throwing initialiser).
    static func orEmpty(_ value: SecureBytes?) throws(CofferError) -> SecureBytes {
        if let value { return value }
        return try SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
    }
}

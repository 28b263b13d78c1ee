internal import CSodium

/// Standard base64 (RFC 4648 §4), through libsodium: secrets decoded into guarded memory
/// (import files, OpenSSH private keys), public bytes encoded to text (SSH public keys and
/// fingerprints).
package enum Base64 {
    /// Decodes `text` (whitespace ignored, padding required); nil when it is not valid base64.
    package static func decode(_ text: SecureBytes) throws(CofferError) -> SecureBytes? {
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

    /// Public bytes as base64 text; `padded: false` drops the trailing `=` (SSH fingerprints).
    package static func encode(_ bytes: [UInt8], padded: Bool = true) -> String {
        let variant = Int32(padded ? sodium_base64_VARIANT_ORIGINAL : sodium_base64_VARIANT_ORIGINAL_NO_PADDING)
        let length = sodium_base64_encoded_len(bytes.count, variant)
        var out = [CChar](repeating: 0, count: length)
        bytes.withUnsafeBufferPointer { input in
            _ = sodium_bin2base64(&out, length, input.baseAddress, input.count, variant)
        }
        return String(decoding: out.prefix(max(0, length - 1)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

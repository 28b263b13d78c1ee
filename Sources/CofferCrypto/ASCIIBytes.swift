/// Whether bytes are all ASCII, tested many at a time: every record's overview text, lookup
/// name and (in the estimator) word list is tested when a large vault is listed, saved or
/// rotated, and byte by byte the test was most of a plain overview's validation.
///
/// ```swift
/// Array("github.com".utf8).withUnsafeBytes { ASCIIBytes.all($0) }   // true
/// ```
package enum ASCIIBytes {
    /// True when no byte of `bytes` is 0x80 or above (an empty buffer included).
    @inlinable
    package static func all(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // An OR of every byte, which the compiler vectorizes (16 or 32 bytes a step).
        var high: UInt8 = 0
        for byte in bytes { high |= byte }
        return high < 0x80
    }
}

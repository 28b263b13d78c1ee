import CofferCrypto

extension SecureBytes {
    /// `value`, or an empty secret when nil (`??` cannot call a typed-throwing initialiser).
    static func orEmpty(_ value: SecureBytes?) throws(CofferError) -> SecureBytes {
        if let value { return value }
        return try SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
    }
}

internal import CSodium

/// ISO/IEC 7816-4 padding to a block size (`sodium_pad` / `sodium_unpad`), so that
/// ciphertext lengths reveal only a multiple of the block size.
enum Padding {
    /// Pads into guarded memory: the result is `(count / blockSize + 1) * blockSize` bytes.
    static func pad(_ secret: SecureBytes, blockSize: Int) throws(CofferError) -> SecureBytes {
        guard blockSize > 0 else { throw .invalidArgument("block size must be positive") }
        let padded = (secret.count / blockSize + 1) * blockSize
        return try SecureBytes(count: padded) { (out: UnsafeMutablePointer<UInt8>, length: Int) throws(CofferError) in
            secret.withBytePointer { src, srcLength in
                out.update(from: src, count: srcLength)
            }
            var paddedLength = 0
            let status = sodium_pad(&paddedLength, out, secret.count, blockSize, length)
            guard status == 0, paddedLength == padded else { throw .invalidArgument("padding failed") }
        }
    }

    /// Removes padding; a malformed pad throws ``CofferError/malformed(_:)`` naming `structure`.
    static func unpad(_ padded: SecureBytes, blockSize: Int, structure: String) throws(CofferError) -> SecureBytes {
        guard blockSize > 0, padded.count > 0, padded.count % blockSize == 0 else {
            throw .malformed("\(structure): padded length is not a multiple of \(blockSize)")
        }
        var unpadded = 0
        let status = padded.withBytePointer { p, length in
            sodium_unpad(&unpadded, p, length, blockSize)
        }
        guard status == 0 else { throw .malformed("\(structure): bad padding") }
        return try padded.slice(0..<unpadded)
    }
}

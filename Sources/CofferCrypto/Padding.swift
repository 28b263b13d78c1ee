internal import CSodium

/// ISO/IEC 7816-4 padding to a block size (`sodium_pad` / `sodium_unpad`), so that
/// ciphertext lengths reveal only a multiple of the block size.
package enum Padding {
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
            guard status == 0, paddedLength == padded else { throw .cryptoFailure("padding failed") }
        }
    }

    /// Removes padding; a malformed pad throws ``CofferError/malformed(_:)`` naming `structure`.
    package static func unpad(_ padded: SecureBytes, blockSize: Int, structure: String) throws(CofferError) -> SecureBytes {
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

extension Padding {
    /// Pads public bytes in ordinary memory.
    package static func pad(_ bytes: [UInt8], blockSize: Int) throws(CofferError) -> [UInt8] {
        guard blockSize > 0 else { throw .invalidArgument("block size must be positive") }
        let padded = (bytes.count / blockSize + 1) * blockSize
        var out = bytes + [UInt8](repeating: 0, count: padded - bytes.count)
        var paddedLength = 0
        let status = sodium_pad(&paddedLength, &out, bytes.count, blockSize, out.count)
        guard status == 0, paddedLength == padded else { throw .cryptoFailure("padding failed") }
        return out
    }

    /// The unpadded length of public padded bytes.
    package static func unpaddedLength(_ bytes: [UInt8], blockSize: Int, structure: String) throws(CofferError) -> Int {
        guard blockSize > 0, !bytes.isEmpty, bytes.count % blockSize == 0 else {
            throw .malformed("\(structure): padded length is not a multiple of \(blockSize)")
        }
        var unpadded = 0
        guard sodium_unpad(&unpadded, bytes, bytes.count, blockSize) == 0 else { throw .malformed("\(structure): bad padding") }
        return unpadded
    }
}

extension Padding {
    /// Pads a buffer whose first `unpaddedLength` bytes are the data and whose size is the padded size.
    package static func padInPlace(_ buffer: UnsafeMutableRawBufferPointer, unpaddedLength: Int, blockSize: Int) throws(CofferError) {
        guard let base = buffer.baseAddress else { throw .invalidArgument("empty padding buffer") }
        var paddedLength = 0
        let status = sodium_pad(&paddedLength, base.assumingMemoryBound(to: UInt8.self), unpaddedLength, blockSize, buffer.count)
        guard status == 0, paddedLength == buffer.count else { throw .cryptoFailure("padding failed") }
    }
}

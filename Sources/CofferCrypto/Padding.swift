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

/// The padding of vault format 2 (SPEC.md §7.5): `0x80`, then zero bytes up to the PADMÉ
/// length of the list plus that byte (Nikitin et al., "Reducing Metadata Leakage from
/// Encrypted Files and Communication with PURBs", 2019), at least 16 bytes. A padded length
/// reveals the list's length only to its highest bit and about log2(log2 n) bits more, for
/// an overhead under 12 % (64-byte blocks cost 32 bytes on average whatever the size).
///
/// ```swift
/// Padme.paddedLength(151)       // 160: the length of a 150-byte list, padded
/// Padme.isPaddedLength(160)     // true
/// ```
package enum Padme {
    /// The smallest padded length: shorter lists all look alike.
    package static let minimum = 16

    /// The padded length of `m` bytes (the list and its 0x80 marker, `m ≥ 1`): with
    /// `E = ⌊log2 m⌋` and `S = ⌊log2 E⌋ + 1`, `m` rounded up to a multiple of `2^(E − S)`.
    package static func paddedLength(_ m: Int) -> Int {
        guard m > minimum else { return minimum }
        let e = Int.bitWidth - 1 - m.leadingZeroBitCount
        let s = Int.bitWidth - e.leadingZeroBitCount
        let mask = (1 << (e - s)) - 1
        return (m + mask) & ~mask
    }

    /// Whether some list pads to exactly `length` bytes (its own padded length).
    package static func isPaddedLength(_ length: Int) -> Bool {
        length >= minimum && paddedLength(length) == length
    }

    /// `bytes`, its 0x80 marker and zeros: ``paddedLength(_:)`` of `bytes.count + 1` bytes.
    package static func pad(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        out.reserveCapacity(paddedLength(bytes.count + 1))
        out.append(0x80)
        out += [UInt8](repeating: 0, count: paddedLength(bytes.count + 1) - out.count)
        return out
    }

    /// Writes the marker and zeros after the first `unpaddedLength` bytes of `buffer`,
    /// whose size must be the padded length.
    package static func padInPlace(_ buffer: UnsafeMutableRawBufferPointer, unpaddedLength: Int) throws(CofferError) {
        guard unpaddedLength >= 0, buffer.count == paddedLength(unpaddedLength + 1) else {
            throw .invalidArgument("padding: \(buffer.count) bytes is not the padded length of \(unpaddedLength)")
        }
        buffer[unpaddedLength] = 0x80
        for i in (unpaddedLength + 1)..<buffer.count { buffer[i] = 0 }
    }

    /// The length of the list inside `padded`: zeros back to a 0x80 byte, and `padded`
    /// exactly as long as that list pads to (so each list has one padding). Anything else
    /// throws ``CofferError/malformed(_:)`` naming `structure`.
    package static func unpaddedLength(_ padded: UnsafeRawBufferPointer, structure: @autoclosure () -> String) throws(CofferError) -> Int {
        var index = padded.count - 1
        while index >= 0, padded[index] == 0 { index -= 1 }
        guard index >= 0, padded[index] == 0x80, paddedLength(index + 1) == padded.count else {
            throw .malformed("\(structure()): bad padding")
        }
        return index
    }

    /// The list inside guarded `padded`, in its own guarded buffer.
    package static func unpad(_ padded: SecureBytes, structure: @autoclosure () -> String) throws(CofferError) -> SecureBytes {
        let length = try padded.withUnsafeBytes { (raw) throws(CofferError) in try unpaddedLength(raw, structure: structure()) }
        return try padded.slice(0..<length)
    }
}

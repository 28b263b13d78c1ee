/// A 32-byte digest (BLAKE2b-256) held inline rather than in an array: a vault keeps
/// one per record, and 100,000 small heap arrays cost allocations and reference counting.
package struct Digest256: Sendable, Equatable {
    static let byteCount = 32

    private var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0, d: UInt64 = 0

    static let zero = Digest256()

    private init() {}

    /// The digest in `buffer`, which holds exactly 32 bytes.
    package init(_ buffer: UnsafeRawBufferPointer) {
        precondition(buffer.count == Self.byteCount, "a digest is 32 bytes")
        // Words in native order: `bytes` writes them back the same way, so the bytes
        // round-trip on any machine.
        a = buffer.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        b = buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        c = buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        d = buffer.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
    }

    /// Fills a digest through `body`, which gets its 32 bytes to write.
    static func filling(_ body: (UnsafeMutableRawBufferPointer) -> Int32) -> (Digest256, Int32) {
        var digest = Digest256()
        let status = withUnsafeMutableBytes(of: &digest) { body($0) }
        return (digest, status)
    }

    package var bytes: [UInt8] { withUnsafeBytes(of: self) { Array($0) } }

    /// The first 8 bytes, read as a little-endian `u64`.
    package var prefix64: UInt64 { withUnsafeBytes(of: self) { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) } }

    /// Compares every word, without an early exit.
    package static func == (lhs: Digest256, rhs: Digest256) -> Bool {
        ((lhs.a ^ rhs.a) | (lhs.b ^ rhs.b) | (lhs.c ^ rhs.c) | (lhs.d ^ rhs.d)) == 0
    }
}

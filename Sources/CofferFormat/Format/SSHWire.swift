import CofferCrypto

/// Reads the SSH wire encoding (RFC 4251 §5): `byte`, `uint32` (big-endian) and `string`
/// (a uint32 length, then that many bytes), over bytes it does not own. Every read checks
/// the bytes left first, so a length that points past the end is an error of `kind`
/// (``CofferError/Kind/malformedRequest`` for agent messages, ``CofferError/Kind/invalidKey``
/// for key files) naming `structure`, never an over-read or an allocation of that length.
package struct SSHReader {
    package let bytes: UnsafeRawBufferPointer
    package private(set) var offset = 0
    /// What is being read, for messages ("the agent message", "the OpenSSH key").
    package let structure: String
    package let kind: CofferError.Kind

    package init(_ bytes: UnsafeRawBufferPointer, structure: String, kind: CofferError.Kind) {
        self.bytes = bytes
        self.structure = structure
        self.kind = kind
    }

    package var remaining: Int { bytes.count - offset }
    package var isAtEnd: Bool { offset == bytes.count }

    package func malformed(_ why: String) -> CofferError { CofferError(kind, detail: "\(structure): \(why)") }

    package mutating func byte() throws(CofferError) -> UInt8 {
        guard remaining >= 1 else { throw malformed("truncated") }
        defer { offset += 1 }
        return bytes[offset]
    }

    package mutating func uint32() throws(CofferError) -> UInt32 {
        guard remaining >= 4 else { throw malformed("truncated") }
        defer { offset += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    /// A `string`'s bytes, as a view into `bytes` (valid while they are).
    package mutating func string() throws(CofferError) -> UnsafeRawBufferPointer {
        let length = Int(try uint32())
        guard length <= remaining else { throw malformed("a length of \(length) bytes past the end") }
        defer { offset += length }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    /// A `string` that must be UTF-8 text (a key type, a comment).
    package mutating func text() throws(CofferError) -> String {
        guard let text = String(validating: try string(), as: UTF8.self) else { throw malformed("text that is not UTF-8") }
        return text
    }

    /// A `string` copied out as public bytes (a public key blob, data to sign).
    package mutating func publicString() throws(CofferError) -> [UInt8] { Array(try string()) }

    /// Nothing may follow the last field.
    package func expectEnd() throws(CofferError) {
        guard isAtEnd else { throw malformed("\(remaining) bytes after the last field") }
    }
}

/// Writes the SSH wire encoding of public values (key blobs, signatures, agent answers).
package struct SSHWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func byte(_ value: UInt8) { bytes.append(value) }

    package mutating func uint32(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    package mutating func string(_ value: some Collection<UInt8>) {
        uint32(UInt32(value.count))
        bytes += value
    }

    package mutating func string(_ text: String) { string(Array(text.utf8)) }
}

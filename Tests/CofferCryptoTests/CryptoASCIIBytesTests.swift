import Testing
@testable import CofferCrypto
import CofferTestSupport

/// `ASCIIBytes.all` tests eight bytes at a time (every overview's text when a large vault is
/// listed or saved): it must give the byte-by-byte answer for a high byte at any position of
/// any length, including the tail past the last whole word.
@Suite("Crypto: the ASCII test, eight bytes at a time")
struct CryptoASCIIBytesTests {
    @Test("Random buffers with no high byte, or one at each position, every length to 40, and unaligned starts")
    func wordAtATimeEqualsByteByByte() {
        var random = SeededRandom("ascii-bytes")
        var mismatches: [[UInt8]] = []
        for length in 0...40 {
            for position in -1..<length {
                var bytes = (0..<(length + 3)).map { _ in UInt8.random(in: 0...0x7F, using: &random) }
                if position >= 0 { bytes[3 + position] = UInt8.random(in: 0x80...0xFF, using: &random) }
                for start in 0...3 where start + length <= bytes.count {
                    let slice = Array(bytes[start..<(start + length)])
                    let expected = slice.allSatisfy { $0 < 0x80 }
                    let got = bytes.withUnsafeBytes { ASCIIBytes.all(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
                    if got != expected { mismatches.append(slice) }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        #expect(ASCIIBytes.all(UnsafeRawBufferPointer(start: nil, count: 0)))
    }
}

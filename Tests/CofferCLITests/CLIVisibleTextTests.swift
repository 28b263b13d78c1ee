import Testing
@testable import CofferCLI
import CofferTestSupport

/// `Output.needsEscaping` over a buffer tests eight bytes at a time (every cell of a large
/// listing): it must say exactly what testing each byte says, for every byte value next to
/// the ones that need escaping, at every position and length.
@Suite("CLI: which text needs escaping")
struct CLIVisibleTextTests {
    @Test("Random byte strings: the eight-at-a-time test equals the byte-by-byte one")
    func wordAtATimeEqualsByteByByte() {
        var random = SeededRandom("cli-needs-escaping")
        // Each byte that needs escaping, its neighbours, and ordinary text.
        let edges: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0x81, 0xC1, 0xC2, 0xC3, 0xFE, 0xFF]
        let plain = Array("abcdefghijklmnopqrstuvwxyz.-@ 0123456789".utf8)
        var mismatches: [[UInt8]] = []
        var escaped = 0
        for length in 0...40 {
            for trial in 0..<80 {
                // Mostly plain text, so that a buffer holds one byte to find, or none.
                var bytes = (0..<length).map { _ in plain.randomElement(using: &random)! }
                if length > 0 && trial % 4 != 0 {
                    bytes[Int.random(in: 0..<length, using: &random)] = edges.randomElement(using: &random)!
                }
                let expected = bytes.contains(where: Output.needsEscaping)
                if expected { escaped += 1 }
                if bytes.withUnsafeBytes({ Output.needsEscaping($0) }) != expected { mismatches.append(bytes) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        #expect(escaped > 500)   // about a quarter of the strings
    }

    @Test("A cell with a control character, a backslash or a C1 control is escaped; plain UTF-8 is kept")
    func appendVisible() {
        func shown(_ text: String) -> String {
            var out: [UInt8] = []
            Array(text.utf8).withUnsafeBytes { Output.appendVisible($0, to: &out) }
            return String(decoding: out, as: UTF8.self)
        }
        #expect(shown("github.com-and-more-than-8") == "github.com-and-more-than-8")
        #expect(shown("caf\u{e9} \u{a0}nbsp") == "caf\u{e9} \u{a0}nbsp")
        #expect(shown("abcdefgh\u{1b}]0;x\u{7}") == "abcdefgh\\u{1B}]0;x\\u{07}")
        #expect(shown("abcdefghij\\k") == "abcdefghij\\\\k")
        #expect(shown("abcdefghij\u{85}") == "abcdefghij\\u{85}")
        #expect(shown("abcdefghij\u{7f}") == "abcdefghij\\u{7F}")
    }
}

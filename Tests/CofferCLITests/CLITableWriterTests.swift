import Testing
@testable import CofferCLI

/// A table's line (`TableWriter.line`), byte for byte: cells padded to their columns' widths
/// but the last, two spaces apart, blanks trimmed at both ends (ASCII ones in place, the
/// others, and any line with a non-ASCII end, as `.whitespaces` trims).
@Suite("CLI: a table's lines (known answers)")
struct CLITableWriterTests {
    static func line(_ cells: [String], widths: [Int]) throws -> String {
        var writer = TableWriter(widths: widths)
        let text = Array(cells.joined().utf8)
        let lengths = cells.map { UInt32($0.utf8.count) }, cellWidths = cells.map { UInt32($0.count) }
        try text.withUnsafeBytes { text in
            try lengths.withUnsafeBufferPointer { lengths in
                try cellWidths.withUnsafeBufferPointer { try writer.line(text, lengths: lengths, widths: $0) }
            }
        }
        return String(decoding: writer.out, as: UTF8.self)
    }

    @Test("Padding, the empty last cell, blanks and non-ASCII at either end, one line each")
    func knownAnswers() throws {
        let widths = [5, 3, 4, 4]
        #expect(try Self.line(["ab", "c", "kind", ""], widths: widths) == "ab     c    kind\n")
        #expect(try Self.line(["abcde", "xyz", "note", "#a"], widths: widths) == "abcde  xyz  note  #a\n")
        #expect(try Self.line(["", "", "", ""], widths: widths) == "\n")
        #expect(try Self.line(["ab", "c", "k", "#t\t"], widths: widths) == "ab     c    k     #t\n")
        #expect(try Self.line([" x", "c", "k", "#t\t"], widths: widths) == "x     c    k     #t\n")
        #expect(try Self.line(["ab", "c", "kind", "#caf\u{e9}"], widths: widths) == "ab     c    kind  #caf\u{e9}\n")
        #expect(try Self.line(["\u{e9}t\u{e9}", "c", "kind", "x\u{a0}"], widths: widths) == "\u{e9}t\u{e9}    c    kind  x\n")
        // A cell wider than its column (never in a real table) is not cut, and pads nothing.
        #expect(try Self.line(["abcdefg", "c", "k", "t"], widths: widths) == "abcdefg  c    k     t\n")
    }
}

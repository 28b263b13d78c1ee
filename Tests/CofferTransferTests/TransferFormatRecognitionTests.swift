import Foundation
import Testing
@testable import CofferTransfer
import CofferTestSupport

/// Issue 28, finding 11: `import` needed `--format` for files whose format their first
/// bytes tell (``ImportFormat/recognising(_:)``).
@Suite("Import: the format told from the file")
struct TransferFormatRecognitionTests {
    @Test("Each fixture, and Coffer's own export, is recognised as the format its importer reads",
          arguments: [("keepassxc.xml", ImportFormat.keepassxcXML), ("keepassxc.csv", .keepassxcCSV),
                      ("bitwarden.json", .bitwardenJSON), ("chrome.csv", .browserCSV), ("firefox.csv", .browserCSV)])
    func fixtures(name: String, format: ImportFormat) throws {
        #expect(ImportFormat.recognising(try Fixtures.bytes(name)) == format)
    }

    @Test("An export re-imports without naming its format; a byte order mark and leading blanks are passed over")
    func ownExport() throws {
        try withImportVault { vault in
            _ = try vault.importItems(fromFile: Fixtures.path("bitwarden.json"))
            let export = try vault.exportItems(format: .json)
            #expect(ImportFormat.recognising(export) == .cofferJSON)
            #expect(ImportFormat.recognising(try vault.exportItems(format: .csv)) == .browserCSV)
            let marked = try SecureBytes(copying: [0xEF, 0xBB, 0xBF, 0x0A, 0x20] + Array("<?xml version=\"1.0\"?><KeePassFile>".utf8))
            #expect(ImportFormat.recognising(marked) == .keepassxcXML)
            let report = try vault.importItems(from: export, dryRun: true)
            #expect(report.format == .cofferJSON && report.imported == 0)
        }
    }

    @Test("What fits no format is nil, and the import says to name it; any bytes give an answer, never a crash")
    func unknown() throws {
        for text in ["", "   \n", "<html><body>", "{\"name\": \"x\"}", "just some words\nmore", "a,b,c\n1,2,3\n", "[1, 2]"] {
            #expect(ImportFormat.recognising(try SecureBytes(copying: Array(text.utf8))) == nil, "\(text)")
        }
        try withImportVault { vault in
            #expect(throws: CofferError.unsupportedImport) { try vault.importItems(from: try SecureBytes(copying: Array("a,b\n".utf8))) }
        }
        var rng = SeededRandom("recognition")
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let prefix = ["", "<", "{", "url,"].randomElement(using: &rng)!
            _ = ImportFormat.recognising(try SecureBytes(copying: Array(prefix.utf8) + bytes))
        }
    }
}

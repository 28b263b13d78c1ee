import Foundation
import Testing
import Coffer
import CofferTestSupport

/// `Wordlist(contentsOf:)`: the umbrella product reads a word-list file through the Store's
/// seam (the generator's layer does no I/O of its own).
@Suite("Coffer: word lists read from files")
struct UmbrellaWordlistFileTests {
    /// A file in a fresh temporary folder, removed afterwards.
    static func withFile<R>(_ contents: String, _ body: (String) throws -> R) throws -> R {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-wordlist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("words.txt")
        try Data(contents.utf8).write(to: file)
        return try body(file.path)
    }

    @Test("A plain file and an EFF dice file with CRLF read as their words")
    func files() throws {
        let plain = try Self.withFile("red\ngreen\n\nblue\n") { try Wordlist(contentsOf: $0) }
        #expect(plain.words == ["red", "green", "blue"])
        let dice = try Self.withFile("11111\tabacus\r\n11112\tabdomen\r\n") { try Wordlist(contentsOf: $0) }
        #expect(dice.words == ["abacus", "abdomen"])
        #expect(throws: CofferError.invalidWordList) { try Self.withFile("red\nred\n") { _ = try Wordlist(contentsOf: $0) } }
    }

    @Test("A missing file, a folder and a FIFO are typed errors; a FIFO never blocks")
    func notFiles() throws {
        #expect(throws: CofferError.fileNotFound("/nonexistent/coffer/words.txt")) {
            _ = try Wordlist(contentsOf: "/nonexistent/coffer/words.txt")
        }
        #expect { _ = try Wordlist(contentsOf: "/") } throws: { ($0 as? CofferError)?.kind == .notARegularFile }
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        #expect { _ = try Wordlist(contentsOf: fifo) } throws: { ($0 as? CofferError)?.kind == .notARegularFile }
    }
}

import Foundation
import Testing
import CofferTestSupport

/// A second reader of format 2, written from SPEC.md alone (`Tests/SpecReader/reader.py`,
/// Python over libsodium): every format-2 vector must open, in it, with the outcome class,
/// entries and generation the vector states; and its merger (`merge.py`, from §17 alone)
/// must give every merge vector's result. A disagreement is a question about SPEC.md.
@Suite("Format: a reader written from SPEC.md alone")
struct SpecReaderTests {
    /// Debian's python3 (the test dependencies install it), else the first on PATH.
    static let python: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = ["/usr/bin/python3"] + path.split(separator: ":").map { "\($0)/python3" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// `Tests/SpecReader/<script> Tests/Vectors` run to its end (no bytecode written), which
    /// must exit 0.
    static func run(_ script: String) throws -> ProcessResult {
        let python = try #require(python, "python3 is missing (apt-get install python3)")
        let root = TestPaths.repositoryRoot
        let result = try runProcess(URL(fileURLWithPath: python),
                                    ["-B", root.appendingPathComponent("Tests/SpecReader/\(script)").path,
                                     root.appendingPathComponent("Tests/Vectors").path],
                                    timeout: 300)
        #expect(result.status == 0 && !result.killed && !result.timedOut, "\(result.out)\(result.err)")
        return result
    }

    @Test("The clean-room reader agrees with every format-2 vector: outcome class, entries, generation")
    func agreesWithEveryVector() throws {
        let result = try Self.run("check.py")
        // The summary names every format-2 file of the folder.
        let vectors = try FileManager.default.contentsOfDirectory(atPath: TestPaths.repositoryRoot.appendingPathComponent("Tests/Vectors").path)
            .filter { $0.hasPrefix("v2-") && $0.hasSuffix(".vec") }
        #expect(result.out.contains("agree \(vectors.count) disagree 0 of \(vectors.count)"), "\(result.out)")
    }

    @Test("The clean-room merger (Tests/SpecReader/merge.py) gives every merge vector's result in every order, and refuses what they refuse")
    func mergesEveryVector() throws {
        let result = try Self.run("merge_check.py")
        #expect(result.out.contains("disagree  0\n") && !result.out.contains("DISAGREE"), "\(result.out)")
    }
}

import CofferTestSupport
import Foundation
import Testing

/// Issue 26, finding 5: the word lists were a resource bundle beside the program, and a
/// `coffer` copied without it (an install, a copy, an app) went on without them: it rated
/// `password123` 4/4 "very unguessable", stopped warning about weak master passwords and
/// could not make passphrases (exit 74). The lists are compiled in now; these tests copy
/// the built binary alone into an empty folder and run it there with a bare environment.
/// (`make install`, then a copy of the installed binary: Tests/Packaging/install-check.sh.)
@Suite("coffer copied alone")
struct CLICopiedBinaryTests {
    /// Runs `body` with a folder that holds only a copy of the built `coffer`.
    private func withCopiedBinary(_ body: (URL, [String: String]) throws -> Void) throws {
        let binary = try #require(CLI.binary, "the coffer binary is not built; run `swift build --build-tests`")
        try withTemporaryDirectory { dir in
            let copy = dir.appendingPathComponent("coffer")
            try FileManager.default.copyItem(atPath: binary, toPath: copy.path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["coffer"])
            // Nothing in the environment points at the checkout or a bundle.
            let bare = ["PATH": "/usr/bin:/bin", "HOME": dir.path, "XDG_STATE_HOME": CLI.stateHome]
            try body(copy, bare)
        }
    }

    private func run(_ copy: URL, _ arguments: [String], input: String = "", environment: [String: String]) throws -> CLIResult {
        let result = try runProcess(copy, arguments, input: input, in: copy.deletingLastPathComponent(),
                                    environment: environment, timeout: 30)
        #expect(!result.timedOut, "coffer \(arguments.joined(separator: " ")) timed out")
        return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    @Test("estimate: password123 scores below 3, found in the common-passwords list")
    func estimate() throws {
        try withCopiedBinary { copy, environment in
            let result = try run(copy, ["estimate", "--json"], input: "password123\n", environment: environment)
            #expect(result.status == 0, "\(result.err)")
            let json = try result.jsonObject()
            let score = try #require(json["score"] as? Int, "\(result.out)")
            #expect(score < 3, "\(result.out)")
            let patterns = try #require(json["patterns"] as? [[String: Any]])
            #expect(patterns.contains { $0["dictionary"] as? String == "commonPasswords" }, "\(result.out)")
        }
    }

    @Test("passphrase: six words of the EFF list")
    func passphrase() throws {
        try withCopiedBinary { copy, environment in
            // Spaces between words: four EFF words have a hyphen of their own (t-shirt), so a
            // passphrase joined by "-" does not split back into its words.
            let result = try run(copy, ["passphrase", "--json", "--separator", " "], environment: environment)
            #expect(result.status == 0, "\(result.err)")
            let json = try result.jsonObject()
            let phrase = try #require((json["passphrases"] as? [String])?.first, "\(result.out)")
            let words = phrase.split(separator: " ")
            #expect(words.count == 6 && words.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "-" } }, "\(phrase)")
            #expect((json["entropyBits"] as? Double).map { $0 > 77 } == true, "\(result.out)")
        }
    }

    @Test("init: a weak master password is still warned about")
    func initWarns() throws {
        try withCopiedBinary { copy, environment in
            let result = try run(copy, ["init", "w.coffer"] + fastKDF, input: "password123\n", environment: environment)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("coffer: warning: this master password is easy to guess"), "\(result.err)")
        }
    }
}

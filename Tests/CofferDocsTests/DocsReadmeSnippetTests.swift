import Foundation
import Testing
import Coffer
import CofferTestSupport

/// The README's "Use Coffer in your package" snippet, compiled and run.
/// The test below checks that README.md shows exactly these lines.
func readmeSnippet(directory: String) throws {
    // README-SNIPPET-BEGIN
    let path = directory + "/demo.coffer"
    let password = try SecureBytes(copying: "correct horse battery staple")

    // Create a vault (Argon2id, 256 MiB by default), add an item, find it, read it.
    let vault = try Vault.create(at: path, password: password, options: VaultOptions(kdf: .init(memoryKiB: 8 * 1024, iterations: 3, lanes: 1)))
    var login = ItemAttributes.genericPassword(service: "github.com", account: "octocat")
    login.label = "GitHub"
    login.tags = ["work"]
    try vault.add(login, secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2")))

    let reopened = try Vault.open(at: path, password: password)
    let items = try reopened.items(matching: ItemQuery(tag: "work"))    // decrypts no secret
    let secret = try reopened.secrets(for: items[0].id).password        // SecureBytes, on demand
    print(items[0].label ?? "", secret ?? "none")                       // GitHub <redacted>

    try reopened.delete(items[0].id)
    reopened.lock()                                                     // wipes the keys
    // README-SNIPPET-END
}

/// The README's generator snippet.
func readmeGeneratorSnippet() throws -> (SecureBytes, Double, String, StrengthEstimate) {
    // README-SNIPPET-BEGIN
    let generator = try PasswordGenerator(policy: PasswordPolicy(length: 24, requireEachClass: true))
    let password = try generator.generate()            // SecureBytes; rejection-sampled, unbiased
    print(generator.entropyBits)                        // exact, requirements included
    let phrase = try PassphraseGenerator(policy: PassphrasePolicy(wordCount: 6)).generateString()
    let estimate = StrengthEstimator.estimate("Tr0ub4dor&3")   // zxcvbn-style: score 0...4, guesses, feedback
    // README-SNIPPET-END
    return (password, generator.entropyBits, phrase, estimate)
}

@Suite("Docs: README")
struct DocsReadmeSnippetTests {
    @Test("The README snippet runs and README shows it verbatim")
    func snippet() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try readmeSnippet(directory: dir.path)
        // The deleted item stays as a tombstone record, so that other replicas learn of the deletion.
        #expect(try Vault.info(at: dir.path + "/demo.coffer").entryCount == 1)
        #expect(try Vault.open(at: dir.path + "/demo.coffer", password: try SecureBytes(copying: "correct horse battery staple"),
                               options: testOptions).items().isEmpty)

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begins = lines.indices.filter { lines[$0].hasSuffix("// README-SNIPPET-BEGIN") }
        let ends = lines.indices.filter { lines[$0].hasSuffix("// README-SNIPPET-END") }
        #expect(begins.count == 2 && ends.count == 2, "snippet markers missing")
        for (begin, end) in zip(begins, ends) {
            // The README shows the generator snippet at top level, the vault one inside a function.
            let body = lines[(begin + 1)..<end]
            let asInFunction = body.joined(separator: "\n")
            let atTopLevel = body.map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }.joined(separator: "\n")
            #expect(readme.contains(asInFunction) || readme.contains(atTopLevel),
                    "README.md must contain the snippet at line \(begin + 2) of DocsReadmeSnippetTests.swift verbatim")
        }
    }

    /// The numbers of EFF words `phrase` can be read as, joined by "-": four EFF words have a
    /// hyphen of their own (drop-down, felt-tip, t-shirt, yo-yo), so its pieces between
    /// hyphens are not its words.
    static func wordCounts(_ phrase: String) throws -> Set<Int> {
        let words = Set(try Wordlist.effLarge.words)
        let pieces = phrase.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        var counts = [Set<Int>](repeating: [], count: pieces.count + 1)
        counts[0] = [0]
        for start in pieces.indices where !counts[start].isEmpty {
            for end in (start + 1)...pieces.count where words.contains(pieces[start..<end].joined(separator: "-")) {
                counts[end].formUnion(counts[start].map { $0 + 1 })
            }
        }
        return counts[pieces.count]
    }

    @Test("A passphrase with a hyphenated EFF word still reads as its six words (CI once drew t-shirt)")
    func hyphenatedWords() throws {
        #expect(try Self.wordCounts("sinner-smell-petri-t-shirt-dice-rocklike") == [6])
        #expect(try Self.wordCounts("yo-yo-drop-down-felt-tip-t-shirt-abacus-zoom") == [6])
        #expect(try Self.wordCounts("sinner-smell-petri-t-shirt-dice-rocklike".replacingOccurrences(of: "t-shirt", with: "tshirt")).isEmpty)
    }

    @Test("The README generator snippet gives what its comments say")
    func generatorSnippet() throws {
        let (password, bits, phrase, estimate) = try readmeGeneratorSnippet()
        #expect(password.count == 24)
        #expect(bits > 140)
        #expect(try Self.wordCounts(phrase).contains(6), "\(phrase)")
        #expect(estimate.score <= 2)
    }
}

import Foundation
import Testing
import Coffer

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

@Suite("README")
struct ReadmeSnippetTests {
    @Test("The README snippet runs and README shows it verbatim")
    func snippet() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try readmeSnippet(directory: dir.path)
        #expect(try Vault.info(at: dir.path + "/demo.coffer").entryCount == 0)

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        guard let begin = lines.firstIndex(where: { $0.contains("README-SNIPPET-BEGIN") }),
              let end = lines.firstIndex(where: { $0.contains("README-SNIPPET-END") }) else {
            Issue.record("snippet markers missing")
            return
        }
        let snippet = lines[(begin + 1)..<end].joined(separator: "\n")
        #expect(readme.contains(snippet), "README.md must contain the snippet from ReadmeSnippetTests.swift verbatim")
    }
}

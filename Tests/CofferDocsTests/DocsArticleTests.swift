import Foundation
import Testing
import Coffer
import CofferTestSupport

/// The DocC catalogue's Swift code (Sources/Coffer/Coffer.docc): every ```swift block of every
/// article is a snippet of DocsArticleSnippets.swift, which the compiler checks and the tests
/// below run; the catalogue's pages are all reachable from its overview.
@Suite("Docs: DocC articles")
struct DocsArticleTests {
    static let catalogue = TestPaths.repositoryRoot.appendingPathComponent("Sources/Coffer/Coffer.docc")
    static let snippetsFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("DocsArticleSnippets.swift")

    /// The ```swift blocks of a Markdown text, each without its fence lines.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
            } else if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current!.append(line)
            }
        }
        return blocks
    }

    /// The snippets of DocsArticleSnippets.swift: (article file name, code).
    static func snippets() throws -> [(article: String, code: String)] {
        let lines = try String(contentsOf: snippetsFile, encoding: .utf8).components(separatedBy: "\n")
        var result: [(String, String)] = []
        var open: (article: String, start: Int)?
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("// DOCC-SNIPPET-BEGIN ") {
                #expect(open == nil, "a snippet begins inside another at line \(index + 1)")
                open = (String(line.dropFirst("// DOCC-SNIPPET-BEGIN ".count)), index + 1)
            } else if line == "// DOCC-SNIPPET-END", let begun = open {
                result.append((begun.article, lines[begun.start..<index].joined(separator: "\n")))
                open = nil
            }
        }
        #expect(open == nil, "a snippet is never ended")
        return result
    }

    static func articles() throws -> [String: String] {
        let names = try FileManager.default.contentsOfDirectory(atPath: catalogue.path).filter { $0.hasSuffix(".md") }
        var texts: [String: String] = [:]
        for name in names { texts[name] = try String(contentsOf: catalogue.appendingPathComponent(name), encoding: .utf8) }
        return texts
    }

    @Test("Every article's Swift code is a compiled snippet, verbatim, and every snippet is in its article")
    func articlesShowCompiledCode() throws {
        let articles = try Self.articles()
        let snippets = try Self.snippets()
        #expect(snippets.count >= 8)
        for (name, text) in articles {
            let own = snippets.filter { $0.article == name }.map(\.code)
            for block in Self.swiftBlocks(text) {
                #expect(own.contains(block), "\(name) has a ```swift block that is not a snippet of DocsArticleSnippets.swift:\n\(block)")
            }
        }
        for snippet in snippets {
            let text = try #require(articles[snippet.article], "no article \(snippet.article) in the catalogue")
            #expect(Self.swiftBlocks(text).contains(snippet.code), "\(snippet.article) does not show its snippet verbatim")
        }
    }

    @Test("The catalogue has every article, and the overview's Topics link each")
    func overviewLinksEveryArticle() throws {
        let articles = try Self.articles()
        let overview = try #require(articles["Coffer.md"], "Coffer.md, the overview page, is missing")
        #expect(overview.hasPrefix("# ``Coffer``"))
        #expect(overview.contains("## Topics"))
        for required in ["GettingStarted", "KeySlotsAndCredentials", "TransactionsAndProcesses", "SecretsInMemory",
                         "ImportAndExport", "ThreatModel", "SeveralDevices", "UnlockOnce", "RevokingAccess", "SharingAVault"] {
            #expect(articles["\(required).md"] != nil, "the catalogue lacks \(required).md")
            #expect(overview.contains("<doc:\(required)>"), "Coffer.md's Topics do not link \(required).md")
        }
    }

    // MARK: The snippets run and do what their comments say

    @Test("In a developer's day: a login for a URL, an SSH key kept, the agent lists it")
    func developerToolsRuns() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.path + "/dev.coffer", password: try secure("pw"), options: testOptions)
            try vault.add(.internetPassword(server: "github.com", account: "octocat", protocol: "https"))
            let key = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/ssh/id_ed25519").path
            let reply = try developerTools(vault: vault, keyFilePath: key)
            #expect(Array(reply.prefix(5)) == [12, 0, 0, 0, 1])
            #expect(try vault.sshKeys().map(\.item.displayName) == ["laptop"])
        }
    }

    @Test("Getting started: create, add, find, read, change, lock")
    func gettingStartedRuns() throws {
        try withTemporaryDirectory { dir in
            try gettingStarted(in: dir.path)
            let vault = try Vault.open(at: dir.path + "/personal.coffer", password: try secure("correct horse battery staple"), options: testOptions)
            let item = try #require(try vault.items().first)
            let secrets = try vault.secrets(for: item.id)
            #expect(secrets.password == (try secure("a better one")))
            #expect(secrets.notes == (try secure("recovery codes in the safe")))
            #expect(secrets.passwordHistory.count == 1)
        }
    }

    @Test("Revoking access: a merge reports the slots a copy added")
    func reportingSlotsRuns() throws {
        try withTemporaryDirectory { dir in
            let path = dir.path + "/v.coffer", copy = dir.path + "/copy.coffer"
            let vault = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try Vault.open(at: copy, password: try secure("pw"), options: testOptions)
                .addKeySlot(.rawKey(try SecureBytes(copying: [UInt8](repeating: 1, count: 32))))
            try vault.add(.genericPassword(service: "s", account: "a"))   // a save: the backup exists
            try reportingSlots(vault, copy: copy)
            #expect(try Vault.info(at: path).slots.map(\.kind) == [.password, .rawKey])
        }
    }

    @Test("Sharing a vault: shared with an SSH key, opened by the private key, taken back with a rotation")
    func sharingAVaultRuns() throws {
        try withTemporaryDirectory { dir in
            let fixtures = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/ssh")
            let key = dir.path + "/id_ed25519"
            try FileManager.default.copyItem(atPath: fixtures.appendingPathComponent("id_ed25519").path, toPath: key)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
            let pub = try String(contentsOf: fixtures.appendingPathComponent("id_ed25519.pub"), encoding: .utf8)
            try sharingAVault(in: dir.path, bobsPublicKey: pub, bobsKeyPath: key)
            let path = dir.path + "/team.coffer"
            #expect(throws: CofferError.wrongIdentity) {
                try Vault.open(at: path, credential: .identity(try VaultIdentity(contentsOf: key)), options: testOptions)
            }
            let vault = try Vault.open(at: path, password: try secure("alice's passphrase"), options: testOptions)
            #expect(vault.recipients.isEmpty)
            #expect(Set(try vault.items().compactMap(\.service)) == ["router", "new router"])
        }
    }

    @Test("Revoking access: the old password and an old copy read nothing saved after the change; the key file is required")
    func revokingAccessRuns() throws {
        try withTemporaryDirectory { dir in
            try revokingAccess(in: dir.path)
            let path = dir.path + "/shared.coffer"
            #expect(try Vault.info(at: path).keyFileRequired)
            #expect(throws: CofferError.wrongPassword) {
                try Vault.open(at: path, password: try secure("a new passphrase nobody has seen"), options: testOptions)
            }
            let file = try KeyFile(contentsOf: dir.path + "/vault.key")
            let vault = try Vault.open(at: path, credential: .passwordAndKeyFile(try secure("a new passphrase nobody has seen"), file),
                                       options: testOptions)
            #expect(Set(try vault.items().compactMap(\.service)) == ["bank", "new bank"])
            let old = try Vault.open(at: dir.path + "/old-copy.coffer", password: try secure("a password someone else saw"), options: testOptions)
            #expect(try old.items().compactMap(\.service) == ["bank"])
            #expect(throws: CofferError.otherKeyEpoch) { try old.merge(contentsOf: path) }
            // The other way, the old copy is read with the earlier key: nothing new, no slot.
            let slots = try Vault.info(at: path).slots.count
            try mergeOfflineLaptop(vault, laptopCopy: dir.path + "/old-copy.coffer")
            #expect(try Vault.info(at: path).slots.count == slots)
            #expect(throws: CofferError.self) { try Vault.open(at: path, password: try secure("a password someone else saw"), options: testOptions) }
        }
    }

    @Test("Key slots: password, key file, raw key; the password change and the removed slot last")
    func keySlotsRun() throws {
        try withTemporaryDirectory { dir in
            try keySlotsAndCredentials(in: dir.path)
            let path = dir.path + "/slots.coffer"
            #expect(Set(try Vault.info(at: path).slots.map(\.kind)) == [.password, .keyFile])
            #expect(throws: CofferError.wrongPassword) {
                try Vault.open(at: path, password: try secure("correct horse battery staple"), options: testOptions)
            }
            _ = try Vault.open(at: path, password: try secure("a new, longer passphrase"), options: testOptions)
            _ = try Vault.open(at: path, credential: .keyFile(try KeyFile(contentsOf: dir.path + "/vault.key")), options: testOptions)
        }
    }

    @Test("Transactions: a transfer saves both items or neither")
    func transactionRuns() throws {
        try withTemporaryDirectory { dir in
            let path = dir.path + "/bank.coffer"
            let vault = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            let a = try vault.add(.genericPassword(service: "bank", account: "a"), secrets: ItemSecrets(notes: try secure("100")))
            let b = try vault.add(.genericPassword(service: "bank", account: "b"), secrets: ItemSecrets(notes: try secure("5")))
            try transferBalance(in: vault, from: a.id, to: b.id, amount: 30)
            #expect(throws: CofferError.invalidArgument) { try transferBalance(in: vault, from: a.id, to: b.id, amount: 1000) }
            let reopened = try Vault.open(at: path, password: try secure("pw"), options: testOptions)
            #expect(try reopened.secrets(for: a.id).notes == (try secure("70")))
            #expect(try reopened.secrets(for: b.id).notes == (try secure("35")))
        }
    }

    @Test("Transactions: two handles on one file both save, and a duplicate is refused")
    func twoProcessesRun() throws {
        try withTemporaryDirectory { dir in
            let path = dir.path + "/shared.coffer"
            _ = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            try twoProcesses(path: path, password: try secure("pw"))
            let names = try Vault.open(at: path, password: try secure("pw"), options: testOptions).items().compactMap(\.service)
            #expect(names.sorted() == ["chat", "mail"])
        }
    }

    @Test("Secrets in memory: the snippet runs")
    func secretsInMemoryRuns() throws {
        try secretsInMemory()
    }

    @Test("Import and export: Bitwarden in, Coffer JSON out and back in, a TOTP code")
    func importAndExportRuns() throws {
        try withTemporaryDirectory { dir in
            let export = dir.appendingPathComponent("bitwarden.json")
            try Data("""
                {"encrypted": false, "items": [
                  {"type": 1, "name": "one", "login": {"username": "a", "password": "p1", "uris": [{"uri": "https://one.example"}]}},
                  {"type": 2, "name": "a note", "notes": "text", "secureNote": {"type": 0}}
                ]}
                """.utf8).write(to: export)
            let vault = try Vault.create(at: dir.path + "/a.coffer", password: try secure("pw"), options: testOptions)
            let other = try Vault.create(at: dir.path + "/b.coffer", password: try secure("pw"), options: testOptions)
            try importAndExport(vault: vault, bitwardenExport: export.path, otherVault: other)
            #expect(try other.items().count == 2)
            #expect(try vault.items().count == 3)
            let vpn = try #require(try vault.firstItem(matching: ItemQuery(service: "vpn")))
            #expect(try vault.secrets(for: vpn.id).totp()?.period == 30)
        }
    }

    @Test("Several devices: a copy edited apart merges back; the conflict is resolved")
    func mergeRuns() throws {
        try withTemporaryDirectory { dir in
            let options = VaultOptions(kdf: testOptions.kdf)
            let laptopPath = dir.path + "/laptop/vault.coffer"
            let phonePath = dir.path + "/phone/vault.coffer"
            for folder in ["laptop", "phone"] {
                try FileManager.default.createDirectory(at: dir.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            let laptop = try Vault.create(at: laptopPath, password: try secure("pw"), options: options)
            let shared = try laptop.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: try secure("one")))
            try FileManager.default.copyItem(atPath: laptopPath, toPath: phonePath)
            let phone = try Vault.open(at: phonePath, password: try secure("pw"), options: options)
            try phone.add(.genericPassword(service: "chat", account: "me"))
            try phone.update(shared.id, secrets: ItemSecrets(password: try secure("from the phone")))
            try laptop.update(shared.id, secrets: ItemSecrets(password: try secure("from the laptop")))
            #expect(try laptop.itemsWithConflicts().isEmpty)

            try mergeTwoDevices(laptopPath: laptopPath, phoneCopyPath: phonePath, password: try secure("pw"))
            let merged = try Vault.open(at: laptopPath, password: try secure("pw"), options: options)
            #expect(try merged.items().compactMap(\.service).sorted() == ["chat", "mail"])
            #expect(try merged.itemsWithConflicts().isEmpty, "the snippet resolves what it printed")
            #expect(try merged.secrets(for: shared.id).passwordHistory.count >= 1, "the losing password is in the history")
        }
    }

    @Test("Several devices: a sync conflict copy is merged and deleted, nothing kept in the synced folder; another vault's copy is left")
    func conflictCopiesRun() throws {
        try withTemporaryDirectory { dir in
            let keyFile = try KeyFile.generate(at: dir.path + "/vault.key")
            let options = VaultOptions(kdf: testOptions.kdf)
            let path = dir.path + "/vault.coffer"
            let vault = try Vault.create(at: path, credential: .keyFile(keyFile), options: options)
            try vault.add(.genericPassword(service: "mail", account: "me"))
            let syncthing = dir.path + "/vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
            let dropbox = dir.path + "/vault (Jane's conflicted copy 2026-03-01).coffer"
            try FileManager.default.copyItem(atPath: path, toPath: syncthing)
            try Vault.open(at: syncthing, credential: .keyFile(keyFile), options: options).add(.genericPassword(service: "chat", account: "me"))
            _ = try Vault.create(at: dropbox, credential: .keyFile(keyFile), options: options)

            #expect(try mergeConflictCopies(vaultPath: path, keyFilePath: dir.path + "/vault.key") == 1)
            #expect(!FileManager.default.fileExists(atPath: syncthing))
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/.coffer-merged"), "no merged copy stays in the synced folder")
            #expect(FileManager.default.fileExists(atPath: dropbox), "another vault's copy is left alone")
            let merged = try Vault.open(at: path, credential: .keyFile(keyFile), options: options)
            #expect(try merged.items().compactMap(\.service).sorted() == ["chat", "mail"])
        }
    }

    @Test("Unlock once: the second open needs no password; lock forgets the cached unlock")
    func unlockOnceRuns() throws {
        try withTemporaryDirectory { dir in
            let path = dir.path + "/cached.coffer"
            let created = try Vault.create(at: path, password: try secure("pw"), options: testOptions)
            defer { try? KernelKeyring().remove(forVault: created.vaultID) }
            let prompts = PromptCounter()
            _ = try openWithCachedUnlock(path: path, askForPassword: prompts.ask)
            _ = try openWithCachedUnlock(path: path, askForPassword: prompts.ask)
            #expect(prompts.count == 1, "the second open used the cached unlock")
            try listAndLock(path: path)
            #expect(try KernelKeyring().cachedUnlock(forVault: created.vaultID) == nil)
            _ = try openWithCachedUnlock(path: path, askForPassword: prompts.ask)
            #expect(prompts.count == 2, "after lock, the password is asked for again")
        }
    }
}

/// Stands for a password prompt, and counts how often it was shown.
private final class PromptCounter {
    private(set) var count = 0
    func ask() throws -> SecureBytes {
        count += 1
        return try secure("pw")
    }
}

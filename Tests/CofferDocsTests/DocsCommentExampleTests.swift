import Foundation
import Testing
import Coffer
import CofferTestSupport

// Examples from `///` comments of the public API, compiled here. Each block between the
// markers must appear, line for line, in a ```swift example of the doc comments of the file
// its BEGIN line names: DocsCommentExampleTests fails when the comment and the compiled
// code part. The functions are never called; their parameters stand for what the
// examples take as given.

func keySlotKindExample(url: URL, vault: Vault) throws {
    // DOC-EXAMPLE-BEGIN Sources/CofferFormat/Model/KeySlotKind.swift
    let info = try Vault.info(at: url)                       // VaultInfo.slots: [KeySlotInfo]
    if info.slots.contains(where: { $0.kind == .rawKey }) { /* offer "unlock with device key" */ }
    if vault.slots.contains(.rawKey) { /* an open Vault's slots are [KeySlotKind] */ }
    // DOC-EXAMPLE-END
}

func vaultExample() throws -> (found: [Item], secret: SecureBytes?) {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/Vault.swift
    let password = try SecureBytes(copying: "correct horse battery staple")
    let vault = try Vault.create(at: "/tmp/demo.coffer", password: password)
    let item = try vault.add(.genericPassword(service: "github.com", account: "octocat"),
                             secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2")))
    let found = try vault.items(matching: ItemQuery(service: "github.com"))
    let secret = try vault.secrets(for: item.id).password   // SecureBytes, decrypted on demand
    try vault.delete(item.id)
    vault.lock()                                             // wipes the keys
    // DOC-EXAMPLE-END
    return (found, secret)
}

func vaultTransactionExample(vault: Vault, oldItem: Item) throws -> Item {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/VaultTransaction.swift
    try vault.transaction { tx in
        let a = try tx.add(.genericPassword(service: "bank", account: "alice"), secrets: ItemSecrets())
        try tx.delete(oldItem.id)
    // DOC-EXAMPLE-END
        return a
    }
}

func recipientsExample(vault: Vault, path: String) throws -> KeySlotChange {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/Vault+Recipients.swift
    let bob = try VaultRecipient("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFQkfMVE46NcZ8O7UneMHjEy5PLkFwKWkweyJ5HrW53v bob@laptop")
    try vault.addRecipient(bob, label: "bob")
    // Bob: Vault.open(at: path, credential: .identity(try VaultIdentity(contentsOf: "/home/bob/.ssh/id_ed25519")))
    // DOC-EXAMPLE-END
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/VaultIdentity+File.swift
    let identity = try VaultIdentity(contentsOf: "/home/bob/.ssh/id_ed25519")
    let asBob = try Vault.open(at: "team.coffer", credential: .identity(identity))
    // DOC-EXAMPLE-END
    _ = asBob
    return try vault.removeRecipient(bob)
}

func credentialLoopExample(path: String, keyFilePath: String?, askUser: (String) throws -> SecureBytes) throws -> Vault {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/CredentialChoice.swift
    let keyFile = try keyFilePath.map { try KeyFile(contentsOf: $0) }
    let opened = try Vault.open(at: path, keyFile: keyFile) {
        try askUser("Master password")   // not called when the key file alone opens the vault
    }
    print(opened.slotKind)               // key-file, password+key-file or password
    let vault = opened.vault
    // DOC-EXAMPLE-END
    return vault
}

func itemSiteExample() -> Bool {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/ItemSite.swift
    let a = ItemAttributes.internetPassword(server: "www.netflix.com", account: "me", path: "/login")
    let b = ItemAttributes.genericPassword(service: "netflix.com", account: "me")
    let same = a.site == b.site   // true: ItemSite(host: "netflix.com", account: "me")
    // DOC-EXAMPLE-END
    return same
}

func secureBytesExample() throws -> SecureBytes {
    // DOC-EXAMPLE-BEGIN Sources/CofferCrypto/SecureBytes.swift
    let key = try SecureBytes.random(count: 32)
    let password = try SecureBytes(copying: "correct horse")   // copies the String
    password.withUnsafeBytes { bytes in
        // use bytes; do not let them escape
    }
    print(password)   // <redacted>
    // DOC-EXAMPLE-END
    return key
}

func secureBytesFillExample(fd: Int32) throws -> SecureBytes {
    // DOC-EXAMPLE-BEGIN Sources/CofferCrypto/SecureBytes.swift
    let key = try SecureBytes(count: 32) { (buffer) throws(CofferError) in   // the closure's throws is typed
        guard read(fd, buffer.baseAddress, 32) == 32 else { throw CofferError.invalidKey("short key file") }
    }
    // DOC-EXAMPLE-END
    return key
}

func putAwayMergedCopyExample(vault: Vault, vaultPath: String, copyPath: String) throws {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/Vault+MergedCopies.swift
    guard let noted = FileVersion(of: copyPath) else { return }    // before the merge reads it
    try vault.merge(contentsOf: copyPath)                            // checked, saved atomically
    switch try Vault.putAwayMergedCopy(at: copyPath, unchangedSince: noted, .delete) {
    case .deleted: print("merged; the copy is gone")
    case .moved(let moved): print("merged; the copy is now \(moved)")
    case .changed: print("rewritten since it was merged: merge it again")
    }
    // DOC-EXAMPLE-END
}

func fileChecksExample(path: String, askForNewPassword: () throws -> SecureBytes) throws -> Vault {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/FileChecks.swift
    if FileChecks.exists(path) { throw CofferError.fileExists(path) }
    let folder = FileChecks.folder(of: path)
    if !FileChecks.isDirectory(folder) { throw CofferError.fileNotFound(folder) }
    let password = try askForNewPassword()            // only now
    let vault = try Vault.create(at: path, password: password)
    // DOC-EXAMPLE-END
    return vault
}

func fileVersionExample(vault: Vault, copyPath: String) throws {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/FileVersion.swift
    guard let before = FileVersion(of: copyPath) else { return }   // nothing there
    try vault.merge(contentsOf: copyPath)
    print(FileVersion(of: copyPath) == before)   // false if it changed meanwhile
    // DOC-EXAMPLE-END
}

func gitCredentialExample(vault: Vault) throws -> SecureBytes? {
    // DOC-EXAMPLE-BEGIN Sources/CofferVault/GitCredential.swift
    let request = try GitCredential(parsing: try SecureBytes(copying: "protocol=https\nhost=example.com\n\n"))
    if let server = try request.server(), let item = try vault.credentials(for: server, account: request.username).first {
        let answer = GitCredential(username: item.account, password: try vault.secrets(for: item.id).password)
        let bytes = try answer.encoded()   // "username=…\npassword=…\n", to git's pipe
    // DOC-EXAMPLE-END
        return bytes
    }
    return nil
}

@Suite("Docs: doc-comment examples")
struct DocsCommentExampleTests {
    /// The ```swift blocks of the `///` comments of a source file, as lines without `/// `.
    static func docExamples(_ source: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for raw in source.components(separatedBy: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("///") else { current = nil; continue }
            let text = line.hasPrefix("/// ") ? String(line.dropFirst(4)) : String(line.dropFirst(3))
            if current == nil {
                if text.trimmingCharacters(in: .whitespaces) == "```swift" { current = [] }
            } else if text.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current!.append(text)
            }
        }
        return blocks
    }

    @Test("The compiled examples are the ones the doc comments show")
    func examplesMatchComments() throws {
        let here = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8).components(separatedBy: "\n")
        var checked = 0
        var index = 0
        while index < here.count {
            let line = here[index].trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("// DOC-EXAMPLE-BEGIN ") else { index += 1; continue }
            let file = String(line.dropFirst("// DOC-EXAMPLE-BEGIN ".count))
            let indent = here[index].prefix { $0 == " " }.count
            var body: [String] = []
            index += 1
            while index < here.count, !here[index].contains("// DOC-EXAMPLE-END") {
                body.append(String(here[index].dropFirst(min(indent, here[index].prefix { $0 == " " }.count))))
                index += 1
            }
            let source = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            let shown = Self.docExamples(source).contains { block in
                block.count >= body.count && (0...(block.count - body.count)).contains { Array(block[$0..<($0 + body.count)]) == body }
            }
            #expect(shown, "\(file) has no doc-comment example with the lines compiled in DocsCommentExampleTests.swift:\n\(body.joined(separator: "\n"))")
            checked += 1
        }
        #expect(checked == 13)
    }
}

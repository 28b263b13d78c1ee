import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Issue 20, finding 5: an edit that changes nothing replaced the backup and bumped the
/// generation. Now it saves nothing: the file, its backup and the generation stay.
@Suite("Vault: an edit that changes nothing saves nothing")
struct VaultNoOpEditTests {
    func bytes(_ path: String) throws -> [UInt8] { try Array(Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("Library: update with the same values (closure, attributes, secrets) writes nothing")
    func library() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "s", account: "a")
            attributes.label = "L"
            let item = try vault.add(attributes, secrets: ItemSecrets(password: secure("p"), notes: secure("n")))
            try vault.update(item.id) { attributes, _ in attributes.label = "Other" }   // a real edit: makes the .bak
            let (file, backup, generation) = (try bytes(path), try bytes(path + ".bak"), vault.generation)
            let current = try vault.item(item.id)

            var same = try vault.update(item.id) { attributes, secrets in
                attributes.label = "Other"
                secrets.password = try secure("p")
            }
            #expect(same.revision == current.revision)
            same = try vault.update(item.id, attributes: current.attributes, secrets: ItemSecrets(password: secure("p")))
            #expect(same.revision == current.revision)
            #expect(try bytes(path) == file && bytes(path + ".bak") == backup && vault.generation == generation)
            #expect(try vault.secrets(for: item.id).passwordHistory.isEmpty)

            // A real change still saves.
            let changed = try vault.update(item.id, secrets: ItemSecrets(password: secure("q")))
            #expect(changed.revision == current.revision + 1 && vault.generation == generation + 1)
        }
    }

    @Test("coffer edit with nothing new says so and leaves the vault and its backup alone")
    func cli() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            #expect(try runProduct("coffer", ["init", path, "--kdf-memory", "1", "--kdf-iterations", "1"], stdin: "pw\n").status == 0)
            #expect(try runProduct("coffer", ["add", path, "--service", "s", "--account", "a", "--no-cache"], stdin: "pw\nsecret\n").status == 0)
            #expect(try runProduct("coffer", ["edit", path, "--service", "s", "--label", "L", "--no-cache"], stdin: "pw\n").status == 0)
            let (file, backup) = (try bytes(path), try bytes(path + ".bak"))
            let again = try runProduct("coffer", ["edit", path, "--service", "s", "--label", "L", "--no-cache"], stdin: "pw\n")
            #expect(again.status == 0 && again.err.contains("nothing to change"), "\(again.err)")
            #expect(try bytes(path) == file && bytes(path + ".bak") == backup)
        }
    }
}

import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// What a merge writes (issue 27, findings 9 and 10): a merge that changes nothing writes
/// nothing, and a copy that fails any check is refused whole, even in a record the vault
/// already holds.
@Suite("Vault: what a merge saves")
struct VaultReplicaMergeSaveTests {
    /// A vault with two items and a second save (so that it has a backup), and a copy of it.
    func vaultAndCopy(_ dir: URL) throws -> (Vault, String, String) {
        let path = dir.appendingPathComponent("vault.coffer").path
        let copy = dir.appendingPathComponent("copy.coffer").path
        var options = testOptions
        options.keepsBackup = true
        let vault = try Vault.create(at: path, password: secure("pw"), options: options)
        try vault.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: secure("p0")))
        try vault.add(.genericPassword(service: "bank", account: "me"), secrets: ItemSecrets(password: secure("p1")))
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        return (vault, path, copy)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test("A merge that changes nothing writes nothing: same generation, the file and its backup untouched",
          arguments: ["same", "older"])
    func noOpMerge(copy kind: String) throws {
        try withTemporaryDirectory { dir in
            let (vault, path, copy) = try vaultAndCopy(dir)
            if kind == "older" {
                // The vault moves on; the copy is now an older version of it.
                let mail = try #require(try vault.firstItem(matching: ItemQuery(service: "mail")))
                try vault.update(mail.id) { attributes, _ in attributes.label = "Mail" }
            }
            let generation = vault.generation
            let file = try bytes(path), backup = try bytes(path + ".bak")
            let report = try vault.merge(contentsOf: copy)
            #expect(report.isEmpty, "\(report)")
            #expect(vault.generation == generation)
            #expect(try bytes(path) == file)
            #expect(try bytes(path + ".bak") == backup, "the backup (one level of undo) was replaced")
            // And a merge that does change something still saves.
            let other = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
            try other.add(.genericPassword(service: "new", account: "me"))
            #expect(try vault.merge(contentsOf: copy).added == 1)
            #expect(vault.generation > generation)
        }
    }

    /// A copy whose record for an item the vault holds too (same nonce in its manifest) is
    /// damaged in its secret part: the merge never opened that record, reported the copy merged and `sync`
    /// moved it away, while `coffer check` called the same file tampered.
    @Test("A copy damaged in a record the vault already holds is refused, and nothing is saved")
    func damagedSharedRecord() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, copy) = try vaultAndCopy(dir)
            // The copy also has an item of its own, so that a merge would change something.
            let other = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
            try other.add(.genericPassword(service: "new", account: "me"))
            other.lock()
            var damaged = [UInt8](try bytes(copy))
            let parsed = try VaultFileV2.parse(damaged)
            let shared = try #require(parsed.records.first { record in vault.snapshotForTests.entries[record.id]?.record.identity == record.identity })
            damaged[shared.body.endIndex - 1] ^= 0x01
            try Data(damaged).write(to: URL(fileURLWithPath: copy))

            let generation = vault.generation, file = try bytes(path)
            let error = #expect(throws: CofferError.self) { try vault.merge(contentsOf: copy) }
            #expect(error?.kind == .tampered, "\(String(describing: error))")
            #expect(vault.generation == generation)
            #expect(try bytes(path) == file)
            #expect(try vault.firstItem(matching: ItemQuery(service: "new")) == nil)
        }
    }
}

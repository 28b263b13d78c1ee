import Foundation
import Testing
import CofferVault
import CofferTestSupport

@Suite("Vault: restoreBackup() is a swap, checked first, and the vault keeps saving")
struct VaultRestoreBackupTests {
    func bytes(_ path: String) throws -> [UInt8] { try Array(Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("Restores, undoes, keeps saving; a foreign or damaged backup changes nothing")
    func restore() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let state = dir.appendingPathComponent("state").path
            var options = testOptions
            options.replicaState = .directory(state)
            let vault = try Vault.create(at: path, password: secure("pw"), options: options)
            try vault.add(.genericPassword(service: "a", account: "me"))
            try vault.add(.genericPassword(service: "b", account: "me"))
            let (file, backup) = (try bytes(path), try bytes(path + ".bak"))

            try vault.restoreBackup()
            #expect(try vault.items().compactMap(\.service) == ["a"])
            #expect(try bytes(path) == backup && bytes(path + ".bak") == file)
            try vault.add(.genericPassword(service: "c", account: "me"))              // no rollback refusal
            let reopened = try Vault.open(at: path, password: secure("pw"), options: options)
            #expect(reopened.rollback == nil)
            #expect(try reopened.items().compactMap(\.service) == ["a", "c"])

            // A backup from another vault, or a damaged one: an error, and nothing moves.
            let other = dir.appendingPathComponent("other.coffer").path
            let foreign = try Vault.create(at: other, password: secure("pw"), options: testOptions)
            try foreign.add(.genericPassword(service: "x", account: "me"))
            let (now, nowBackup) = (try bytes(path), try bytes(path + ".bak"))
            try Data(try bytes(other)).write(to: URL(fileURLWithPath: path + ".bak"))
            #expect(throws: CofferError.differentVault) { try vault.restoreBackup() }
            #expect(try bytes(path) == now)
            var damaged = nowBackup
            damaged[damaged.count - 1] ^= 1
            try Data(damaged).write(to: URL(fileURLWithPath: path + ".bak"))
            let error = #expect(throws: CofferError.self) { try vault.restoreBackup() }
            #expect(error?.kind == .tampered)
            #expect(try bytes(path) == now)
            #expect(try vault.items().compactMap(\.service) == ["a", "c"])
        }
    }
}

import CofferTestSupport
import CofferVault
import Foundation
import Testing

/// `Vault.clearPasswordHistory(for:)` (issue 27, "Password history can be cleared"): the
/// earlier passwords leave the record, and a copy made before the clear, even one edited
/// since (its edit confirms every entry it has), brings none back when merged, in either
/// direction; a password replaced after the clear is kept. Raw-key slots: no KDF.
@Suite("Vault: clearing the password history")
struct VaultPasswordHistoryClearTests {
    private let key: VaultCredential

    init() throws { key = .rawKey(try SecureBytes(copying: [UInt8](repeating: 0x5C, count: 32))) }

    private func setPassword(_ vault: Vault, _ id: ItemID, _ password: String) throws {
        var secrets = try vault.secrets(for: id)
        secrets.password = try secure(password)
        try vault.update(id, secrets: secrets)
    }

    private func history(_ vault: Vault, _ id: ItemID) throws -> [String] {
        try vault.secrets(for: id).passwordHistory.compactMap { $0.password.testString }
    }

    /// `a.coffer` with one item whose password went p1 → p2 → p3, copied to `b.coffer`.
    private func twoCopies(_ dir: URL) throws -> (a: Vault, b: Vault, id: ItemID, paths: (String, String)) {
        let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
        let a = try Vault.create(at: pathA, credential: key, options: testOptions)
        let id = try a.add(.genericPassword(service: "s", account: "me"), secrets: ItemSecrets(password: secure("p1"))).id
        try setPassword(a, id, "p2")
        try setPassword(a, id, "p3")
        #expect(try history(a, id) == ["p2", "p1"])
        try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
        return (a, try Vault.open(at: pathB, credential: key, options: testOptions), id, (pathA, pathB))
    }

    @Test("Cleared entries stay gone after merging a concurrent copy that edited the item, in both directions")
    func clearSurvivesConcurrentEdit() throws {
        try withTemporaryDirectory { dir in
            let (a, b, id, paths) = try twoCopies(dir)
            #expect(try a.clearPasswordHistory(for: id) == 2)
            #expect(try history(a, id).isEmpty)
            #expect(try a.secrets(for: id).password?.testString == "p3")
            // The other copy edits another field: every history entry it has is confirmed by that edit.
            try b.update(id) { attributes, _ in attributes.comment = "edited on b" }
            try a.merge(contentsOf: paths.1)
            #expect(try history(a, id).isEmpty)
            #expect(try a.item(id).attributes.comment == "edited on b")
            try b.merge(contentsOf: paths.0)
            #expect(try history(b, id).isEmpty)
            // Reopened from the files: nothing of the history in either record.
            for path in [paths.0, paths.1] {
                #expect(try history(try Vault.open(at: path, credential: key, options: testOptions), id).isEmpty)
            }
        }
    }

    @Test("A password replaced after the clear, on the other copy, is kept; the older ones are not")
    func laterReplacementKept() throws {
        try withTemporaryDirectory { dir in
            let (a, b, id, paths) = try twoCopies(dir)
            try a.clearPasswordHistory(for: id)
            Thread.sleep(forTimeInterval: 0.01)   // the replacement is dated after the clear
            try setPassword(b, id, "p4")
            #expect(try history(b, id) == ["p3", "p2", "p1"])
            try a.merge(contentsOf: paths.1)
            try b.merge(contentsOf: paths.0)
            #expect(try history(a, id) == ["p3"])
            #expect(try history(b, id) == ["p3"])
            #expect(try a.secrets(for: id).password?.testString == "p4")
        }
    }

    @Test("Both copies clear concurrently, or one merges an older copy: the later clear date holds everywhere")
    func concurrentClears() throws {
        try withTemporaryDirectory { dir in
            let (a, b, id, paths) = try twoCopies(dir)
            try a.clearPasswordHistory(for: id)
            try b.clearPasswordHistory(for: id)
            try a.merge(contentsOf: paths.1)
            try b.merge(contentsOf: paths.0)
            #expect(try history(a, id).isEmpty && history(b, id).isEmpty)
            #expect(try a.clearPasswordHistory(for: id) == 0)
        }
    }

    @Test("An unknown item is itemNotFound")
    func unknownItem() throws {
        try withTemporaryDirectory { dir in
            let (a, _, _, _) = try twoCopies(dir)
            #expect(throws: CofferError.itemNotFound) { try a.clearPasswordHistory(for: ItemID(hex: String(repeating: "07", count: 16))!) }
        }
    }
}

import CofferTestSupport
import Foundation
import Testing
@testable import CofferVault

/// Issue 27, "no merge ever fails for good on clock size" (SPEC.md §17.9): two copies of a
/// vault whose one item had 16,384 writers on each side since they parted. Before, their
/// merge was a format limit for good, in both directions, and nothing else in the copies
/// (here an item only one copy has) could ever be merged. The copies are made with the
/// vault's own sealer (building 32,768 stateless writers by opening the file each time
/// would take minutes); raw-key slots, no KDF.
@Suite("Vault: merging copies whose item clocks together pass the bound")
struct VaultClockBoundMergeTests {
    static let key = VaultCredential.rawKey(try! SecureBytes(copying: [UInt8](repeating: 0x3D, count: 32)))
    static let options = VaultOptions(kdf: testKDF, keepsBackup: false, lockTimeout: .seconds(5), replicaState: .none)
    static let limit = UInt64(ItemClock.maxReplicas)

    /// Replaces the item of service "mail" in the file at `path` with one whose version
    /// vector names `writers` (each at its own id as time) and whose password, `password`,
    /// was written by the last of them: a copy whose item that many writers edited.
    static func inflate(_ path: String, writers: ClosedRange<UInt64>, password: String) throws {
        let vault = try Vault.open(at: path, credential: key, options: options)
        let id = try #require(try vault.items().first { $0.service == "mail" }).id
        var parts = try MergeTrace.parts(ItemAttributes(kind: .genericPassword, service: "mail", account: "me"),
                                         ItemSecrets(password: try secure(password)))
        parts.created = 0
        parts.modified = 0
        var clock = ItemMerge.clock(ofNewItem: parts.valuedRegisters, stamp: Stamp(replica: writers.lowerBound, time: writers.lowerBound))
        clock.versions = VersionVector(Dictionary(uniqueKeysWithValues: writers.map { ($0, $0) }))
        clock.stamps[.password] = Stamp(replica: writers.upperBound, time: writers.upperBound)
        let state = ItemState(parts: parts, clock: clock)
        try vault.saving { (engine, keys) throws(CofferError) in
            var snapshot = engine.snapshot
            guard let entry = snapshot.entries[id] else { throw .itemNotFound }
            let sealer = ItemSealer(vaultID: snapshot.vaultID, keys: keys, entropy: engine.entropy)
            let sealed = try formatCall { () throws(FormatError) in try sealer.seal(state, id: id, revision: entry.record.revision + 1) }
            snapshot.applyChecked(id, try Changeset.Change(sealed))
            snapshot.header.clock = snapshot.header.clock.merged(with: clock.versions).compacted(limit: VaultHeaderV2.maxClockReplicas)
            try engine.saveJoined(snapshot, keys: keys)
        }
    }

    @Test("Two copies whose item had 16,384 writers each merge both ways: the rest merges, the item is written bounded, both end the same")
    func copiesPastTheBoundMerge() throws {
        try withTemporaryDirectory { dir in
            let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
            let origin = try Vault.create(at: pathA, credential: Self.key, options: Self.options)
            try origin.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: try secure("p0")))
            try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
            try Self.inflate(pathA, writers: 1...Self.limit, password: "from-a")
            try Self.inflate(pathB, writers: (Self.limit + 1)...(2 * Self.limit), password: "from-b")
            try Vault.open(at: pathB, credential: Self.key, options: Self.options)
                .add(.genericPassword(service: "only-b", account: "me"), secrets: ItemSecrets(password: try secure("b-only")))

            let intoA = try Vault.open(at: pathA, credential: Self.key, options: Self.options)
            let report = try intoA.merge(contentsOf: pathB)
            #expect(report.added == 1 && report.updated == 1)
            let intoB = try Vault.open(at: pathB, credential: Self.key, options: Self.options)
            try intoB.merge(contentsOf: pathA)
            for vault in [intoA, intoB] {
                let mail = try #require(try vault.items().first { $0.service == "mail" })
                // B's writers are the later ones: its password wins, A's is kept as a losing value.
                #expect(try vault.secrets(for: mail.id).password?.testString == "from-b")
                #expect(try vault.conflicts(for: mail.id).compactMap { $0.secrets?.password?.testString } == ["from-a"])
                let onlyB = try #require(try vault.items().first { $0.service == "only-b" })
                #expect(try vault.secrets(for: onlyB.id).password?.testString == "b-only")
            }
            #expect(try MergedVault(intoA) == MergedVault(intoB))
            // A compacted join forgets some writers, so the first copy takes the second's
            // result once more (the same contents); after that, merges change nothing.
            try intoA.merge(contentsOf: pathB)
            #expect(try MergedVault(intoA) == MergedVault(intoB))
            for (path, other) in [(pathA, pathB), (pathB, pathA)] {
                let reopened = try Vault.open(at: path, credential: Self.key, options: Self.options)
                #expect(try reopened.merge(contentsOf: other).isEmpty, "\(path)")
            }
        }
    }
}

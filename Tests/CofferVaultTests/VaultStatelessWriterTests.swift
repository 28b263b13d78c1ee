import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Writers that keep no device state (issue 27, finding 8): a process without HOME or
/// XDG_STATE_HOME (cron, containers, CI) takes a new replica id on every run. Every run is
/// a new writer of the items it edits, so clocks are bounded by SPEC.md §17.9: an item's
/// version vector names at most 16,384 replicas and a vault clock 16,384 (format 2; format
/// 1 held 255 and 1,024), the newest kept, those a value is stamped by always; a device
/// compares files with what it remembers under the same bound, so a dropped entry is never
/// a false rollback. The flood below stays under format 2's bound (the issue's figure,
/// 10,000, too); the tests past it build the clocks directly.
@Suite("Vault: writers without device state")
struct VaultStatelessWriterTests {
    static let key = VaultCredential.rawKey(try! SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
    static let stateless = VaultOptions(kdf: testKDF, keepsBackup: false, lockTimeout: .seconds(5), replicaState: .none)

    /// One run of a stateless process: open, change the item, save, close.
    static func statelessEdit(_ path: String, _ change: (inout ItemAttributes, inout ItemSecrets) throws -> Void) throws {
        let vault = try Vault.open(at: path, credential: key, options: stateless)
        let id = try #require(try vault.items().first).id
        try vault.update(id, change)
    }

    /// A device that keeps state opens the file, saves, and opens it again: before, past
    /// the bound a vault clock dropped its lowest replica ids, the device remembered one
    /// the file it had just saved lacked, took that file for a rolled-back one and refused
    /// every save (76).
    static func deviceSaves(_ path: String, options: VaultOptions, round: Int) throws {
        for again in 0..<2 {
            let vault = try Vault.open(at: path, credential: key, options: options)
            #expect(vault.rollback == nil, "run \(round), open \(again): \(String(describing: vault.rollback))")
            let id = try #require(try vault.items().first).id
            try vault.update(id) { attributes, _ in attributes.label = "device \(round)-\(again)" }
        }
        #expect(try clocks(path).vault.count <= VaultHeaderV2.maxClockReplicas)
    }

    static func clocks(_ path: String) throws -> (item: ItemClock, vault: VersionVector) {
        let file = try VaultFileV2.parse(try VaultFileStore(path: path).read().bytes)
        let record = try #require(file.records.first)
        let keys = try file.unlock(with: key).keys
        let overview = try record.openOverviewList(vaultID: file.header.vaultID, keys: keys)
        return (try #require(try ItemClockCodec.decode(overview: overview)), file.header.clock)
    }

    /// How many stateless edits ``manyEdits()`` makes: 10,000 with `COFFER_STATELESS_EDITS=10000`
    /// (issue 27's figure; about two and a half minutes in a debug build), else 1,500, which
    /// passed both of format 1's bounds (255 writers of the item, 1,024 of the vault).
    static let edits = ProcessInfo.processInfo.environment["COFFER_STATELESS_EDITS"].flatMap { Int($0) }.map { max($0, 1_300) } ?? 1_500

    /// Before (format 1): edit 255 failed for good ("an item's clock names 256 replicas", a
    /// usage error), and copies whose writers together passed 255 could never merge.
    @Test("Thousands of stateless edits of one item succeed, and two such copies merge both ways with nothing lost")
    func manyEdits() throws {
        let edits = Self.edits, fork = Self.edits / 2
        let root = SimulationRun.scratch.appendingPathComponent("coffer-stateless-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let pathA = root.appendingPathComponent("a.coffer").path, pathB = root.appendingPathComponent("b.coffer").path
        let origin = try Vault.create(at: pathA, credential: Self.key, options: Self.stateless)
        try origin.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: try secure("p0")))

        let device = VaultOptions(kdf: testKDF, keepsBackup: false, lockTimeout: .seconds(5),
                                  replicaState: .directory(root.appendingPathComponent("state").path))
        for run in 1...edits {
            try Self.statelessEdit(pathA) { attributes, secrets in
                secrets.password = try secure("p\(run)")
                if run % 100 == 0 { attributes.comment = "run \(run)" }
            }
            if run == fork { try FileManager.default.copyItem(atPath: pathA, toPath: pathB) }
            if run % 400 == 0 { try Self.deviceSaves(pathA, options: device, round: run) }
        }
        // Copy B went its own way half-way: 300 more writers, editing the notes.
        for run in 1...300 {
            try Self.statelessEdit(pathB) { _, secrets in secrets.notes = try secure("n\(run)") }
        }
        let a = try Self.clocks(pathA), b = try Self.clocks(pathB)
        #expect(a.item.versions.count <= ItemClock.maxReplicas && b.item.versions.count <= ItemClock.maxReplicas)
        #expect(a.vault.count <= VaultHeaderV2.maxClockReplicas)

        let intoA = try Vault.open(at: pathA, credential: Self.key, options: Self.stateless)
        let intoB = try Vault.open(at: pathB, credential: Self.key, options: Self.stateless)
        try intoA.merge(contentsOf: pathB)
        try intoB.merge(contentsOf: pathA)
        for vault in [intoA, intoB] {
            let item = try #require(try vault.items().first)
            let secrets = try vault.secrets(for: item.id)
            #expect(secrets.password?.testString == "p\(edits)")
            #expect(secrets.notes?.testString == "n300")
            #expect(item.comment == "run \(edits / 100 * 100)")
            // Past the bound, copy B's password and comment, superseded on A by writers A no
            // longer names, come back as losing values (SPEC.md §17.9), never as the values.
            let conflicts = try vault.conflicts(for: item.id).map { "\($0.field)=\($0.secrets?.password?.testString ?? $0.attributes?.comment ?? "?")" }
            #expect(Set(conflicts).isSubset(of: ["password=p\(fork)", "comment=run \(fork / 100 * 100)"]), "\(conflicts)")
        }
        #expect(try MergedVault(intoA) == MergedVault(intoB))
        #expect(try Self.clocks(pathA).item.versions.count <= ItemClock.maxReplicas)
    }

    /// Past format 2's bound: an item whose clock names 16,384 replicas (each a writer of
    /// it) is edited by one more. Before, the edit failed for good (a clock of 16,385
    /// replicas cannot be written); now the clock is compacted, its stamped replicas kept.
    @Test("Past 16,384 writers of one item, an edit still writes it, what a value is stamped by stays; a join past the bound is written too, in either order")
    func pastTheItemBound() throws {
        let limit = UInt64(ItemClock.maxReplicas)
        func state(writers: ClosedRange<UInt64>, password: String) throws -> ItemState {
            let parts = try MergeTrace.parts(ItemAttributes(kind: .genericPassword, service: "mail", account: "me"),
                                             ItemSecrets(password: try secure(password)))
            var clock = ItemMerge.clock(ofNewItem: parts.valuedRegisters, stamp: Stamp(replica: writers.lowerBound, time: 1))
            clock.versions = VersionVector(Dictionary(uniqueKeysWithValues: writers.map { ($0, $0) }))
            return ItemState(parts: parts, clock: clock)
        }
        let a = try state(writers: 1...limit, password: "a")
        let changed = try MergeTrace.parts(ItemAttributes(kind: .genericPassword, service: "mail", account: "me"),
                                           ItemSecrets(password: try secure("edited")))
        let edited = try ItemMerge.edit(a, madeOn: nil, to: changed, stamp: Stamp(replica: 3 * limit, time: 3 * limit))
        #expect(edited.clock.versions.count == Int(limit))
        #expect(edited.clock.versions[1] == 1, "the stamp of the kind (replica 1) stays")
        _ = try MergeTrace.encodedLists(edited)

        // A copy that went its own way with 16,384 other writers: its values and the edited
        // one are each confirmed by the whole of their side's vector (SPEC.md §17.5), so the
        // replicas the confirmations name are 32,768. Before, the join was a format limit for
        // good: the two copies could never merge, everything else in them stranded. Now
        // (SPEC.md §17.9) the confirmations are widened to the default and the vector is
        // compacted: the join is written, the same whichever side merges, nothing lost.
        let b = try state(writers: (limit + 1)...(2 * limit), password: "b")
        let ab = try ItemMerge.joinConcurrent(edited, b), ba = try ItemMerge.joinConcurrent(b, edited)
        for joined in [ab, ba] {
            let (overview, secrets) = try MergeTrace.encodedLists(joined)
            #expect(joined.clock.versions.count == Int(limit))
            #expect(joined.clock.confirmations.isEmpty)
            #expect(joined.clock.stamps[.password] == Stamp(replica: 3 * limit, time: 3 * limit))
            #expect(joined.clock.siblings[.password] == [Stamp(replica: limit + 1, time: 1)], "b's password stays, as a losing value")
            #expect(joined.clock.versions[1] == 1 && joined.clock.versions[limit + 1] == limit + 1, "stamped replicas kept")
            #expect(!overview.isEmpty && secrets.count > 0)
        }
        #expect(try MergeTrace.encoded(ab) == MergeTrace.encoded(ba))
        // Merging it again changes nothing (idempotent), and a third copy's join agrees.
        #expect(try MergeTrace.encodedLists(try ItemMerge.joinConcurrent(ab, b)).overview == MergeTrace.encodedLists(ab).overview)
        #expect(try MergeTrace.encodedLists(try ItemMerge.joinConcurrent(ab, ba)).overview == MergeTrace.encodedLists(ab).overview)
    }

    /// The vault clock past format 2's bound keeps its newest entries: before, it dropped the
    /// lowest replica ids, the newest edit's among them, and a device that had made it took
    /// the file it had just saved for a rolled-back one (76).
    @Test("A vault clock past 16,384 entries keeps the newest, whatever their replica ids")
    func pastTheVaultClockBound() throws {
        let limit = VaultHeaderV2.maxClockReplicas
        var times: [UInt64: UInt64] = [:]
        for replica in 2...UInt64(limit + 1) { times[replica] = replica }
        times[1] = UInt64(limit) * 10   // the newest edit, by the lowest id
        var header = try VaultFileV2.parse(try Self.emptyVault()).header
        header.clock = VersionVector(times)
        #expect(header.clock.count == limit)
        #expect(header.clock[1] == UInt64(limit) * 10)
        #expect(header.clock[2] == 0, "the oldest entry went")
        let remembered = ReplicaMemory.bounded(VersionVector(times), own: 5)
        #expect(header.clock.dominates(ReplicaMemory.asFilesHoldIt(remembered)))
    }

    static func emptyVault() throws -> [UInt8] {
        let path = SimulationRun.scratch.appendingPathComponent("coffer-clock-\(UUID().uuidString).coffer").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try Vault.create(at: path, credential: key, options: stateless)
        return try VaultFileStore(path: path).read().bytes
    }

    /// The rule that bounds clocks (SPEC.md §17.9) agrees with joins: a clock compacted and
    /// then joined with another, compacted again, is the join of the two compacted once. So a
    /// device that remembers clocks under the bound judges each file as the file holds it.
    @Test("Compacting agrees with joins, in any order; an item's clock keeps every stamped replica and stays deleted or live")
    func compactionLaws() {
        let random = SeededRandom(seed: 27)
        func vector() -> VersionVector {
            var times: [UInt64: UInt64] = [:]
            for _ in 0..<(random.next() % 20) { times[1 + random.next() % 24] = 1 + random.next() % 40 }
            return VersionVector(times)
        }
        for _ in 0..<500 {
            let x = vector(), y = vector(), z = vector()
            let limit = 1 + Int(random.next() % 10)
            func c(_ v: VersionVector) -> VersionVector { v.compacted(limit: limit) }
            #expect(c(c(x).merged(with: y)) == c(x.merged(with: y)))
            #expect(c(c(c(x).merged(with: y)).merged(with: z)) == c(x.merged(with: c(y.merged(with: z)))))
            #expect(c(x).count == min(x.count, limit) && x.dominates(c(x)))

            // An item's clock: the stamped replicas stay, and so does whether it is deleted.
            let versions = x.merged(with: y)
            guard let stamped = versions.sorted.first else { continue }
            var clock = ItemClock(versions: versions, stamps: [.password: Stamp(replica: stamped.replica, time: stamped.time)])
            if random.next() % 2 == 0 { clock.deleted = c(y).merged(with: VersionVector([stamped.replica: stamped.time])) }
            let compacted = clock.compacted(limit: limit)
            #expect(compacted.versions[stamped.replica] == stamped.time)
            #expect(compacted.isDeleted == clock.isDeleted)
            let live = clock.deleted.map { deleted in clock.versions.times.count { $0.value > deleted[$0.key] } } ?? 0
            #expect(compacted.versions.count <= max(limit, live + 1))
        }
    }
}

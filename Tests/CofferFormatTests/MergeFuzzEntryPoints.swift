import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferStore
@testable import CofferVault
#if canImport(CofferTestSupport)
import CofferTestSupport
#endif

/// What the `merge` fuzz target runs (RELIABILITY.md, "Fuzzing"): a replica, the input,
/// merged into a fixed format-2 vault through the library (``Vault/merge(contentsOf:)-(String)``),
/// with these invariants checked on every input:
///
/// - a refused copy leaves the vault byte for byte as it was, and no temporary file;
/// - an accepted one gives a vault that opens, verifies and reads back whole;
/// - its key slots are the fixed vault's and the copy's, never one either lists as removed,
///   and every slot the fixed vault did not have is counted in the report (none added silently);
/// - every item is one a side had: kept record for record when one side alone has it or both
///   have the same record; of an item both changed apart, every value of one side that the
///   other side had not seen (its stamp not covered by the other's version vector) survives
///   (SPEC.md §17.5: nothing is lost), and no value neither side had appears;
/// - merging the same copy again changes nothing (an empty report, the same items);
/// - merging the fixed vault into the copy gives the same items (the merge commutes).
///
/// The fixed vault (``MergeFixture``) is built from the format-2 merge vectors
/// (`v2-merge-replica-*.vec`, raw-key slot, no KDF): the first replica, its header listing as
/// removed every key slot the other replicas added, so that a slot accepted from a copy
/// against the fixed vault's rules shows. Inputs are replica files;
/// ``mutateMerge(_:maxSize:seed:fixture:mutateBytes:)`` is the target's custom mutator: it
/// decodes a replica with the vault's key, changes merge fields (version vectors, stamps,
/// siblings, deletion vectors, conflict fields, the vault clock, removed slots, key slots,
/// records, the generation) structurally or byte by byte, and seals and MACs it again, so
/// that the changes get past authentication to the merge.
extension FuzzEntryPoints {
    // MARK: - The fixed vault

    /// The vault every input is merged into, the files the target works in, and what the
    /// mutator draws from. One input at a time (the files are shared).
    final class MergeFixture: @unchecked Sendable {
        let rawKey: [UInt8]
        let keys: EpochKeys
        let vaultID: [UInt8]
        /// The fixed vault's file, its header and items.
        let bytes: [UInt8]
        let header: VaultHeaderV2
        let snapshot: VaultSnapshot
        /// The identities of the key slots the fixed vault lists as removed.
        let forbiddenSlots: Set<[UInt8]>
        /// The merge vectors' files (the seeds) and what the mutator takes parts from.
        let replicas: [(name: String, bytes: [UInt8])]
        let slotPool: [KeySlotV2]
        let recordPool: [RecordV2]
        let folder: String
        let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1), keepsBackup: false,
                                   lockTimeout: .seconds(5), replicaState: .none)
        let lock = NSLock()

        var fixedPath: String { folder + "/fixed.coffer" }
        var replicaPath: String { folder + "/replica.coffer" }
        var mirrorPath: String { folder + "/mirror.coffer" }
        var pristinePath: String { folder + "/pristine.coffer" }

        /// From the `v2-merge-replica-*.vec` files in `vectors`; works in a fresh folder (in
        /// /dev/shm when there is one: every input writes a few small files).
        init(vectors: URL) throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: vectors.path)
                .filter { $0.hasPrefix("v2-merge-replica-") && $0.hasSuffix(".vec") }.sorted()
            var replicas: [(String, [UInt8])] = []
            var key: [UInt8]?
            for name in names {
                guard let (text, bytes) = FuzzEntryPoints.vectorFile(vectors.appendingPathComponent(name)) else { continue }
                replicas.append((String(name.dropLast(4)), bytes))
                for line in text.split(separator: "\n") where line.hasPrefix("raw-key: ") {
                    key = Self.hex(String(line.dropFirst("raw-key: ".count)))
                }
            }
            guard let key, let base = replicas.first else { throw FixtureMissing(folder: vectors.path) }
            let codec = try VaultFileV2.parse(base.1)
            let keys = try VaultFileV2.unlock(codec.header, with: .rawKey(try SecureBytes(copying: key))).keys
            let others = try replicas.dropFirst().map { try VaultFileV2.parse($0.1) }
            // The slots the other replicas added, removed on the fixed vault.
            let own = Set(codec.header.slots.map(\.identity))
            var header = codec.header
            let added = others.flatMap(\.header.slots).filter { !own.contains($0.identity) }
            header.removedSlots = header.removedSlots + added.map { RemovedKeySlot(identity: $0.identity, time: 1) }
            let fixed = try VaultFileV2.encode(header: header, generation: codec.generation, records: codec.records, keys: keys).bytes
            let parsed = try VaultFileV2.parse(fixed)

            rawKey = key
            self.keys = keys
            vaultID = header.vaultID
            bytes = fixed
            self.header = parsed.header
            snapshot = try VaultSnapshot(codec: parsed, keys: keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            forbiddenSlots = Set(parsed.header.removedSlots.map(\.identity))
            self.replicas = replicas
            var slots: [KeySlotV2] = []
            for slot in ([codec] + others).flatMap(\.header.slots) where !slots.contains(where: { $0.identity == slot.identity }) {
                slots.append(slot)
            }
            slotPool = slots
            recordPool = ([codec] + others).flatMap(\.records)
            let shm = "/dev/shm"
            var isFolder: ObjCBool = false
            let parent = FileManager.default.fileExists(atPath: shm, isDirectory: &isFolder) && isFolder.boolValue
                && FileManager.default.isWritableFile(atPath: shm) ? shm : NSTemporaryDirectory()
            folder = parent + "/coffer-fuzz-merge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(fixed).write(to: URL(fileURLWithPath: pristinePath))
        }

        deinit { try? FileManager.default.removeItem(atPath: folder) }

        func credential() throws -> VaultCredential { .rawKey(try SecureBytes(copying: rawKey)) }

        /// The fixed vault opened once from its pristine file (never written), for the
        /// in-memory merge (MergeFastFuzzEntryPoints.swift); nil when it does not open.
        lazy var memoryVault: Vault? = {
            guard let credential = try? credential() else { return nil }
            return try? Vault.open(at: pristinePath, credential: credential, options: options)
        }()

        static func hex(_ text: String) -> [UInt8]? {
            var out: [UInt8] = []
            var high: UInt8?
            for c in text.utf8 {
                guard let v = UInt8(String(UnicodeScalar(c)), radix: 16) else { return nil }
                if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
            }
            return high == nil ? out : nil
        }

        /// The vault at `path` opened with the fixed raw key when one of its slots is the fixed
        /// vault's, else through its header with the vault's keys (a copy may have removed that
        /// slot, as another device's password change does): either way read and authenticated.
        func open(_ path: String) throws -> Vault {
            let codec = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            guard Set(codec.header.slots.map(\.identity)).isDisjoint(with: header.slots.map(\.identity)) else {
                return try Vault.open(at: path, credential: try credential(), options: options)
            }
            // No slot of the fixed vault is left (the copy removed them all, as another
            // device's `passwd --no-rekey` does): the process that merged holds the vault's
            // keys, and so does this check; the file is authenticated with them.
            _ = try codec.authenticate(keys: keys)
            let store = VaultFileStore(path: path)
            guard let identity = try store.currentIdentity() else { throw CofferError.fileNotFound(path) }
            return try Vault(opened: codec, identity: identity, held: nil, keys: keys, slotKey: nil, conversion: nil,
                             path: path, options: options, store: store, entropy: .system)
        }

        struct FixtureMissing: Error, CustomStringConvertible {
            let folder: String
            var description: String { "no v2-merge-replica-*.vec with a raw key in \(folder)" }
        }
    }

    /// The fuzz binary's fixture, from the vectors in `COFFER_FUZZ_VECTORS` (else Tests/Vectors).
    static let mergeFixture: MergeFixture = {
        let vectors = URL(fileURLWithPath: ProcessInfo.processInfo.environment["COFFER_FUZZ_VECTORS"] ?? "Tests/Vectors")
        do {
            let fixture = try MergeFixture(vectors: vectors)
            mergeFolderToRemove.set(fixture.folder)
            atexit { if let folder = mergeFolderToRemove.get() { try? FileManager.default.removeItem(atPath: folder) } }
            return fixture
        } catch {
            fatalError("coffer fuzz merge: no fixed vault from \(vectors.path): \(error)")
        }
    }()

    /// The merge target's seeds: the merge vectors' files.
    static func mergeSeeds(vectors: URL) throws -> [(String, [UInt8])] {
        try MergeFixture(vectors: vectors).replicas.map { ($0.name, $0.bytes) }
    }

    // MARK: - One input

    static func merge(_ bytes: [UInt8]) -> Report { merge(bytes, fixture: mergeFixture) }

    static func merge(_ bytes: [UInt8], fixture: MergeFixture) -> Report {
        fixture.lock.lock()
        defer { fixture.lock.unlock() }
        var report = Report()
        do {
            try checkMerge(bytes, fixture, &report)
        } catch {
            report.violation("the harness failed: \(error)")
        }
        return report
    }

    private static func checkMerge(_ input: [UInt8], _ fixture: MergeFixture, _ report: inout Report) throws {
        try Data(fixture.bytes).write(to: URL(fileURLWithPath: fixture.fixedPath))
        try Data(input).write(to: URL(fileURLWithPath: fixture.replicaPath))
        let vault = try Vault.open(at: fixture.fixedPath, credential: try fixture.credential(), options: fixture.options)
        let merged: MergeReport
        do {
            merged = try vault.merge(contentsOf: fixture.replicaPath)
        } catch {
            report.errors.append(error)
            if Array(try Data(contentsOf: URL(fileURLWithPath: fixture.fixedPath))) != fixture.bytes {
                report.violation("a refused copy (\(error.kind)) changed the vault")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.folder).filter { $0.contains(".tmp") }
            if !left.isEmpty { report.violation("a refused copy (\(error.kind)) left temporary files: \(left)") }
            return
        }
        report.reach(.opened)

        // The result opens, verifies and reads back whole.
        let result: Vault
        let state: MergedVault
        do {
            result = try fixture.open(fixture.fixedPath)
            try result.verifyAll()
            state = try MergedVault(result)
        } catch {
            report.violation("the merged vault does not open whole: \(error)")
            return
        }
        let copy = try VaultFileV2.parse(input)
        let outcome = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.fixedPath))))
        checkSlots(outcome.header, fixed: fixture.header, copy: copy.header, report: merged, into: &report)
        let theirs = try VaultSnapshot(codec: copy, keys: fixture.keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
        try checkItems(fixture.snapshot, theirs, result.snapshotForTests, fixture, into: &report)

        // Merging the same copy again changes nothing.
        do {
            let again = try result.merge(contentsOf: fixture.replicaPath)
            if again != MergeReport() { report.violation("merging the same copy again changed something: \(again)") }
            let stateAgain = try MergedVault(result)
            if stateAgain != state { report.violation("merging the same copy again changed the items: \(difference(state, stateAgain))") }
        } catch {
            report.violation("merging the same copy again failed: \(error)")
        }

        // The fixed vault merged into the copy gives the same items (when the copy opens with
        // the fixed key, and can be saved at all: not at the largest generation, which a
        // merge that added nothing to the fixed vault did not need to pass).
        try Data(input).write(to: URL(fileURLWithPath: fixture.mirrorPath))
        guard copy.generation < .max, let mirror = try? fixture.open(fixture.mirrorPath) else { return }
        do {
            try mirror.merge(contentsOf: fixture.pristinePath)
            var a = state, b = try MergedVault(mirror)
            a.slots.sort()
            b.slots.sort()
            if a != b { report.violation("the merge does not commute: \(difference(a, b))") }
        } catch {
            report.violation("the copy merged into the fixed vault, but the fixed vault into the copy failed: \(error)")
        }
    }

    /// Key slots (SPEC.md §17.4): each from one side, none that either lists as removed, 1 to
    /// 32, and every slot new to the fixed vault, and every one it lost, reported.
    static func checkSlots(_ merged: VaultHeaderV2, fixed: VaultHeaderV2, copy: VaultHeaderV2, report: MergeReport, into out: inout Report) {
        let mine = Set(fixed.slots.map(\.identity))
        let known = mine.union(copy.slots.map(\.identity))
        let forbidden = Set(fixed.removedSlots.map(\.identity)).union(copy.removedSlots.map(\.identity))
        let identities = merged.slots.map(\.identity)
        if identities.contains(where: { !known.contains($0) }) { out.violation("a key slot neither side had") }
        if identities.contains(where: forbidden.contains) { out.violation("a key slot one side removed is back") }
        if Set(identities).count != identities.count { out.violation("a key slot twice") }
        if !(1...FormatV1.maxSlots).contains(identities.count) { out.violation("\(identities.count) key slots") }
        let added = identities.count { !mine.contains($0) }
        if added != report.slotsAdded { out.violation("\(added) key slots added, \(report.slotsAdded) reported") }
        let removed = mine.subtracting(identities).count
        if removed != report.slotsRemoved { out.violation("\(removed) key slots removed, \(report.slotsRemoved) reported") }
        // Every removal either side made is remembered (a forgotten one lets the slot come back).
        let remembered = Set(merged.removedSlots.map(\.identity))
        if !forbidden.isSubset(of: remembered) { out.violation("\(forbidden.subtracting(remembered).count) removed key slots forgotten") }
    }

    /// Every item of the result against the two sides (SPEC.md §17.5), restated without the
    /// merge code: kept record for record when one side has it alone or both the same record;
    /// otherwise every value one side holds that the other has not seen survives, and no value
    /// neither side holds appears.
    static func checkItems(_ ours: VaultSnapshot, _ theirs: VaultSnapshot, _ result: VaultSnapshot, _ fixture: MergeFixture,
                           into out: inout Report) throws {
        func entry(_ snapshot: VaultSnapshot, _ id: ItemID) -> SnapshotEntry? { snapshot.entries[id] ?? snapshot.tombstones[id] }
        let ids = Set(ours.entries.keys).union(ours.tombstones.keys).union(theirs.entries.keys).union(theirs.tombstones.keys)
        let resultIDs = Set(result.entries.keys).union(result.tombstones.keys)
        if !resultIDs.isSubset(of: ids) { out.violation("an item neither side had") }
        let sealer = ItemSealer(vaultID: fixture.vaultID, keys: fixture.keys, entropy: .system)
        for id in ids.sorted() {
            guard let merged = entry(result, id) else {
                out.violation("item \(id.hex) was lost")
                continue
            }
            let a = entry(ours, id), b = entry(theirs, id)
            guard let a, let b else {
                if merged.record.identity != (a ?? b)?.record.identity { out.violation("item \(id.hex), on one side only, was changed") }
                continue
            }
            if a.record.identity == b.record.identity {
                if merged.record.identity != a.record.identity { out.violation("item \(id.hex), the same on both sides, was changed") }
                continue
            }
            let sa = try sealer.open(try ItemVersion(record: a.record, overview: a.overview))
            let sm = try sealer.open(try ItemVersion(record: merged.record, overview: merged.overview))
            // A record of the copy whose parts do not open (a faulty writer's) may only be
            // passed over, when ours had seen all it had: then ours stays, record for record.
            guard let sb = try? sealer.open(try ItemVersion(record: b.record, overview: b.overview)) else {
                if merged.record.identity != a.record.identity { out.violation("item \(id.hex): merged with a record that does not open") }
                continue
            }
            if !sm.clock.versions.dominates(sa.clock.versions.merged(with: sb.clock.versions).compactedVersions(like: sm.clock.versions)) {
                out.violation("item \(id.hex): the version vector lost edits")
            }
            var registers = Set(sa.clock.stamps.keys).union(sb.clock.stamps.keys).union(sm.clock.stamps.keys)
            for conflict in sa.parts.conflicts + sb.parts.conflicts + sm.parts.conflicts { registers.insert(conflict.register) }
            for register in registers.sorted() {
                let ra = Set(sa.values(of: register).keys), rb = Set(sb.values(of: register).keys)
                let values = Set(sm.values(of: register).keys)
                if !values.isSubset(of: ra.union(rb)) { out.violation("item \(id.hex), \(register): a value neither side had") }
                let unseen = ra.filter { !sb.clock.versions.covers($0) }.union(rb.filter { !sa.clock.versions.covers($0) })
                if !unseen.isSubset(of: values) {
                    out.violation("item \(id.hex), \(register): \(unseen.subtracting(values).count) values one side had not seen were lost")
                }
            }
        }
    }

    /// Which parts of two states differ (ids and field names only: no value).
    private static func difference(_ a: MergedVault, _ b: MergedVault) -> String {
        var parts: [String] = []
        let ai = Dictionary(a.items.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        let bi = Dictionary(b.items.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        for id in Set(ai.keys).union(bi.keys).sorted() where ai[id] != bi[id] {
            parts.append("item \(id) (\(ai[id] == nil ? "only in the second" : bi[id] == nil ? "only in the first" : "differs"))")
        }
        if a.deleted != b.deleted { parts.append("deleted \(a.deleted) / \(b.deleted)") }
        if a.conflicts.map({ "\($0.id) \($0.field)" }) != b.conflicts.map({ "\($0.id) \($0.field)" }) { parts.append("conflicts") }
        else if a.conflicts != b.conflicts { parts.append("conflict values") }
        if a.slots != b.slots { parts.append("slots \(a.slots) / \(b.slots)") }
        return parts.joined(separator: ", ")
    }

    // MARK: - The custom mutator

    /// A replica mutated for the merge: decoded with the vault's key, changed in its merge
    /// fields or its structure, sealed and MACed again (or, one time in four or when it does
    /// not decode, changed byte for byte by `mutateBytes` and its header checksum and MACs
    /// recomputed where the result still parses). The result is at most `maxSize` bytes.
    /// `mutateBytes(bytes, maxSize)` is libFuzzer's own mutator in the fuzz binary.
    static func mutateMerge(_ input: [UInt8], maxSize: Int, seed: UInt32, fixture: MergeFixture,
                            mutateBytes: (inout [UInt8], Int) -> Void) -> [UInt8] {
        var random = MergeMutationRandom(seed: seed)
        for _ in 0..<4 {
            if random.below(4) != 0, let codec = try? VaultFileV2.parse(input) {
                var mutation = MergeMutation(codec: codec, fixture: fixture, random: random)
                if let out = try? mutation.apply(mutateBytes), out.count <= maxSize, out != input { return out }
            }
            random.advance()
        }
        var bytes = input
        mutateBytes(&bytes, maxSize)
        return restamped(bytes, keys: fixture.keys)
    }

    /// Two replicas crossed: the records of the first with some of the second's (by id), under
    /// either header; byte-level when either does not parse.
    static func crossMerge(_ first: [UInt8], _ second: [UInt8], maxSize: Int, seed: UInt32, fixture: MergeFixture) -> [UInt8] {
        var random = MergeMutationRandom(seed: seed)
        guard let a = try? VaultFileV2.parse(first), let b = try? VaultFileV2.parse(second) else {
            let cut = random.below(first.count + 1), from = random.below(second.count + 1)
            return restamped(Array((Array(first.prefix(cut)) + second.dropFirst(from)).prefix(maxSize)), keys: fixture.keys)
        }
        var records = Dictionary(a.records.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
        for record in b.records where random.below(2) == 0 { records[record.id] = record }
        let header = random.below(3) == 0 ? b.header : a.header
        let generation = random.below(2) == 0 ? a.generation : b.generation
        guard let out = try? VaultFileV2.encode(header: header, generation: generation, records: Array(records.values), keys: fixture.keys).bytes,
              out.count <= maxSize else { return first }
        return out
    }

    /// `bytes` with its header checksum and MACs recomputed with `keys` where it parses far
    /// enough for them to be found (the vault target's own rules).
    static func restamped(_ bytes: [UInt8], keys: EpochKeys) -> [UInt8] {
        let checked = withHeaderChecksum(bytes) ?? bytes
        guard let codec = try? VaultFileV2.parse(checked), let stamped = try? withMACs(codec, keys: keys) else { return checked }
        return stamped
    }

    // MARK: - Vector files

    /// A `.vec` file's header text and the vault bytes after the blank line.
    static func vectorFile(_ url: URL) -> (String, [UInt8])? {
        guard let contents = try? Array(Data(contentsOf: url)),
              let split = (0..<max(0, contents.count - 1)).first(where: { contents[$0] == 0x0A && contents[$0 + 1] == 0x0A }) else { return nil }
        return (String(decoding: contents[0..<split], as: UTF8.self), Array(contents[(split + 2)...]))
    }
}

extension VersionVector {
    /// This vector restricted to the replicas `other` names, when `other` was compacted
    /// (SPEC.md §17.9): what a compacted result can still be asked to hold.
    func compactedVersions(like other: VersionVector) -> VersionVector {
        guard other.count >= ItemClock.maxReplicas else { return self }
        return VersionVector(times.filter { other.times[$0.key] != nil })
    }
}

/// The merge fixture's folder, removed at exit.
private final class FolderToRemove: @unchecked Sendable {
    private let lock = NSLock()
    private var path: String?
    func set(_ value: String) { lock.lock(); path = value; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return path }
}
private let mergeFolderToRemove = FolderToRemove()

/// A small deterministic generator for one mutation (SplitMix64): the same seed, the same change.
struct MergeMutationRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt32) { state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func advance() { _ = next() }

    /// A number in 0..<bound (0 when bound is 0).
    mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }

    mutating func pick<T>(_ options: [T]) -> T? { options.isEmpty ? nil : options[below(options.count)] }

    /// Times a merge cares about: the edges (0, 1, the largest) and near given ones.
    mutating func time(near values: [UInt64]) -> UInt64 {
        let base = pick(values) ?? 1
        switch below(8) {
        case 0: return 0
        case 1: return 1
        case 2: return .max
        case 3: return base &+ 1
        case 4: return base &- 1
        case 5: return base &+ UInt64(below(1 << 20))
        case 6: return base >> 1
        default: return base
        }
    }
}

/// One structure-aware change of a decoded replica (see ``FuzzEntryPoints/mutateMerge(_:maxSize:seed:fixture:mutateBytes:)``).
struct MergeMutation {
    var header: VaultHeaderV2
    var generation: UInt64
    var records: [RecordV2]
    let fixture: FuzzEntryPoints.MergeFixture
    var random: MergeMutationRandom

    init(codec: VaultFileV2, fixture: FuzzEntryPoints.MergeFixture, random: MergeMutationRandom) {
        header = codec.header
        generation = codec.generation
        records = codec.records
        self.fixture = fixture
        self.random = random
    }

    var sealer: ItemSealer { ItemSealer(vaultID: fixture.vaultID, keys: fixture.keys, entropy: .system) }

    /// Makes one change and encodes the replica; nil when the change does not apply.
    mutating func apply(_ mutateBytes: (inout [UInt8], Int) -> Void) throws -> [UInt8]? {
        switch random.below(10) {
        case 0, 1, 2: guard try mutateClock() else { return nil }
        case 3: guard try mutateConflicts() else { return nil }
        case 4, 5: guard try mutateMergeFieldBytes(mutateBytes) else { return nil }
        case 6, 7: mutateHeader()
        case 8: guard try mutateRecords() else { return nil }
        default: generation = random.time(near: [generation])
        }
        return try VaultFileV2.encode(header: header, generation: generation, records: records, keys: fixture.keys).bytes
    }

    private mutating func pickRecord() -> Int? { records.isEmpty ? nil : random.below(records.count) }

    private func version(_ index: Int) throws -> ItemVersion {
        let record = records[index]
        return try ItemVersion(record: record, overview: try record.openOverviewList(vaultID: fixture.vaultID, keys: fixture.keys))
    }

    /// Replicas whose stamps make sense here: the item's own, the vault clock's, the fixed vault's.
    private mutating func replica(_ clock: ItemClock) -> UInt64 {
        let known = Array(clock.versions.times.keys) + Array(header.clock.times.keys) + Array(fixture.header.clock.times.keys)
        switch random.below(6) {
        case 0: return random.next()
        case 1: return [1, UInt64.max, UInt64(1) << 63][random.below(3)]
        default: return random.pick(known) ?? 1
        }
    }

    /// A structural change of one item's clock (versions, stamps, siblings, deletion), written
    /// back through the sealer so that the fields stay well formed.
    private mutating func mutateClock() throws -> Bool {
        guard let index = pickRecord() else { return false }
        let version = try version(index)
        var state = try sealer.open(version)
        var clock = state.clock
        let registers = Array(clock.stamps.keys).sorted() + Register.all
        switch random.below(9) {
        case 0:   // a replica's time in the version vector
            let r = replica(clock)
            var times = clock.versions.times
            times[r] = random.time(near: Array(times.values))
            clock.versions = VersionVector(times)
        case 1:   // a replica dropped from the version vector
            guard let r = random.pick(Array(clock.versions.times.keys)) else { return false }
            var times = clock.versions.times
            times[r] = nil
            clock.versions = VersionVector(times)
        case 2:   // a register's stamp moved
            guard let register = random.pick(registers) else { return false }
            let r = replica(clock)
            let stamp = Stamp(replica: r, time: random.time(near: [clock.versions[r]]))
            clock.stamps[register] = stamp
            clock.versions.include(stamp)
        case 3:   // a register's stamp dropped
            guard let register = random.pick(Array(clock.stamps.keys)) else { return false }
            clock.stamps[register] = nil
        case 4:   // deleted, undeleted, or a deletion that has seen part of the versions
            switch random.below(3) {
            case 0: clock.deleted = clock.versions
            case 1: clock.deleted = nil
            default:
                var times = (clock.deleted ?? VersionVector()).times
                let r = replica(clock)
                times[r] = random.time(near: [clock.versions[r]])
                clock.deleted = VersionVector(times)
            }
        case 5:   // a concurrent edit seen: every time up by one
            clock.versions = VersionVector(clock.versions.times.mapValues { $0 &+ 1 })
        case 6:   // a sibling stamp without its value
            guard let register = random.pick(Array(clock.stamps.keys)) else { return false }
            let r = replica(clock)
            clock.siblings[register, default: []].append(Stamp(replica: r, time: random.time(near: [clock.versions[r]])))
        case 7:   // many replicas (towards the bound of §17.9)
            var times = clock.versions.times
            for _ in 0..<(1 + random.below(ItemClock.maxReplicas + 64)) { times[random.next() | 1] = 1 + UInt64(random.below(1000)) }
            clock.versions = VersionVector(times)
        default:  // siblings dropped
            clock.siblings = [:]
        }
        state.clock = clock
        let revision = random.below(4) == 0 ? max(1, min(FormatV2.maxRevision, random.time(near: [version.record.revision]))) : version.record.revision
        records[index] = try sealer.seal(state, id: version.record.id, revision: revision).record
        return true
    }

    /// Losing values added or removed, with their stamps among the siblings (as a writer would).
    private mutating func mutateConflicts() throws -> Bool {
        guard let index = pickRecord() else { return false }
        let version = try version(index)
        var state = try sealer.open(version)
        if !state.parts.conflicts.isEmpty, random.below(3) == 0 {
            let dropped = state.parts.conflicts.remove(at: random.below(state.parts.conflicts.count))
            if random.below(2) == 0 { state.clock.siblings[dropped.register]?.removeAll { $0 == dropped.stamp } }
        } else {
            guard let register = random.pick(Array(state.clock.stamps.keys)) else { return false }
            let r = replica(state.clock)
            let stamp = Stamp(replica: r, time: max(1, random.time(near: [state.clock.versions[r]])))
            if random.below(4) != 0 { state.clock.versions.include(stamp) }
            // The value: this item's or another record's fields of the register.
            var value = ItemMerge.value(register, in: state.parts)
            if let donor = random.pick(fixture.recordPool), random.below(2) == 0,
               let overview = try? donor.openOverviewList(vaultID: fixture.vaultID, keys: fixture.keys),
               let donorState = try? sealer.open(try ItemVersion(record: donor, overview: overview)) {
                value = ItemMerge.value(register, in: donorState.parts)
            }
            state.parts.conflicts.append(ItemParts.Conflict(register: register, stamp: stamp, value: try ItemMerge.fragment(value)))
            if random.below(4) != 0 { state.clock.siblings[register, default: []].append(stamp) }
        }
        records[index] = try sealer.seal(state, id: version.record.id, revision: version.record.revision).record
        return true
    }

    /// The bytes of one overview merge field changed by `mutateBytes`, added or removed; the
    /// overview sealed as it is (the secret part as the record had it).
    private mutating func mutateMergeFieldBytes(_ mutateBytes: (inout [UInt8], Int) -> Void) throws -> Bool {
        guard let index = pickRecord(), !records[index].isTombstone else { return false }
        let record = records[index]
        let overview = try record.openOverviewList(vaultID: fixture.vaultID, keys: fixture.keys)
        let secrets = try record.openSecretList(vaultID: fixture.vaultID, keys: fixture.keys, overview: overview).withUnsafeBytes { Array($0) }
        var fields = try Self.fields(overview)
        let mergeTags = Array(ItemClockCodec.Tag.overview)
        let candidates = fields.indices.filter { mergeTags.contains(fields[$0].tag) }
        switch random.below(6) {
        case 0:   // a new merge field
            let tag = random.pick(mergeTags) ?? ItemClockCodec.Tag.versions
            let position = fields.firstIndex { $0.tag > tag } ?? fields.count
            var value = (0..<(1 + random.below(40))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if let existing = random.pick(candidates) { value = fields[existing].value }
            fields.insert((tag, value), at: position)
        case 1:   // one removed
            guard let victim = random.pick(candidates) else { return false }
            fields.remove(at: victim)
        default:  // one changed
            guard let target = random.pick(candidates) else { return false }
            var value = fields[target].value
            mutateBytes(&value, max(64, value.count * 2))
            fields[target].value = value
        }
        var secretList = FieldList()
        secretList.raw(secrets)
        records[index] = try RecordV2.seal(id: record.id, revision: record.revision, overview: Self.encode(fields), secrets: secretList,
                                           vaultID: fixture.vaultID, keys: fixture.keys, entropy: .system)
        return true
    }

    /// The vault clock, the removed slots, the key slots or the extensions changed.
    private mutating func mutateHeader() {
        switch random.below(8) {
        case 0:
            var times = header.clock.times
            let r = random.pick(Array(times.keys) + Array(fixture.header.clock.times.keys)) ?? random.next()
            times[r] = random.below(4) == 0 ? nil : random.time(near: Array(times.values))
            header.clock = VersionVector(times)
        case 1:   // a slot removed: one of this header's, one of the fixed vault's, or any
            guard let slot = random.pick(header.slots + fixture.slotPool) else { return }
            header.removedSlots = header.removedSlots + [RemovedKeySlot(identity: slot.identity, time: random.time(near: [1]))]
        case 2:   // a removal forgotten
            var removed = header.removedSlots
            guard !removed.isEmpty else { return }
            removed.remove(at: random.below(removed.count))
            header.removedSlots = removed
        case 3:   // a slot added from another replica (the fixed vault removed some of them)
            guard let slot = random.pick(fixture.slotPool), !header.slots.contains(where: { $0.identity == slot.identity }),
                  header.slots.count < FormatV1.maxSlots else { return }
            header.slots.insert(slot, at: random.below(header.slots.count + 1))
        case 4:   // a slot dropped
            guard header.slots.count > 1 else { return }
            header.slots.remove(at: random.below(header.slots.count))
        case 5:   // the slots reordered
            header.slots.shuffle(using: &random)
        case 6:   // an unknown extension
            let type = UInt16(truncatingIfNeeded: random.below(0x100))
            if !header.extensions.contains(where: { $0.type == type }) {
                header.extensions.append(HeaderExtension(type: type, value: (0..<random.below(16)).map { _ in UInt8(truncatingIfNeeded: random.next()) }))
            }
        default:  // many removed slots, newer than the fixed vault's (towards the bound)
            let count = random.below(2) == 0 ? 1 + random.below(64) : VaultHeaderV2.maxRemovedSlots - random.below(8)
            let many = (0..<count).map { i in
                RemovedKeySlot(identity: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }, time: UInt64(i + 2))
            }
            header.removedSlots = header.removedSlots + many
        }
    }

    /// Records dropped, repeated under a new id, taken from another replica, or sealed again at another revision.
    private mutating func mutateRecords() throws -> Bool {
        switch random.below(4) {
        case 0:
            guard let index = pickRecord() else { return false }
            records.remove(at: index)
        case 1:
            guard let donor = random.pick(fixture.recordPool) else { return false }
            records.removeAll { $0.id == donor.id }
            records.append(donor)
        case 2:
            guard let index = pickRecord() else { return false }
            let version = try version(index)
            let state = try sealer.open(version)
            let id = ItemID(validated: (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            records.append(try sealer.seal(state, id: id, revision: 1).record)
        default:
            guard let index = pickRecord() else { return false }
            let version = try version(index)
            let revision = max(1, min(FormatV2.maxRevision, random.time(near: [version.record.revision])))
            records[index] = try sealer.seal(try sealer.open(version), id: version.record.id, revision: revision).record
        }
        return true
    }

    /// A field list's fields in order (tag, value); a list that does not split throws.
    static func fields(_ list: [UInt8]) throws -> [(tag: UInt16, value: [UInt8])] {
        try list.withBytes { (raw) throws -> [(tag: UInt16, value: [UInt8])] in
            var reader = FieldReader(raw, structure: "fuzz") { _ in true }
            var out: [(tag: UInt16, value: [UInt8])] = []
            while let (tag, range) = try reader.next() { out.append((tag, reader.bytes(range))) }
            return out
        }
    }

    static func encode(_ fields: [(tag: UInt16, value: [UInt8])]) -> [UInt8] {
        var list = FieldList()
        for field in fields { list.field(field.tag, field.value) }
        return list.publicBytes
    }
}

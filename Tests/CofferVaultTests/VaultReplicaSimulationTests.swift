import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// A seeded simulation of 3–5 replicas of one vault (devices, each with its own copy of the
/// file and its own replica state) that edit offline and sync in random orders: pairwise
/// `merge(contentsOf:)`, or a sync service's conflict copy (of the other device's file as it
/// is, or of a copy the service kept earlier) found by `conflictCopies()`. Now and then a
/// device's second app, with its own open vault on the same file, acts on an older snapshot
/// than the file, so its saves go through the join-and-replay of `Vault.commit`.
/// Operations: add, edit a field (label, account, comment, URLs, tags, favourite, a custom
/// field, password, notes, a secret field, an attachment; some edits remove), delete,
/// resolve conflicts, add or remove a key slot, change the vault password, and restore the
/// backup (`restoreBackup()`: the file goes back to the version its last save replaced, and
/// edits only that version held are gone from this copy; other copies may still hold them).
/// Now and then a writer without device state acts instead of the device's apps: a process
/// that opens the file with no replica state (a fresh replica id every run, as cron or CI
/// jobs without HOME), adds, edits, deletes, resolves or restores, and exits.
/// Key rotations (SPEC.md §17.8): a device rekeys (`rotateKey()`), or a slot removal, a
/// password change or a required key file (`requireKeyFile`) rotates in the same save (one
/// in three), while the other devices stay on the earlier key: their copies then merge as
/// older copies, successors or concurrent rotations. A merge that holds edits (an earlier
/// key's edits dated after the rotation) is followed at once by the same merge with
/// `acceptEarlierKey`, as the owner who checked them would: every edit is then still
/// judged by the ledger, and the held ones are counted. A schedule with rotations ends
/// with two full rounds: an older copy's key slots enter only once its own device has moved
/// to the newer key and merged again (SPEC.md §17.8 case 3).
///
/// Every schedule ends with a full round (everyone into replica 0, then replica 0 into
/// everyone) and checks:
///
/// - convergence: every replica holds the same decrypted items (attributes with dates,
///   secrets with the password history as a set, conflict records, item clocks), the same
///   tombstones and the same key slots (by identity);
/// - the ledger: the test's own causal model (which writes each file and each open vault
///   has seen; a merge is a union; a restore puts back what the file held before its last
///   save, as the file on disk tells) says which writes may be gone. Only writes that
///   replica 0's file has seen after the final round are judged: a write that a restore
///   took from the one copy that held it is gone by the user's choice. A write is superseded by
///   a later write of the same field, or a resolution, made by a vault that had seen it (a
///   resolution only of values it saw lose; never of passwords). Every other write of a live
///   item is still there: the current value, in the password history, or in a conflict
///   record. An item is deleted exactly when every write to it was seen by some deletion;
///   the key slots are those added and not removed;
/// - on some schedules, commutativity (A into B equals B into A) and idempotence (merging
///   the same replica again reports nothing).
///
/// Fields are judged as today's merge groups them (a whole list is one register), which
/// stays sound if lists are later merged per entry: a finer merge only keeps more.
///
/// `COFFER_SIMULATION_SCHEDULES=20000` runs more schedules (`make simulate`);
/// `COFFER_SIMULATION_SEED=<seed>` runs one and prints its schedule;
/// `COFFER_SIMULATION_BASE_SEED=<n>` starts the seeds elsewhere (schedule k uses base + k);
/// `COFFER_SIMULATION_TRACE=1` prints each seed as it starts (to name one that crashes);
/// `COFFER_SIMULATION_WORKERS=<n>` runs schedules on n threads (default 1). A seed always
/// gives the same schedule; which of two concurrent values wins still follows the clock.
/// A failing schedule is reduced to the fewest steps that still fail, and printed.
@Suite("Vault: replica simulation")
struct VaultReplicaSimulationTests {
    static let defaultSchedules = 1_000
    static let baseSeed: UInt64 = 0xC0FF_EE00_0000

    @Test("Replicas editing offline and syncing in random orders converge and lose no edit")
    func simulation() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        let verbose: Bool
        if let text = environment["COFFER_SIMULATION_SEED"], let seed = UInt64(text) {
            seeds = [seed]
            verbose = true
        } else {
            verbose = false
            let count = environment["COFFER_SIMULATION_SCHEDULES"].flatMap { Int($0) } ?? Self.defaultSchedules
            let base = environment["COFFER_SIMULATION_BASE_SEED"].flatMap { UInt64($0) } ?? Self.baseSeed
            seeds = (0..<UInt64(max(1, count))).map { base &+ $0 }
        }
        let trace = verbose || environment["COFFER_SIMULATION_TRACE"] != nil
        let started = Date()
        let results = SimulationResults()
        // One thread by default: every guarded allocation changes the process's memory map
        // (mlock, mprotect), so a second thread mostly waits for the first.
        let workers = max(1, min(environment["COFFER_SIMULATION_WORKERS"].flatMap { Int($0) } ?? 1, seeds.count))
        // On threads of its own: the schedules block on files, which the tasks' pool must not.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: workers) { worker in
                    for index in stride(from: worker, to: seeds.count, by: workers) {
                        let schedule = Schedule.generate(seed: seeds[index])
                        if trace { print("seed \(seeds[index])\(verbose ? ": " + schedule.description : "")") }
                        results.add(SimulationRun.run(schedule))
                    }
                }
                done.resume()
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        let stats = results.stats
        let range = seeds.count == 1 ? "seed \(seeds[0])" : "seeds \(seeds.first!)...\(seeds.last!)"
        print("Replica simulation: \(seeds.count) schedules (\(range)), \(stats.steps) steps, \(stats.merges) merges "
              + "(\(stats.conflictCopies) through conflict copies), \(stats.conflictedItems) items left with conflicts by merges, "
              + "\(stats.conflictRecords) conflict records at the end, \(stats.writes) writes checked, \(stats.deletedItems) items deleted, "
              + "\(stats.restoredItems) items brought back by an edit a deletion had not seen, \(stats.staleSaves) saves by an app with an older snapshot than the file, "
              + "\(stats.restores) restores (\(stats.lostToRestores) writes no copy held any more), \(stats.statelessSteps) steps by writers without device state, "
              + "\(stats.rotations) key rotations (and slot changes that rotated), \(stats.crossEpochMerges) merges across a rotation, "
              + "\(stats.heldItems) held items accepted by the owner, "
              + "\(stats.probes) commutativity/idempotence probes, \(String(format: "%.1f", elapsed)) s")

        let failed = results.failures.sorted { $0.schedule.seed < $1.schedule.seed }
        guard let first = failed.first else { return }
        let reduced = Schedule.reduce(first.schedule)
        let again = SimulationRun.run(reduced)
        var message = "\(failed.count) of \(seeds.count) schedules failed (seeds \(failed.prefix(20).map { String($0.schedule.seed) }.joined(separator: ", "))).\n"
        message += "First failing seed \(first.schedule.seed) (replay: COFFER_SIMULATION_SEED=\(first.schedule.seed)):\n"
        message += first.failures.prefix(10).joined(separator: "\n") + "\n"
        message += "Reduced to \(reduced.steps.count) steps:\n\(reduced.description)\n"
        message += again.failures.prefix(10).joined(separator: "\n")
        print(message)
        Issue.record(Comment(rawValue: message))
    }
}

// MARK: - Schedules

/// The fields the simulation writes, grouped as the merge's registers group them today (a
/// list such as the custom fields is one register). Supersession is judged at this level,
/// which stays sound if a list is later merged per entry: a finer merge keeps more.
enum SimField: String, CaseIterable, Sendable, Comparable {
    case label, service, server, account, comment, urls, tags, favorite, fields, password, notes, secretFields, attachments

    static func < (a: SimField, b: SimField) -> Bool { a.rawValue < b.rawValue }

    /// The conflict records' name of the register (``ItemConflict/field``), as a prefix: a
    /// per-entry merge may name its records more precisely.
    var conflictField: String {
        switch self {
        case .secretFields: return "secret-fields"
        default: return rawValue
        }
    }
}

enum ItemShape: Int, Sendable {
    case generic, internet, note
}

enum Op: Sendable {
    /// A new item numbered `item` (the simulation's number), with `extras` set beside the
    /// fields its kind needs.
    case add(replica: Int, item: Int, shape: ItemShape, extras: [SimField])
    /// One field written; `name` for a custom field, secret field or attachment; a removal
    /// writes no value; `flag` is the favourite's new value; `wholeSecrets` edits through
    /// `update(_:secrets:)` instead of the closure.
    case edit(replica: Int, item: Int, field: SimField, name: String?, removal: Bool, flag: Bool, wholeSecrets: Bool)
    case delete(replica: Int, item: Int)
    /// `resolveConflicts(for:)`: the losing values the replica holds are dropped.
    case resolve(replica: Int, item: Int)
    case addSlot(replica: Int, slot: Int, password: Bool)
    case removeSlot(replica: Int, slot: Int)
    /// `changePassword(to:)` of the vault: the replica's password slots give way to slot `slot`.
    case changeVaultPassword(replica: Int, slot: Int)
    /// `requireKeyFile(_:password:)`: a password and key-file slot `slot` for one of the
    /// replica's passwords, and every password slot removed.
    case requireKeyFile(replica: Int, slot: Int)
    /// `rotateKey()`: a new vault key (SPEC.md §11.2).
    case rotate(replica: Int)
    /// `restoreBackup()`: the replica's file goes back to the version its last save replaced.
    case restore(replica: Int)
    /// `refresh()` of an app's vault: the file it finds there, joined with what its snapshot
    /// holds and the file lacks (after a restore), saved. The final round starts with it.
    case refresh(replica: Int)
    /// `into` merges `from`'s file, directly or as a conflict copy left beside its own file;
    /// `twice` merges it again and expects nothing to change.
    case merge(into: Int, from: Int, conflictCopy: Bool, twice: Bool)
    /// The sync service keeps a copy of `replica`'s file as it is now (a conflict copy is
    /// usually an older version).
    case keepCopy(replica: Int)
    /// `into` merges the copy kept of `from`'s file (maybe its own), left as a conflict copy.
    case mergeKept(into: Int, from: Int)
    /// Copies of `a` and `b` merged both ways (commutativity) and twice (idempotence).
    case probe(a: Int, b: Int)

    var replica: Int? {
        switch self {
        case .add(let r, _, _, _), .edit(let r, _, _, _, _, _, _), .delete(let r, _), .resolve(let r, _), .addSlot(let r, _, _),
             .removeSlot(let r, _), .changeVaultPassword(let r, _), .restore(let r), .refresh(let r),
             .requireKeyFile(let r, _), .rotate(let r): return r
        case .merge(let into, _, _, _), .mergeKept(let into, _): return into
        case .probe, .keepCopy: return nil
        }
    }
}

struct Step: Sendable, CustomStringConvertible {
    let index: Int
    let op: Op
    /// Part of the final round: never removed when a failing schedule is reduced.
    let isFinal: Bool
    /// Which of the replica's two open vaults (two apps on one device, one file) does it;
    /// ``Step/stateless`` (-1): a process without device state, which opens the file, acts and exits.
    var handle = 0
    static let stateless = -1

    init(index: Int, op: Op, isFinal: Bool, handle: Int = 0) {
        self.index = index
        self.op = op
        self.isFinal = isFinal
        self.handle = handle
    }

    var description: String {
        let prefix = "  s\(index)\(isFinal ? "*" : "") " + (handle > 0 ? "[app \(handle)] " : handle < 0 ? "[stateless] " : "")
        switch op {
        case .add(let r, let item, let shape, let extras):
            return prefix + (r < 0 ? "origin" : "r\(r)") + " add item\(item) (\(shape)) with \(extras.map(\.rawValue).joined(separator: ","))"
        case .edit(let r, let item, let field, let name, let removal, let flag, let whole):
            let what = field == .favorite ? "favorite = \(flag)" : removal ? "remove \(field.rawValue)\(name.map { " " + $0 } ?? "")"
                : "\(field.rawValue)\(name.map { "[" + $0 + "]" } ?? "") = \(Schedule.value(step: index, replica: r, field: field, name: name))"
            return prefix + "r\(r) edit item\(item) \(what)\(whole ? " (update(_:secrets:))" : "")"
        case .delete(let r, let item): return prefix + "r\(r) delete item\(item)"
        case .resolve(let r, let item): return prefix + "r\(r) resolve the conflicts of item\(item)"
        case .addSlot(let r, let slot, let password): return prefix + "r\(r) add \(password ? "password" : "raw-key") slot\(slot)"
        case .removeSlot(let r, let slot): return prefix + "r\(r) remove slot\(slot)" + (Schedule.rotates(index) ? ", rotating" : "")
        case .changeVaultPassword(let r, let slot): return prefix + "r\(r) change vault password (new slot\(slot))" + (Schedule.rotates(index) ? ", rotating" : "")
        case .requireKeyFile(let r, let slot): return prefix + "r\(r) require a key file (new slot\(slot))" + (Schedule.rotates(index) ? ", rotating" : "")
        case .rotate(let r): return prefix + "r\(r) rotates the vault key"
        case .restore(let r): return prefix + "r\(r) restores its backup"
        case .refresh(let r): return prefix + "r\(r) refreshes"
        case .merge(let into, let from, let copy, let twice):
            return prefix + "r\(into) merges r\(from)\(copy ? " via a conflict copy" : "")\(twice ? ", twice" : "")"
        case .probe(let a, let b): return prefix + "probe r\(a) x r\(b) (commutativity, idempotence)"
        case .keepCopy(let r): return prefix + "the sync service keeps a copy of r\(r)'s file"
        case .mergeKept(let into, let from): return prefix + "r\(into) merges the copy kept of r\(from)'s file via a conflict copy"
        }
    }
}

/// One schedule: how many replicas, and the steps, all drawn from the seed. Choices depend
/// only on the causal model (which items each replica holds), never on which concurrent
/// value won, so a seed always gives the same schedule.
struct Schedule: Sendable, CustomStringConvertible {
    let seed: UInt64
    let replicas: Int
    /// Items in the vault before it is copied to the replicas (replica -1, the origin).
    let initial: [Step]
    let steps: [Step]

    static let maxItems = 5
    static let maxSlotAdds = 8
    static let customNames = ["f0", "f1", "f2"]
    static let secretNames = ["s0", "s1"]
    static let attachmentNames = ["a0", "a1"]

    var description: String {
        "schedule seed \(seed), \(replicas) replicas, \(initial.count) items to start with, \(steps.count) steps:\n"
            + (initial + steps).map(\.description).joined(separator: "\n")
    }

    /// Whether a slot removal, password change or required key file at step `index` rotates the key.
    static func rotates(_ index: Int) -> Bool { index % 3 == 0 }

    /// Whether a schedule changes the vault key anywhere (it then ends with two full rounds).
    static func hasRotations(_ steps: [Step]) -> Bool {
        steps.contains { step in
            switch step.op {
            case .rotate: return true
            case .removeSlot, .changeVaultPassword, .requireKeyFile: return rotates(step.index)
            default: return false
            }
        }
    }

    /// The unique value a step writes to a field.
    static func value(step: Int, replica: Int, field: SimField, name: String?) -> String {
        (replica < 0 ? "origin\(-step)" : "r\(replica)-s\(step)") + "-\(field.rawValue)" + (name.map { "-" + $0 } ?? "")
    }

    static func generate(seed: UInt64) -> Schedule {
        var rng = SeededRandom(seed: seed)
        let replicas = Int.random(in: 3...5, using: &rng)
        let count = Int.random(in: 6...20, using: &rng)
        var model = CausalModel(replicas: replicas)
        var steps: [Step] = []
        var items = 0, slots = 1, slotAdds = 0
        func newItem(replica: Int) -> Op {
            let shape = ItemShape(rawValue: Int.random(in: 0...2, using: &rng))!
            var extras: [SimField] = []
            for field in [SimField.label, .comment, .urls, .tags, .favorite, .fields, .password, .notes, .secretFields, .attachments]
            where Double.random(in: 0..<1, using: &rng) < 0.3 {
                if field == .label, shape == .note { continue }
                extras.append(field)
            }
            items += 1
            return .add(replica: replica, item: items - 1, shape: shape, extras: extras)
        }
        // Items every replica starts with, so that they edit the same items from the start.
        var initial: [Step] = []
        for index in 0..<Int.random(in: 1...2, using: &rng) {
            let step = Step(index: -1 - index, op: newItem(replica: -1), isFinal: false)
            model.apply(step, slotPassword: nil)
            initial.append(step)
        }
        // Most edits go to a few fields drawn for the schedule, so that replicas often edit
        // the same field of the same item concurrently.
        let editable: [SimField] = [.label, .account, .comment, .urls, .tags, .favorite, .fields, .password, .notes, .secretFields, .attachments]
        let hot = Array(editable.shuffled(using: &rng).prefix(3))
        let probeAt = seed % 8 == 0 ? Int.random(in: 0..<count, using: &rng) : -1
        for index in 0..<count {
            var op: Op
            // Now and then the device's other app (a second open vault on the same file) acts,
            // or a process without device state.
            let app = Double.random(in: 0..<1, using: &rng)
            var handle = app < 0.2 ? 1 : app < 0.28 ? Step.stateless : 0
            if index == probeAt {
                let a = Int.random(in: 0..<replicas, using: &rng)
                op = .probe(a: a, b: (a + Int.random(in: 1..<replicas, using: &rng)) % replicas)
            } else if index > 0, Double.random(in: 0..<1, using: &rng) < 0.3 {
                let into = Int.random(in: 0..<replicas, using: &rng)
                let from = (into + Int.random(in: 1..<replicas, using: &rng)) % replicas
                let roll = Double.random(in: 0..<1, using: &rng)
                if roll < 0.08 {
                    op = .keepCopy(replica: from)
                } else if roll < 0.16, let kept = model.kept.keys.sorted().randomElement(using: &rng) {
                    op = .mergeKept(into: into, from: kept)
                } else {
                    op = .merge(into: into, from: from, conflictCopy: roll < 0.3, twice: Double.random(in: 0..<1, using: &rng) < 0.1)
                }
            } else {
                let r = Int.random(in: 0..<replicas, using: &rng)
                let live = model.liveItems(on: r, handle: handle)
                let roll = Double.random(in: 0..<1, using: &rng)
                let visible = model.view(r, handle).visibleSlots
                if Double.random(in: 0..<1, using: &rng) < 0.06, model.backups[r] != nil {
                    op = .restore(replica: r)
                } else if live.isEmpty || (roll < 0.12 && items < maxItems) {
                    op = newItem(replica: r)
                } else if roll < 0.22 {
                    op = .delete(replica: r, item: live.randomElement(using: &rng)!)
                } else if roll < 0.26 {
                    op = .resolve(replica: r, item: live.randomElement(using: &rng)!)
                } else if roll < 0.37, roll >= 0.34, handle != Step.stateless {
                    op = .rotate(replica: r)
                } else if roll < 0.34, slotAdds < maxSlotAdds, handle != Step.stateless {
                    let kind = Int.random(in: 0...3, using: &rng)
                    let removable = visible.filter { $0 != 0 }.sorted()
                    let passwords = visible.filter { model.slotIsPassword[$0] == true }
                    if kind == 0, let slot = removable.randomElement(using: &rng) {
                        op = .removeSlot(replica: r, slot: slot)
                    } else if kind == 1, !passwords.isEmpty {
                        op = .changeVaultPassword(replica: r, slot: slots)
                        slots += 1; slotAdds += 1
                    } else if kind == 3, !passwords.isEmpty {
                        op = .requireKeyFile(replica: r, slot: slots)
                        slots += 1; slotAdds += 1
                    } else {
                        op = .addSlot(replica: r, slot: slots, password: Bool.random(using: &rng))
                        slots += 1; slotAdds += 1
                    }
                } else {
                    let item = live.randomElement(using: &rng)!
                    let field = (Double.random(in: 0..<1, using: &rng) < 0.7 ? hot : editable).randomElement(using: &rng)!
                    var name: String?
                    switch field {
                    case .fields: name = customNames.randomElement(using: &rng)
                    case .secretFields: name = secretNames.randomElement(using: &rng)
                    case .attachments: name = attachmentNames.randomElement(using: &rng)
                    default: break
                    }
                    let removable: Set<SimField> = [.comment, .notes, .fields, .secretFields, .attachments, .urls, .tags]
                    let removal = removable.contains(field) && Double.random(in: 0..<1, using: &rng) < 0.12
                    op = .edit(replica: r, item: item, field: field, name: name, removal: removal,
                               flag: Bool.random(using: &rng), wholeSecrets: field == .password && Bool.random(using: &rng))
                }
            }
            if handle == Step.stateless, op.replica == nil || !op.suitsStatelessWriter { handle = 0 }
            let step = Step(index: index, op: op, isFinal: false, handle: handle)
            model.apply(step, slotPassword: op.newSlotIsPassword)
            steps.append(step)
        }
        // The final round: every app takes up its file (and saves what only its snapshot
        // holds: a restore may have taken it from the file), then everyone into replica 0,
        // then replica 0 into everyone.
        var index = count
        for replica in 0..<replicas {
            for handle in 0..<CausalModel.handles where handle == 0 || steps.contains(where: { $0.handle == handle && $0.op.replica == replica }) {
                steps.append(Step(index: index, op: .refresh(replica: replica), isFinal: true, handle: handle))
                index += 1
            }
        }
        // Two rounds when the key was rotated: an older copy's slots enter only once its own
        // device has moved to the newer key and merged again (SPEC.md §17.8 case 3).
        for _ in 0..<(hasRotations(steps) ? 2 : 1) {
            for from in 1..<replicas {
                steps.append(Step(index: index, op: .merge(into: 0, from: from, conflictCopy: false, twice: false), isFinal: true))
                index += 1
            }
            for into in 1..<replicas {
                steps.append(Step(index: index, op: .merge(into: into, from: 0, conflictCopy: false, twice: false), isFinal: true))
                index += 1
            }
        }
        return Schedule(seed: seed, replicas: replicas, initial: initial, steps: steps)
    }

    /// The fewest steps (greedily, one at a time) that still fail; steps that no longer
    /// make sense (an edit of an item whose addition was removed) are skipped when run.
    static func reduce(_ schedule: Schedule) -> Schedule {
        var current = schedule
        var changed = true
        var runs = 0
        while changed, runs < 400 {
            changed = false
            for position in current.steps.indices.reversed() where !current.steps[position].isFinal {
                guard position < current.steps.count else { continue }
                var steps = current.steps
                steps.remove(at: position)
                let candidate = Schedule(seed: current.seed, replicas: current.replicas, initial: current.initial, steps: steps)
                runs += 1
                if !SimulationRun.run(candidate).failures.isEmpty {
                    current = candidate
                    changed = true
                }
                if runs >= 400 { break }
            }
        }
        return current
    }
}

extension Op {
    var isSlotRemoval: Bool {
        if case .removeSlot = self { return true }
        return false
    }

    var isRestore: Bool {
        if case .restore = self { return true }
        return false
    }

    /// Whether a process without device state may do it in the simulation: item edits and restores.
    var suitsStatelessWriter: Bool {
        switch self {
        case .add, .edit, .delete, .resolve, .restore: return true
        default: return false
        }
    }

    var newSlotIsPassword: Bool? {
        switch self {
        case .addSlot(_, _, let password): return password
        case .changeVaultPassword: return true
        case .requireKeyFile: return false
        default: return nil
        }
    }

    /// Whether its save leaves no backup under the slots or key before (a rotation, a slot change).
    var changesCredentials: Bool {
        switch self {
        case .rotate, .removeSlot: return true
        default: return newSlotIsPassword != nil
        }
    }
}

// MARK: - The causal model

/// One write the simulation made: a field of an item (or its deletion), by a replica that had
/// seen `seen` (write ids) when it made it.
struct SimWrite: Sendable {
    let id: Int
    let step: Int
    let replica: Int
    let item: Int
    /// Nil: the deletion of the item, or the resolution of its conflicts.
    let field: SimField?
    let name: String?
    /// Nil: a removal (and the favourite's value, as "true" or "false").
    let value: String?
    let seen: Set<Int>
    /// An edit that left the field as it was (a removal of what was not there, the
    /// favourite set to what it was): a new version of the item, but no write of the field.
    let isNoop: Bool
    /// `resolveConflicts(for:)`: a new version of the item that drops the losing values it has seen.
    let isResolution: Bool

    var isDelete: Bool { field == nil && !isResolution }
}

/// What one vault file, or one open vault's snapshot of it, has seen: write ids, and the
/// key slots it knows of and knows to be removed. A merge is a union of each.
struct ReplicaView: Sendable, Equatable {
    var seen: Set<Int> = []
    var knownSlots: Set<Int> = [0]
    var removedSlots: Set<Int> = []

    var visibleSlots: Set<Int> { knownSlots.subtracting(removedSlots) }

    mutating func absorb(_ other: ReplicaView) {
        seen.formUnion(other.seen)
        knownSlots.formUnion(other.knownSlots)
        removedSlots.formUnion(other.removedSlots)
    }
}

/// The test's causal model: every write, and what each replica's file and each open vault
/// on it (two per replica: two apps of one device) has seen. A vault that saves after the
/// other one saved the file merges the file first (`Vault.commit`), so its edits had seen
/// only its own older snapshot, and the file then holds both.
struct CausalModel: Sendable {
    static let handles = 2
    var writes: [SimWrite] = []
    var writesByItem: [Int: [Int]] = [:]
    /// The first write of each item's addition.
    var addedBy: [Int: Int] = [:]
    var slotIsPassword: [Int: Bool] = [0: false]
    var files: [ReplicaView]
    var views: [[ReplicaView]]
    /// The copies of replicas' files the sync service kept, as they were then.
    var kept: [Int: ReplicaView] = [:]
    /// Each replica's backup (`.bak`): its file as it was before its last save, nil when
    /// there is none (never saved, or the last save changed the key slots). When a schedule
    /// is drawn every save of an op is assumed; a run takes it from the files on disk.
    var backups: [ReplicaView?]

    init(replicas: Int) {
        files = Array(repeating: ReplicaView(), count: replicas)
        views = Array(repeating: Array(repeating: ReplicaView(), count: Self.handles), count: replicas)
        backups = Array(repeating: nil, count: replicas)
    }

    /// What the vault that acts has seen: an app's snapshot, or for a process without device
    /// state (``Step/stateless``) the file it has just opened.
    func view(_ replica: Int, _ handle: Int) -> ReplicaView {
        handle == Step.stateless ? files[replica] : views[replica][handle]
    }

    /// Whether `item` is live in the state that has seen `view`: added, and not every write
    /// to it seen by a deletion (the item's deletion vector covering its version vector).
    func isLive(_ item: Int, view: Set<Int>) -> Bool {
        guard let add = addedBy[item], view.contains(add) else { return false }
        let mine = (writesByItem[item] ?? []).filter { view.contains($0) }
        let deletes = mine.filter { writes[$0].isDelete }
        if deletes.isEmpty { return true }
        return mine.contains { w in !writes[w].isDelete && !deletes.contains { writes[$0].seen.contains(w) } }
    }

    /// The writes of `field` of `item` in `view` that no other write there had seen: one is
    /// the value, the others lost to it (conflicts). A register's concurrent values.
    func maximal(_ item: Int, _ field: SimField, view: Set<Int>) -> [Int] {
        let candidates = (writesByItem[item] ?? []).filter { view.contains($0) && writes[$0].field == field && !writes[$0].isNoop }
        return candidates.filter { w in !candidates.contains { $0 != w && writes[$0].seen.contains(w) } }
    }

    /// Whether `resolution` dropped `write` legitimately: it had seen it, as a losing value
    /// (a value it saw as the only one is what it kept). Passwords stay in the history.
    func resolves(_ resolution: SimWrite, _ write: SimWrite) -> Bool {
        guard resolution.isResolution, let field = write.field, field != .password, resolution.seen.contains(write.id) else { return false }
        return maximal(write.item, field, view: resolution.seen) != [write.id]
    }

    func liveItems(on replica: Int, handle: Int) -> [Int] {
        addedBy.keys.sorted().filter { isLive($0, view: view(replica, handle).seen) }
    }

    /// Whether the vault `handle` of `replica` has an older snapshot than the file.
    func isStale(_ replica: Int, _ handle: Int) -> Bool { view(replica, handle) != files[replica] }

    /// Whether `step` can run in this state (a reduced schedule may have lost what it needs).
    func canRun(_ step: Step) -> Bool {
        let h = step.handle
        switch step.op {
        case .add(_, let item, _, _): return addedBy[item] == nil
        case .edit(let r, let item, _, _, _, _, _), .delete(let r, let item), .resolve(let r, let item):
            return isLive(item, view: view(r, h).seen)
        case .addSlot(let r, let slot, _):
            return slotIsPassword[slot] == nil && files[r].visibleSlots.union(view(r, h).visibleSlots).count < FormatV1.maxSlots
        case .removeSlot(let r, let slot): return slot != 0 && view(r, h).visibleSlots.contains(slot)
        case .changeVaultPassword(let r, let slot), .requireKeyFile(let r, let slot):
            return slotIsPassword[slot] == nil && view(r, h).visibleSlots.contains { slotIsPassword[$0] == true }
        case .rotate: return true
        case .restore(let r): return backups[r] != nil
        case .refresh: return true
        case .mergeKept(_, let from): return kept[from] != nil
        case .merge, .probe, .keepCopy: return true
        }
    }

    /// Records a write by `replica` through its vault `handle`; the origin's (-1) are seen by everyone.
    private mutating func write(step: Int, replica: Int, handle: Int, item: Int, field: SimField?, name: String?, value: String?,
                                noop: Bool = false, resolution: Bool = false) {
        let id = writes.count
        writes.append(SimWrite(id: id, step: step, replica: replica, item: item, field: field, name: name, value: value,
                               seen: replica < 0 ? [] : view(replica, handle).seen, isNoop: noop, isResolution: resolution))
        writesByItem[item, default: []].append(id)
        if addedBy[item] == nil { addedBy[item] = id }
        for r in files.indices where r == replica || replica < 0 {
            files[r].seen.insert(id)
        }
        if replica < 0 {
            for r in views.indices { for h in views[r].indices { views[r][h].seen.insert(id) } }
        }
    }

    /// Records what `step` does; returns false (and records nothing) when it cannot run.
    /// `noop`: the edit left its field as it was (known once run).
    @discardableResult
    ///
    /// `slots`: for a slot change that was run, the slots the file's header gained and lost
    /// (across rotations a replica's slots are not always those the model unions, SPEC.md
    /// §17.8 case 3); the model takes those instead of the ones it assumes.
    mutating func apply(_ step: Step, slotPassword: Bool?, noop: Bool = false, slots: (added: [Int], removed: [Int])? = nil) -> Bool {
        guard canRun(step) else { return false }
        let s = step.index, h = step.handle
        let before = step.op.replica.flatMap { $0 >= 0 ? files[$0] : nil }
        switch step.op {
        case .add(let r, let item, let shape, let extras):
            for (field, name) in ItemShape.fields(shape, extras: extras) {
                let value = field == .favorite ? "true" : Schedule.value(step: s, replica: r, field: field, name: name)
                write(step: s, replica: r, handle: h, item: item, field: field, name: name, value: value)
            }
        case .edit(let r, let item, let field, let name, let removal, let flag, _):
            // An edit that changes nothing saves nothing (issue 20): no write, and the vault that
            // made it neither saved nor read the file, so its view stays as it was.
            if noop { return true }
            let value = field == .favorite ? String(flag) : removal ? nil : Schedule.value(step: s, replica: r, field: field, name: name)
            write(step: s, replica: r, handle: h, item: item, field: field, name: name, value: value, noop: noop)
        case .delete(let r, let item):
            // A deletion made on an older snapshot, of an item the file holds an edit of that
            // neither it nor a deletion there had seen, is dropped: the edit wins
            // (ItemMerge.delete). The vault still saves, so it holds the file from then on.
            if r >= 0 {
                let view = view(r, h).seen, file = files[r].seen
                let there = (writesByItem[item] ?? []).filter { file.contains($0) }
                let deletions = there.filter { writes[$0].isDelete }
                if there.contains(where: { w in
                    !writes[w].isDelete && !view.contains(w) && !deletions.contains { writes[$0].seen.contains(w) }
                }) {
                    break
                }
            }
            write(step: s, replica: r, handle: h, item: item, field: nil, name: nil, value: nil)
        case .resolve(let r, let item):
            write(step: s, replica: r, handle: h, item: item, field: nil, name: nil, value: nil, resolution: true)
        case .addSlot(let r, _, _), .removeSlot(let r, _), .changeVaultPassword(let r, _), .requireKeyFile(let r, _) where slots != nil:
            for slot in slots?.added ?? [] {
                files[r].knownSlots.insert(slot)
                if slotIsPassword[slot] == nil { slotIsPassword[slot] = slotPassword ?? false }
            }
            files[r].removedSlots.formUnion(slots?.removed ?? [])
        case .addSlot(let r, let slot, _):
            files[r].knownSlots.insert(slot)
            slotIsPassword[slot] = slotPassword ?? false
        case .removeSlot(let r, let slot):
            files[r].removedSlots.insert(slot)
        case .changeVaultPassword(let r, let slot), .requireKeyFile(let r, let slot):
            // The password slots this vault saw give way; any another app added meanwhile stay.
            // (A run applies what the file's header says instead: ``applySlots``.)
            for old in view(r, h).visibleSlots where slotIsPassword[old] == true { files[r].removedSlots.insert(old) }
            files[r].knownSlots.insert(slot)
            slotIsPassword[slot] = slotPassword ?? true
        case .rotate:
            break
        case .merge(let into, let from, _, _):
            files[into].absorb(files[from])
        case .keepCopy(let r):
            kept[r] = files[r]
        case .mergeKept(let into, let from):
            if let copy = kept[from] { files[into].absorb(copy) }
        case .restore(let r):
            guard let backup = backups[r] else { return false }
            files[r] = backup
        case .refresh:
            break
        case .probe:
            break
        }
        if let r = step.op.replica, r >= 0, let before {
            // An app's save joins its snapshot with the file (Vault.commit): what a restore
            // took from the file comes back from an app that still held it. A restore does not
            // join: the backup is put in place as it is.
            if h != Step.stateless, !step.op.isRestore { files[r].absorb(views[r][h]) }
            // The backup is the file before this save, or after it when the key slots changed
            // (no file under old slots is left); a run reads what the disk says instead.
            backups[r] = step.op.changesCredentials ? files[r] : before
            // The vault that saved holds what it saved: the file, merged with what it found there.
            if h != Step.stateless { views[r][h] = files[r] }
        }
        return true
    }
}

extension ItemShape {
    /// The fields an addition writes: those the kind needs, then the extras.
    static func fields(_ shape: ItemShape, extras: [SimField]) -> [(SimField, String?)] {
        var out: [(SimField, String?)]
        switch shape {
        case .generic: out = [(.service, nil), (.account, nil)]
        case .internet: out = [(.server, nil), (.account, nil)]
        case .note: out = [(.label, nil)]
        }
        for field in extras {
            switch field {
            case .fields: out.append((field, "f0"))
            case .secretFields: out.append((field, "s0"))
            case .attachments: out.append((field, "a0"))
            default: out.append((field, nil))
            }
        }
        return out
    }
}

// MARK: - Running a schedule

struct SimulationStats: Sendable {
    var steps = 0, merges = 0, conflictCopies = 0, conflictedItems = 0, conflictRecords = 0, writes = 0
    var deletedItems = 0, probes = 0, staleSaves = 0, restoredItems = 0, restores = 0, statelessSteps = 0, lostToRestores = 0
    var rotations = 0, crossEpochMerges = 0, heldItems = 0

    mutating func add(_ other: SimulationStats) {
        rotations += other.rotations; crossEpochMerges += other.crossEpochMerges; heldItems += other.heldItems
        restores += other.restores; statelessSteps += other.statelessSteps; lostToRestores += other.lostToRestores
        steps += other.steps; merges += other.merges; conflictCopies += other.conflictCopies
        conflictedItems += other.conflictedItems; conflictRecords += other.conflictRecords; writes += other.writes
        deletedItems += other.deletedItems; probes += other.probes; staleSaves += other.staleSaves; restoredItems += other.restoredItems
    }
}

struct SimulationOutcome: Sendable {
    let schedule: Schedule
    var stats = SimulationStats()
    var failures: [String] = []
}

final class SimulationResults: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var _stats = SimulationStats()
    private var _failures: [SimulationOutcome] = []

    func add(_ outcome: SimulationOutcome) {
        lock.lock(); defer { lock.unlock() }
        _stats.add(outcome.stats)
        if !outcome.failures.isEmpty { _failures.append(outcome) }
    }

    var stats: SimulationStats { lock.lock(); defer { lock.unlock() }; return _stats }
    var failures: [SimulationOutcome] { lock.lock(); defer { lock.unlock() }; return _failures }
}

/// Runs one schedule on real vault files in a temporary folder.
final class SimulationRun {
    let schedule: Schedule
    let root: URL
    let openingKey: VaultCredential
    var vaults: [Vault] = []
    /// The second app's vault on a replica's file, for replicas whose schedule uses one.
    var secondApps: [Int: Vault] = [:]
    var paths: [String] = []
    var ids: [Int: ItemID] = [:]
    var slotCredentials: [Int: VaultCredential] = [:]
    var slotIdentities: [Int: [UInt8]] = [:]
    var model: CausalModel
    var outcome: SimulationOutcome

    static let fileName = "vault.coffer"
    /// Where schedules keep their files: a memory file system when there is one (the
    /// simulation writes thousands of small files; what a disk adds is only time).
    static let scratch: URL = {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           FileManager.default.isWritableFile(atPath: "/dev/shm") {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        return FileManager.default.temporaryDirectory
    }()
    /// The cheapest Argon2id the format allows: password slots cost nothing to add.
    static let cheapKDF = Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1)

    /// Backups are kept: restores put them back.
    static func options(_ state: ReplicaStateLocation) -> VaultOptions {
        VaultOptions(kdf: cheapKDF, keepsBackup: true, lockTimeout: .seconds(5), replicaState: state)
    }

    private init(schedule: Schedule, root: URL) throws {
        self.schedule = schedule
        self.root = root
        model = CausalModel(replicas: schedule.replicas)
        outcome = SimulationOutcome(schedule: schedule)
        openingKey = .rawKey(try Self.rawKey(seed: schedule.seed, slot: 0))
        slotCredentials[0] = openingKey
    }

    static func rawKey(seed: UInt64, slot: Int) throws -> SecureBytes {
        try SecureBytes(copying: (0..<32).map { UInt8(truncatingIfNeeded: seed &* 131 &+ UInt64(slot) &* 31 &+ UInt64($0) &* 7) })
    }

    static func run(_ schedule: Schedule) -> SimulationOutcome {
        do {
            let root = scratch.appendingPathComponent("coffer-simulation-\(schedule.seed)-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: root) }
            let run = try SimulationRun(schedule: schedule, root: root)
            run.execute()
            return run.outcome
        } catch {
            var outcome = SimulationOutcome(schedule: schedule)
            outcome.failures.append("seed \(schedule.seed): the temporary folder failed: \(error)")
            return outcome
        }
    }

    func fail(_ message: String) {
        outcome.failures.append("seed \(schedule.seed): \(message)")
    }

    private func execute() {
        do {
            try setUp()
        } catch {
            fail("setup threw \(error)")
            return
        }
        for step in schedule.steps {
            guard model.canRun(step) else { continue }
            if let r = step.op.replica, model.isStale(r, step.handle) { outcome.stats.staleSaves += 1 }
            // What the replica's backup is after the step, the disk says: the file as it was
            // before, if the step replaced it and left a backup.
            let replica = step.op.replica
            let fileBefore = replica.map { FileVersion(of: paths[$0]) }, modelBefore = replica.map { model.files[$0] }
            let backupBefore = replica.map { model.backups[$0] }
            do {
                try perform(step)
            } catch is SkippedStep {
                continue
            } catch {
                fail("step s\(step.index) (\(step.description.trimmingCharacters(in: .whitespaces))) threw \(error)")
                return
            }
            if let r = replica, let fileBefore, let modelBefore, let backupBefore {
                if FileVersion(of: paths[r]) == fileBefore {
                    model.backups[r] = backupBefore
                } else if let backup = FileManager.default.contents(atPath: paths[r] + ".bak") {
                    // A save that changed the key slots leaves the new version as the backup.
                    model.backups[r] = backup == FileManager.default.contents(atPath: paths[r]) ? model.files[r] : modelBefore
                } else {
                    model.backups[r] = nil
                }
            }
            if step.handle == Step.stateless { outcome.stats.statelessSteps += 1 }
            if Schedule.hasRotations([step]) { outcome.stats.rotations += 1 }
            if step.op.isRestore { outcome.stats.restores += 1 }
            outcome.stats.steps += 1
        }
        do {
            try verify()
        } catch {
            fail("the final check threw \(error)")
        }
    }

    /// One vault with the raw-key slot, copied to one folder per replica, each opened with
    /// its own replica state (its own device).
    private func setUp() throws {
        let origin = root.appendingPathComponent("origin", isDirectory: true)
        try FileManager.default.createDirectory(at: origin, withIntermediateDirectories: true)
        let originPath = origin.appendingPathComponent(Self.fileName).path
        let originVault = try Vault.create(at: originPath, credential: openingKey, options: Self.options(.none))
        for step in schedule.initial where model.canRun(step) {
            guard case .add(_, let item, let shape, let extras) = step.op else { continue }
            ids[item] = try add(to: originVault, step: step.index, replica: -1, shape: shape, extras: extras)
            model.apply(step, slotPassword: nil)
        }
        slotIdentities[0] = try Self.header(originPath).slots.first?.identity
        for replica in 0..<schedule.replicas {
            let folder = root.appendingPathComponent("r\(replica)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent(Self.fileName).path
            try FileManager.default.copyItem(atPath: originPath, toPath: path)
            let state = root.appendingPathComponent("state-r\(replica)").path
            vaults.append(try Vault.open(at: path, credential: openingKey, options: Self.options(.directory(state))))
            if schedule.steps.contains(where: { $0.handle == 1 && $0.op.replica == replica }) {
                secondApps[replica] = try Vault.open(at: path, credential: openingKey, options: Self.options(.directory(state)))
            }
            paths.append(path)
        }
    }

    static func header(_ path: String) throws -> VaultHeaderV2 {
        try VaultFileV2.parse(try VaultFileStore(path: path).read().bytes).header
    }

    private func secure(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

    private func perform(_ step: Step) throws {
        let s = step.index
        // The replica's vault that acts: its first app's, the second app's on the same file, or
        // a process's without device state (a fresh replica id), opened for this step alone.
        let app: Vault = try step.op.replica.map { r in
            switch step.handle {
            case 0: return vaults[r]
            case Step.stateless: return try Vault.open(at: paths[r], credential: openingKey, options: Self.options(.none))
            default: return secondApps[r]!
            }
        } ?? vaults[0]
        func value(_ r: Int, _ field: SimField, _ name: String?) -> String {
            Schedule.value(step: s, replica: r, field: field, name: name)
        }
        switch step.op {
        case .add(let r, let item, let shape, let extras):
            ids[item] = try add(to: app, step: s, replica: r, shape: shape, extras: extras)

        case .edit(let r, let item, let field, let name, let removal, let flag, let wholeSecrets):
            guard let id = ids[item] else { throw SimulationError("item\(item) has no id") }
            let v = value(r, field, name)
            var changed = true
            if wholeSecrets {
                var secrets = try app.secrets(for: id)
                secrets.password = try secure(v)
                try app.update(id, secrets: secrets)
            } else {
                let newValue: SecureBytes? = field.isSecretPart && !removal ? try secure(v) : nil
                try app.update(id) { attributes, secrets in
                    let before = Self.fieldValue(field, attributes, secrets)
                    defer { changed = Self.fieldValue(field, attributes, secrets) != before }
                    switch field {
                    case .label: attributes.label = v
                    case .account: attributes.account = v
                    case .service: attributes.service = v
                    case .server: attributes.server = v
                    case .comment: attributes.comment = removal ? nil : v
                    case .urls:
                        if removal { attributes.urls = [] } else { attributes.urls.append(v); if attributes.urls.count > 3 { attributes.urls.removeFirst() } }
                    case .tags:
                        if removal { attributes.tags = [] } else { attributes.tags.append(v); if attributes.tags.count > 3 { attributes.tags.removeFirst() } }
                    case .favorite: attributes.isFavorite = flag
                    case .fields:
                        attributes.fields.removeAll { $0.name == name }
                        if !removal { attributes.fields.append(CustomField(name: name!, value: v)) }
                    case .password: secrets.password = newValue
                    case .notes: secrets.notes = newValue
                    case .secretFields:
                        secrets.fields.removeAll { $0.name == name }
                        if let newValue { secrets.fields.append(SecretField(name: name!, value: newValue)) }
                    case .attachments:
                        secrets.attachments.removeAll { $0.name == name }
                        if let newValue { secrets.attachments.append(Attachment(name: name!, data: newValue)) }
                    }
                }
            }
            model.apply(step, slotPassword: nil, noop: !changed)
            return

        case .delete(_, let item):
            guard let id = ids[item] else { throw SimulationError("item\(item) has no id") }
            try app.delete(id)

        case .resolve(_, let item):
            guard let id = ids[item] else { throw SimulationError("item\(item) has no id") }
            try app.resolveConflicts(for: id)

        case .addSlot(let r, let slot, let password):
            let credential: VaultCredential = password ? .password(try secure("slot-\(slot)")) : .rawKey(try Self.rawKey(seed: schedule.seed, slot: slot))
            let before = try Self.header(paths[r]).slots.map(\.identity)
            try app.addKeySlot(credential)
            let added = try Self.header(paths[r]).slots.map(\.identity).filter { !before.contains($0) }
            guard added.count == 1 else { throw SimulationError("adding slot\(slot) added \(added.count) slots") }
            slotCredentials[slot] = credential
            slotIdentities[slot] = added[0]
            model.apply(step, slotPassword: password, slots: try slotChange(r, before: before, new: slot))
            return

        case .removeSlot(let r, let slot):
            guard let credential = slotCredentials[slot] else { throw SimulationError("slot\(slot) unknown") }
            // Across rotations the model may know of a slot this replica's file never took in
            // (an older copy's, SPEC.md §17.8): nothing to remove then.
            guard try app.currentSnapshot.header.slots.contains(where: { $0.identity == slotIdentities[slot] }) else { throw SkippedStep() }
            let before = try Self.header(paths[r]).slots.map(\.identity)
            try app.removeKeySlot(credential, rotatingKey: Schedule.rotates(s))
            model.apply(step, slotPassword: nil, slots: try slotChange(r, before: before, new: nil))
            return

        case .changeVaultPassword(let r, let slot):
            let password = try secure("slot-\(slot)")
            let before = try Self.header(paths[r]).slots.map(\.identity)
            try app.changePassword(to: password, rotatingKey: Schedule.rotates(s))
            let added = try Self.header(paths[r]).slots.map(\.identity).filter { !before.contains($0) }
            guard added.count == 1 else { throw SimulationError("changing the password to slot\(slot) added \(added.count) slots") }
            slotCredentials[slot] = .password(password)
            slotIdentities[slot] = added[0]
            model.apply(step, slotPassword: true, slots: try slotChange(r, before: before, new: slot))
            return

        case .requireKeyFile(let r, let slot):
            // One of the passwords this vault's header has.
            let header = app.currentSnapshot.header
            guard let number = slotIdentities.keys.sorted().first(where: { number in
                model.slotIsPassword[number] == true && header.slots.contains { $0.identity == slotIdentities[number] && $0.kind == .password }
            }), case .password(let password)? = slotCredentials[number] else { throw SkippedStep() }
            let keyFile = try KeyFile(contents: try Self.rawKey(seed: schedule.seed &+ 1, slot: slot))
            let before = try Self.header(paths[r]).slots.map(\.identity)
            try app.requireKeyFile(keyFile, password: password, rotatingKey: Schedule.rotates(s))
            let added = try Self.header(paths[r]).slots.map(\.identity).filter { !before.contains($0) }
            guard added.count == 1 else { throw SimulationError("requiring a key file (slot\(slot)) added \(added.count) slots") }
            slotCredentials[slot] = .passwordAndKeyFile(password, keyFile)
            slotIdentities[slot] = added[0]
            model.apply(step, slotPassword: false, slots: try slotChange(r, before: before, new: slot))
            return

        case .rotate:
            try app.rotateKey()

        case .keepCopy(let r):
            let copy = keptPath(r)
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: paths[r], toPath: copy)

        case .mergeKept(let into, let from):
            let report = try mergeConflictCopy(app, into: into, source: keptPath(from), step: s)
            outcome.stats.merges += 1
            outcome.stats.conflictedItems += report.conflicted.count

        case .merge(let into, let from, let conflictCopy, let twice):
            var report: MergeReport
            if conflictCopy {
                report = try mergeConflictCopy(app, into: into, source: paths[from], step: s)
            } else {
                report = try merged(app, paths[from])
            }
            outcome.stats.merges += 1
            outcome.stats.conflictedItems += report.conflicted.count
            if twice {
                let again = try app.merge(contentsOf: paths[from])
                outcome.stats.merges += 1
                if !again.isEmpty { fail("s\(s): merging r\(from) into r\(into) a second time changed something: \(again)") }
            }

        case .probe(let a, let b):
            try probe(a, b, step: s)
            outcome.stats.probes += 1

        case .restore:
            try app.restoreBackup()

        case .refresh:
            try app.refresh()
        }
        model.apply(step, slotPassword: nil)
    }

    /// The slots (by the simulation's numbers) replica `r`'s file gained and lost since
    /// `before` (its slot identities), `new` being the number of the slot the step made.
    private func slotChange(_ r: Int, before: [[UInt8]], new: Int?) throws -> (added: [Int], removed: [Int]) {
        let after = try Self.header(paths[r]).slots.map(\.identity)
        func number(_ identity: [UInt8]) -> Int? { slotIdentities.first { $0.value == identity }?.key }
        let added = after.filter { !before.contains($0) }.compactMap(number)
        let removed = before.filter { !after.contains($0) }.compactMap(number)
        return (added + (new.map { [$0] } ?? []), removed)
    }

    /// A field's whole value (the whole list for a list), to tell whether an edit changed it.
    static func fieldValue(_ field: SimField, _ a: ItemAttributes, _ s: ItemSecrets) -> String {
        switch field {
        case .label: return a.label ?? "\u{0}"
        case .service: return a.service ?? "\u{0}"
        case .server: return a.server ?? "\u{0}"
        case .account: return a.account ?? "\u{0}"
        case .comment: return a.comment ?? "\u{0}"
        case .urls: return "\(a.urls)"
        case .tags: return "\(a.tags)"
        case .favorite: return "\(a.isFavorite)"
        case .fields: return "\(a.fields)"
        case .password: return s.password?.testString ?? "\u{0}"
        case .notes: return s.notes?.testString ?? "\u{0}"
        case .secretFields: return "\(s.fields.map { [$0.name, $0.value.testString ?? ""] })"
        case .attachments: return "\(s.attachments.map { [$0.name, $0.data.testString ?? ""] })"
        }
    }

    private func add(to vault: Vault, step: Int, replica r: Int, shape: ItemShape, extras: [SimField]) throws -> ItemID {
        func value(_ field: SimField, _ name: String?) -> String { Schedule.value(step: step, replica: r, field: field, name: name) }
        var attributes: ItemAttributes
        switch shape {
        case .generic: attributes = .genericPassword(service: value(.service, nil), account: value(.account, nil))
        case .internet: attributes = .internetPassword(server: value(.server, nil), account: value(.account, nil), protocol: "https")
        case .note: attributes = .secureNote(title: value(.label, nil))
        }
        var secrets = ItemSecrets()
        for (field, name) in ItemShape.fields(shape, extras: extras) {
            let v = value(field, name)
            switch field {
            case .label: attributes.label = v
            case .comment: attributes.comment = v
            case .urls: attributes.urls = [v]
            case .tags: attributes.tags = [v]
            case .favorite: attributes.isFavorite = true
            case .fields: attributes.fields = [CustomField(name: name!, value: v)]
            case .password: secrets.password = try secure(v)
            case .notes: secrets.notes = try secure(v)
            case .secretFields: secrets.fields = [SecretField(name: name!, value: try secure(v))]
            case .attachments: secrets.attachments = [Attachment(name: name!, data: try secure(v))]
            case .service, .server, .account: break
            }
        }
        return try vault.add(attributes, secrets: secrets).id
    }

    /// `app` merges the file at `path`; edits held (a copy under an earlier key, SPEC.md
    /// §17.8) are counted, then accepted at once by the same merge with `acceptEarlierKey`.
    private func merged(_ app: Vault, _ path: String) throws -> MergeReport {
        let report = try app.merge(contentsOf: path)
        if report.earlierKey.epoch != .same { outcome.stats.crossEpochMerges += 1 }
        guard !report.earlierKey.held.isEmpty else { return report }
        outcome.stats.heldItems += report.earlierKey.held.count
        let accepted = try app.merge(contentsOf: path, options: MergeOptions(acceptEarlierKey: true))
        if accepted.earlierKey.accepted != report.earlierKey.held.count {
            fail("merging \(path) held \(report.earlierKey.held.count) items, and accepting took \(accepted.earlierKey.accepted)")
        }
        return accepted
    }

    private func keptPath(_ replica: Int) -> String { root.appendingPathComponent("kept-r\(replica).coffer").path }

    /// Puts a copy of `source` beside `into`'s file under a Syncthing conflict-copy name,
    /// merges what `conflictCopies()` finds there, and removes it.
    private func mergeConflictCopy(_ app: Vault, into: Int, source: String, step s: Int) throws -> MergeReport {
        let folder = URL(fileURLWithPath: paths[into]).deletingLastPathComponent()
        let name = String(format: "vault.sync-conflict-202603%02d-%02d%02d%02d-ABCDEF2.coffer", 1 + s % 28, s % 24, s % 60, (s * 7) % 60)
        let copy = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        let found = try VaultFileStore(path: paths[into]).conflictCopies()
        guard found.map(\.path) == [copy] else {
            throw SimulationError("conflictCopies() found \(found.map(\.path)) instead of \(copy)")
        }
        var report = MergeReport()
        for conflict in found {
            report = try merged(app, conflict.path)
            try FileManager.default.removeItem(atPath: conflict.path)
        }
        outcome.stats.conflictCopies += 1
        return report
    }

    /// Commutativity and idempotence on copies of two replicas' files.
    private func probe(_ a: Int, _ b: Int, step: Int) throws {
        let folder = root.appendingPathComponent("probe-s\(step)", isDirectory: true)
        var copies: [Vault] = []
        var copyPaths: [String] = []
        for (index, source) in [(0, a), (1, b)] {
            let dir = folder.appendingPathComponent("c\(index)", isDirectory: true)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let path = dir.appendingPathComponent(Self.fileName).path
            try FileManager.default.copyItem(atPath: paths[source], toPath: path)
            copies.append(try Vault.open(at: path, credential: openingKey, options: Self.options(.none)))
            copyPaths.append(path)
        }
        // A into B and B into A, each from the other's untouched file (held edits accepted:
        // the owner's own copies). Across a rotation the header is not symmetric (an older
        // copy's slots and clock do not enter, SPEC.md §17.8): the items are compared.
        let accept = MergeOptions(acceptEarlierKey: true)
        let sameEpoch = try Self.header(paths[a]).epochID == Self.header(paths[b]).epochID
        let ab = try copies[0].merge(contentsOf: paths[b], options: accept)
        let ba = try copies[1].merge(contentsOf: paths[a], options: accept)
        outcome.stats.merges += 2
        func contents(_ lines: [String]) -> [String] {
            sameEpoch ? lines : lines.filter { !$0.hasPrefix("slots ") && !$0.hasPrefix("removed slots ") && !$0.hasPrefix("vault clock ") }
        }
        let left = contents(try describe(copies[0], path: copyPaths[0])), right = contents(try describe(copies[1], path: copyPaths[1]))
        if left != right {
            fail("s\(step): merging r\(b) into r\(a) and r\(a) into r\(b) differ (not commutative):\n" + difference(left, right, "r\(a)+r\(b)", "r\(b)+r\(a)"))
        }
        // Again: nothing changes, in the report or in the contents.
        let again = try copies[0].merge(contentsOf: paths[b], options: accept)
        outcome.stats.merges += 1
        if !again.isEmpty { fail("s\(step): merging r\(b) into r\(a)+r\(b) again changed something: \(again) (first: \(ab), other way: \(ba))") }
        let after = contents(try describe(copies[0], path: copyPaths[0]))
        if after != left { fail("s\(step): a second merge changed the contents:\n" + difference(left, after, "once", "twice")) }
        copies.removeAll()
        try? FileManager.default.removeItem(at: folder)
    }

    // MARK: Checking

    private func verify() throws {
        // Convergence: every replica as replica 0. A replica whose header and records are
        // replica 0's, byte for byte, holds the same contents; others (and every replica of
        // one schedule in 16) are decrypted and compared value by value.
        let reference = try describe(vaults[0], path: paths[0])
        let quick = try Self.records(paths[0])
        for replica in 1..<schedule.replicas {
            if schedule.seed % 16 != 0, try Self.records(paths[replica]) == quick { continue }
            let other = try describe(vaults[replica], path: paths[replica])
            if other != reference {
                fail("after the final round r\(replica) differs from r0:\n" + difference(reference, other, "r0", "r\(replica)"))
            }
        }

        let vault = vaults[0]
        let snapshot = try Self.snapshot(paths[0], credential: openingKey)
        // After the final round replica 0's file has seen every write some file still held:
        // a write only a restored-away version held (or only an app's snapshot, or a copy the
        // sync service kept) is gone by the user's choice, and is not judged.
        let all = model.files[0].seen
        if model.files.contains(where: { !$0.seen.isSubset(of: all) }) { fail("the model's final round left writes a file holds unseen by r0") }
        outcome.stats.lostToRestores += model.writes.count - all.count

        // Key slots: those added and not removed, as the model unions them.
        let expectedSlots = Set(model.files[0].visibleSlots.compactMap { slotIdentities[$0] }.map(Hex.encode))
        let actualSlots = Set(snapshot.header.slots.map { Self.hex($0.identity) })
        if expectedSlots != actualSlots {
            fail("key slots on r0: expected \(model.files[0].visibleSlots.sorted()) (\(expectedSlots.sorted())), found \(actualSlots.sorted())")
        }

        for item in model.addedBy.keys.sorted() {
            guard let id = ids[item] else { fail("item\(item) was never given an id"); continue }
            let expectLive = model.isLive(item, view: all)
            let isLive = snapshot.entries[id] != nil, isTombstone = snapshot.tombstones[id] != nil
            guard let added = model.addedBy[item], all.contains(added) else {
                // Added in a version a restore took back, and held by no file now.
                if isLive || isTombstone { fail("item\(item), whose addition no file held, is in r0") }
                continue
            }
            let writes = (model.writesByItem[item] ?? []).filter { all.contains($0) }.map { model.writes[$0] }
            guard isLive || isTombstone else { fail("item\(item) is missing from r0 (neither live nor a tombstone)"); continue }
            if isTombstone {
                outcome.stats.deletedItems += 1
                if expectLive {
                    let unseen = writes.filter { w in !w.isDelete && !writes.contains { $0.isDelete && $0.seen.contains(w.id) } }
                    fail("item\(item) is deleted, but no deletion had seen \(unseen.map(describe).joined(separator: "; ")): edits lost to a deletion")
                }
                continue
            }
            if !expectLive { fail("item\(item) is live, but every write to it was seen by a deletion: the deletion was lost") }
            if writes.contains(where: \.isDelete) { outcome.stats.restoredItems += 1 }

            let attributes = try vault.item(id).attributes
            let secrets = try vault.secrets(for: id)
            let conflicts = try vault.conflicts(for: id)
            outcome.stats.conflictRecords += conflicts.count
            // A losing password shows in the history too.
            for conflict in conflicts where conflict.field == "password" {
                guard let lost = conflict.secrets?.password?.testString else { continue }
                if !secrets.passwordHistory.contains(where: { $0.password.testString == lost }) {
                    fail("item\(item): the losing password \(lost) is not in the password history")
                }
            }
            for write in writes where write.field != nil && !write.isNoop {
                outcome.stats.writes += 1
                if holds(write, attributes: attributes, secrets: secrets, conflicts: conflicts) { continue }
                // A later write of the field that had seen it, or a resolution of the item's
                // conflicts that had seen it lose (losing passwords stay in the history).
                let superseded = writes.contains {
                    $0.id != write.id && $0.seen.contains(write.id) && !$0.isNoop && $0.field != nil && $0.field == write.field
                } || writes.contains { model.resolves($0, write) }
                if superseded { continue }
                // Erased (SPEC.md §17.5): every version that had the value as current (the
                // write's, and each later edit's that had seen it, no write replacing it, and
                // held it not erased) was seen by a deletion the item has seen. An edit the
                // deletion had not seen brought the item back as its device had it: without it.
                if isErased(write, in: writes, view: all) { continue }
                let seenByDeletion = writes.contains { $0.isDelete && $0.seen.contains(write.id) }
                fail("item\(item): lost edit \(describe(write))"
                     + (seenByDeletion ? " (a deletion had seen it, and an edit the deletion had not seen had it too)" : "")
                     + "\n    now: \(Self.describe(attributes)) | \(Self.describe(secrets))\n    conflicts: \(conflicts.map(Self.describe))")
            }
        }
    }

    /// Whether `write`'s value is erased in a state that has seen `view`: the deletions in
    /// `view` had seen every edit in `view` that held the value as current (SPEC.md §17.5).
    private func isErased(_ write: SimWrite, in writes: [SimWrite], view: Set<Int>) -> Bool {
        let deletions = writes.filter { $0.isDelete && view.contains($0.id) }
        guard !deletions.isEmpty else { return false }
        for edit in writes where view.contains(edit.id) && !edit.isDelete && !edit.isNoop {
            let holds: Bool
            if edit.id == write.id {
                holds = true
            } else if edit.seen.contains(write.id) {
                // Not replaced by a write the edit had seen (or is), and not erased when it was made.
                let replaced = writes.contains { other in
                    other.id != write.id && (other.id == edit.id || edit.seen.contains(other.id)) && other.seen.contains(write.id)
                        && !other.isNoop && ((other.field != nil && other.field == write.field) || model.resolves(other, write))
                }
                holds = !replaced && !isErased(write, in: writes, view: edit.seen)
            } else {
                holds = false
            }
            if holds && !deletions.contains(where: { $0.seen.contains(edit.id) }) { return false }
        }
        return true
    }

    private func describe(_ write: SimWrite) -> String {
        let what = write.field.map { "\($0.rawValue)\(write.name.map { "[" + $0 + "]" } ?? "") = \(write.value ?? "(removed)")" } ?? (write.isResolution ? "resolve conflicts" : "delete")
        return "\(what) by r\(write.replica) at s\(write.step)"
    }

    /// Whether `write`'s value is still in the item: current, in the password history, or in
    /// a conflict record. Favourites and removals carry no unique value and are checked for
    /// their effect only.
    private func holds(_ write: SimWrite, attributes: ItemAttributes, secrets: ItemSecrets, conflicts: [ItemConflict]) -> Bool {
        guard let field = write.field else { return false }
        let related = conflicts.filter { $0.field.hasPrefix(field.conflictField) }
        if field == .favorite {
            let flag = write.value == "true"
            return attributes.isFavorite == flag || related.contains { ($0.attributes?.isFavorite ?? false) == flag }
        }
        guard let value = write.value else {
            // A removal: the value is gone now, or the removal lost and is kept as such.
            let name = write.name
            func lacks(_ a: ItemAttributes?, _ s: ItemSecrets?) -> Bool {
                switch field {
                case .comment: return a?.comment == nil
                case .urls: return a?.urls.isEmpty ?? true
                case .tags: return a?.tags.isEmpty ?? true
                case .fields: return !(a?.fields.contains { $0.name == name } ?? false)
                case .notes: return s?.notes == nil
                case .secretFields: return !(s?.fields.contains { $0.name == name } ?? false)
                case .attachments: return !(s?.attachments.contains { $0.name == name } ?? false)
                default: return false
                }
            }
            return lacks(attributes, secrets) || related.contains { $0.isRemoval || lacks($0.attributes, $0.secrets) }
        }
        func has(_ a: ItemAttributes?, _ s: ItemSecrets?) -> Bool {
            switch field {
            case .label: return a?.label == value
            case .service: return a?.service == value
            case .server: return a?.server == value
            case .account: return a?.account == value
            case .comment: return a?.comment == value
            case .urls: return a?.urls.contains(value) ?? false
            case .tags: return a?.tags.contains(value) ?? false
            case .fields: return a?.fields.contains { $0.value == value } ?? false
            case .password:
                return s?.password?.testString == value || (s?.passwordHistory.contains { $0.password.testString == value } ?? false)
            case .notes: return s?.notes?.testString == value
            case .secretFields: return s?.fields.contains { $0.value.testString == value } ?? false
            case .attachments: return s?.attachments.contains { $0.data.testString == value } ?? false
            case .favorite: return false
            }
        }
        // Values are unique: found in any conflict record, whatever it names its field.
        return has(attributes, secrets) || conflicts.contains { has($0.attributes, $0.secrets) }
    }

    /// A file's key slots, removed slots, vault clock and records (id and digest), undecrypted.
    static func records(_ path: String) throws -> [String] {
        let file = try VaultFileV2.parse(try VaultFileStore(path: path).read().bytes)
        return ["slots \(file.header.slots.map { Self.hex($0.identity) }.sorted())",
                "removed \(Set(file.header.removedSlots.map { Self.hex($0.identity) }).sorted())",
                "clock \(describe(file.header.clock))"]
            + file.records.map { "\($0.id.hex) \(Self.hex($0.identity.bytes))" }.sorted()
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func snapshot(_ path: String, credential: VaultCredential) throws -> VaultSnapshot {
        let file = try VaultFileStore(path: path).read()
        let codec = try VaultFileV2.parse(file.bytes)
        let keys = try codec.unlock(with: credential).keys
        try codec.authenticate(keys: keys)
        return try VaultSnapshot(codec: codec, keys: keys, identity: file.identity)
    }

    /// A replica's decrypted contents, one line per fact, in a fixed order: equal lines mean
    /// equal contents (the bytes differ by nonces).
    func describe(_ vault: Vault, path: String) throws -> [String] {
        let snapshot = try Self.snapshot(path, credential: openingKey)
        var lines: [String] = []
        lines.append("slots \(snapshot.header.slots.map { Self.hex($0.identity) }.sorted())")
        lines.append("removed slots \(Set(snapshot.header.removedSlots.map { Self.hex($0.identity) }).sorted())")
        lines.append("vault clock \(Self.describe(snapshot.header.clock))")
        let items = try vault.items()
        if Set(items.map(\.id)) != Set(snapshot.entries.keys) { lines.append("listing \(items.map(\.id.hex).sorted()) differs from the file") }
        for item in items.sorted(by: { $0.id.hex < $1.id.hex }) {
            lines.append("item \(item.id.hex): \(Self.describe(item.attributes))")
            lines.append("  secrets \(Self.describe(try vault.secrets(for: item.id)))")
            for conflict in try vault.conflicts(for: item.id).map(Self.describe).sorted() { lines.append("  conflict \(conflict)") }
            if let entry = snapshot.entries[item.id], let clock = try ItemClockCodec.decode(overview: entry.overview) {
                lines.append("  clock \(Self.describe(clock))")
            }
        }
        for (id, entry) in snapshot.tombstones.sorted(by: { $0.key.hex < $1.key.hex }) {
            let clock = try ItemClockCodec.decode(overview: entry.overview)
            lines.append("tombstone \(id.hex): clock \(clock.map(Self.describe) ?? "none")")
        }
        return lines
    }

    static func describe(_ a: ItemAttributes) -> String {
        "\(a.kind) label=\(a.label ?? "-") service=\(a.service ?? "-") account=\(a.account ?? "-") server=\(a.server ?? "-") "
            + "protocol=\(a.protocol ?? "-") port=\(a.port.map(String.init) ?? "-") path=\(a.path ?? "-") comment=\(a.comment ?? "-") "
            + "urls=\(a.urls) tags=\(a.tags) favorite=\(a.isFavorite) fields=\(a.fields.map { "\($0.name)=\($0.value)" }) "
            + "created=\(a.created.millisecondsSince1970) modified=\(a.modified.millisecondsSince1970) preserved=\(a.preservedFields.count)"
    }

    static func describe(_ s: ItemSecrets) -> String {
        let history = Set(s.passwordHistory.map { "\($0.password.testString ?? "?")@\($0.replaced.millisecondsSince1970)" }).sorted()
        return "password=\(s.password?.testString ?? "-") notes=\(s.notes?.testString ?? "-") "
            + "fields=\(s.fields.map { "\($0.name)=\($0.value.testString ?? "?")" }) "
            + "attachments=\(s.attachments.map { "\($0.name)=\($0.data.testString ?? "?")" }) history=\(history) preserved=\(s.preservedFields.count)"
    }

    static func describe(_ c: ItemConflict) -> String {
        "\(c.field) @\(c.date.millisecondsSince1970)\(c.isRemoval ? " removal" : "") "
            + (c.attributes.map(describe) ?? "") + (c.secrets.map(describe) ?? "")
    }

    static func describe(_ v: VersionVector) -> String {
        v.sorted.map { "\(String($0.replica, radix: 16)):\($0.time)" }.joined(separator: ",")
    }

    static func describe(_ c: ItemClock) -> String {
        let stamps = c.stamps.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        let siblings = c.siblings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value.sorted())" }.joined(separator: ",")
        return "versions[\(describe(c.versions))] stamps[\(stamps)] siblings[\(siblings)] deleted[\(c.deleted.map(describe) ?? "none")]"
    }

    func difference(_ a: [String], _ b: [String], _ nameA: String, _ nameB: String) -> String {
        let onlyA = a.filter { !b.contains($0) }, onlyB = b.filter { !a.contains($0) }
        return (onlyA.prefix(8).map { "    \(nameA) only: \($0)" } + onlyB.prefix(8).map { "    \(nameB) only: \($0)" }).joined(separator: "\n")
    }
}

extension SimField {
    var isSecretPart: Bool {
        switch self {
        case .password, .notes, .secretFields, .attachments: return true
        default: return false
        }
    }
}

/// A step the files cannot take although the model allows it (a slot an older copy had, which
/// this replica never took in, SPEC.md §17.8): not run, not recorded.
struct SkippedStep: Error {}

struct SimulationError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

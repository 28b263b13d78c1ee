import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Property tests of the merge rules of SPEC.md §17.5 on their own: ``ItemMerge``'s pure
/// functions over item states, with no key, no record and no file.
///
/// Each trace is seeded: three replicas of one item (new, or written before clocks on one
/// or two devices) edit random fields (some edits remove a value, some are made on an older
/// version than the replica now holds, as a transaction replayed after another writer
/// saved), delete the item, resolve conflicts and merge with each other, for 6 to 16 steps.
/// Every state reached is encoded and read back as a record would be. On those states the
/// laws are checked:
///
/// - the join is commutative, associative and idempotent (and absorbs what it joined): the
///   states compared encode to the same overview and secret lists, byte for byte;
/// - the newest value wins: a register's value has the largest stamp of its values;
/// - nothing is lost: every write a state has seen that no write of the same register which
///   saw it replaced (a resolution counts, for the losing values it reviewed) is the
///   register's value or one of its conflicts, with the bytes written; every password ever
///   written is the value, a conflict or in the password history; nothing else is a value
///   or a conflict;
/// - an edit, a resolution or a deletion has seen more than the version it changed;
/// - a deletion holds exactly: a state is deleted when the deletions it has seen had seen
///   every edit it has seen, and its deletion vector is theirs;
/// - erasure is exact (format 2): a value is erased exactly when the deletions a state has
///   seen had seen every edit (or addition) it has seen that held the value, and a password
///   may be gone only when they had seen every such edit that held it (as a value or in
///   the history): a concurrent edit brings the item back as its device had it.
///
/// `COFFER_MERGE_LAW_TRACES=<n>` runs more traces; `COFFER_MERGE_LAW_SEED=<seed>` runs one
/// and prints its steps; `COFFER_MERGE_LAW_BASE_SEED=<n>` starts the seeds elsewhere.
/// `VaultReplicaSimulationTests` stays the end-to-end check of the same rules through vault files.
@Suite("Vault: merge laws")
struct VaultMergeLawTests {
    static let defaultTraces = 600
    static let baseSeed: UInt64 = 0x4D45_5247_0000

    @Test("The join is commutative, associative and idempotent, loses no write, and deletions hold exactly")
    func laws() throws {
        let environment = ProcessInfo.processInfo.environment
        let seeds: [UInt64]
        let verbose: Bool
        if let text = environment["COFFER_MERGE_LAW_SEED"], let seed = UInt64(text) {
            seeds = [seed]
            verbose = true
        } else {
            verbose = false
            let count = environment["COFFER_MERGE_LAW_TRACES"].flatMap { Int($0) } ?? Self.defaultTraces
            let base = environment["COFFER_MERGE_LAW_BASE_SEED"].flatMap { UInt64($0) } ?? Self.baseSeed
            seeds = (0..<UInt64(max(1, count))).map { base &+ $0 }
        }
        let started = Date()
        var totals = MergeTrace.Counts()
        var failed: [(seed: UInt64, failures: [String], steps: [String])] = []
        for seed in seeds {
            var trace = MergeTrace(seed: seed)
            do {
                try trace.run()
            } catch {
                trace.failures.append("threw \(error)")
            }
            totals.add(trace.counts)
            if verbose { print("seed \(seed):\n  " + trace.steps.joined(separator: "\n  ")) }
            if !trace.failures.isEmpty { failed.append((seed, trace.failures, trace.steps)) }
        }
        let elapsed = Date().timeIntervalSince(started)
        print("Merge laws: \(seeds.count) traces (seeds \(seeds.first!)...\(seeds.last!)), \(totals.steps) steps, "
              + "\(totals.states) states, \(totals.joins) joins (\(totals.concurrentJoins) of concurrent states), "
              + "\(totals.commutative) commutativity, \(totals.associative) associativity, \(totals.idempotent) idempotence cases, "
              + "\(totals.writesChecked) writes checked, \(totals.deleted) deleted states, \(String(format: "%.2f", elapsed)) s")
        guard let first = failed.first else { return }
        var message = "\(failed.count) of \(seeds.count) traces broke a law (seeds \(failed.prefix(20).map { String($0.seed) }.joined(separator: ", "))).\n"
        message += "First: seed \(first.seed) (replay: COFFER_MERGE_LAW_SEED=\(first.seed)):\n"
        message += first.failures.prefix(5).joined(separator: "\n") + "\nSteps:\n  " + first.steps.joined(separator: "\n  ")
        Issue.record(Comment(rawValue: message))
    }

    /// Issue 27, finding 12: with one device's clock a day ahead, an edit on another device
    /// set `modified` earlier than the version it edits had. §17.5 step 2 kept a dominating
    /// record's date as it was while step 3 took the larger one, so the date depended on the
    /// order of merges. An edit now never moves `modified` back (nor `created` forward), so
    /// both dates are functions of the edits a version has seen: every law holds, dates too.
    @Test("With a clock a day ahead, every law holds, `modified` and `created` included")
    func skewedClocks() throws {
        var failures: [String] = []
        for seed in 0..<UInt64(100) {
            var trace = MergeTrace(seed: Self.baseSeed &+ 1_000_000 &+ seed, skew: [0, 86_400_000, 0], triples: 20)
            try trace.run()
            failures += trace.failures.map { "seed \(seed): \($0)" }
        }
        #expect(failures.isEmpty, "laws broken with skewed clocks (\(failures.count)), e.g. \(failures.first ?? "")")
    }
}

/// One seeded trace of one item on three replicas, built with ``ItemMerge`` alone.
struct MergeTrace {
    struct Counts {
        var steps = 0, states = 0, joins = 0, concurrentJoins = 0
        var commutative = 0, associative = 0, idempotent = 0, writesChecked = 0, deleted = 0

        mutating func add(_ other: Counts) {
            steps += other.steps; states += other.states; joins += other.joins; concurrentJoins += other.concurrentJoins
            commutative += other.commutative; associative += other.associative; idempotent += other.idempotent
            writesChecked += other.writesChecked; deleted += other.deleted
        }
    }

    /// One register written by one edit: the fields it left (none: the edit removed the value).
    struct Write {
        let register: Register
        let stamp: Stamp
        let fields: [UInt8]
        /// The password written, for the password register.
        let password: [UInt8]?
    }

    /// Writes of `register` that the event stamped `by` replaced: seen by an edit that changed
    /// the register, or losing values a resolution reviewed.
    struct Replacement {
        let by: Stamp
        let register: Register
        let stamps: Set<Stamp>
    }

    let random: SeededRandom
    static let replicaIDs: [UInt64] = [0x0A11, 0x0B22, 0x0C33]
    /// What each replica holds now (nil: it has not seen the item), and held before.
    var held: [ItemState?] = [nil, nil, nil]
    var earlier: [[ItemState]] = [[], [], []]
    /// Every state reached, by the replica that reached it, with its encoding: the laws are checked on these.
    var pool: [[(state: ItemState, encoded: Encoded)]] = [[], [], []]
    var writes: [Write] = []
    /// The dates each edit (or version written before clocks) gave the item: a state's
    /// `created` is the earliest and its `modified` the latest of those it has seen.
    var dates: [(stamp: Stamp, created: Int64, modified: Int64)] = []
    var replacements: [Replacement] = []
    /// Each deletion: its stamp and what it had seen (with what the deletions before it had).
    var deletions: [(stamp: Stamp, seen: VersionVector)] = []
    /// Each state an addition or an edit made (its values confirmed, SPEC.md §17.5): its
    /// version vector, the values it held not erased, the passwords it held as values (with
    /// their stamps) and in its history.
    var confirming: [(versions: VersionVector, values: Set<ValueID>, passwords: [(stamp: Stamp, password: [UInt8])], history: [[UInt8]])] = []
    /// The wall clock in milliseconds, and each replica's last stamp time (hybrid times, §17.1).
    var wall: Int64 = 1_700_000_000_000
    var lastTime: [UInt64] = [0, 0, 0]
    /// How far each replica's clock is from the wall clock (all zero unless a test sets one).
    let skew: [Int64]
    /// How many triples the associativity law is checked on.
    let triples: Int
    /// When the item was added: every version keeps it (an edit cannot change it).
    let created: Date
    var steps: [String] = []
    var failures: [String] = []
    var counts = Counts()

    init(seed: UInt64, skew: [Int64] = [0, 0, 0], triples: Int = 2) {
        random = SeededRandom(seed: seed)
        self.skew = skew
        self.triples = triples
        created = Date(millisecondsSince1970: wall - Int64(random.next() % 1000))
    }

    func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
    func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

    // MARK: The trace

    mutating func run() throws {
        try start()
        for _ in 0..<(6 + pick(11)) {
            try step()
            counts.steps += 1
        }
        try checkLaws()
    }

    /// The item: added by replica 0, or written before clocks (§17.6) and copied to every
    /// replica, one of which may hold another such version of it.
    mutating func start() throws {
        if chance(75) {
            let parts = try randomParts()
            let stamp = nextStamp(0, after: VersionVector())
            let state = ItemState(parts: parts, clock: ItemMerge.clock(ofNewItem: parts.valuedRegisters, stamp: stamp))
            // A new item's edit stamps every unkeyed register, empty or not (SPEC.md §17.5).
            try record(state, writtenBy: stamp, registers: Array(state.clock.stamps.keys))
            dates.append((stamp, parts.created, parts.modified))
            try reach(state, replica: 0)
            confirm(0)
            steps.append("replica 0 adds the item \(Self.describe(state))")
            return
        }
        let first = try legacy()
        for replica in 0..<3 { try reach(first, replica: replica) }
        confirm(0)
        steps.append("every replica holds a version written before clocks \(Self.describe(first))")
        if chance(50) {
            let second = try legacy()
            try reach(second, replica: 1)
            confirm(1)
            earlier[1] = []   // it never held the first
            steps.append("replica 1 holds another such version \(Self.describe(second))")
        }
    }

    /// A version of the item written before clocks: its digest names its replica.
    mutating func legacy() throws -> ItemState {
        var parts = try randomParts()
        // Two such versions may have been added on two devices, at different times.
        parts.created -= Int64(pick(5_000)) * 1_000
        let digest = random.bytes(32).withUnsafeBytes { Digest256($0) }
        let clock = ItemClock.legacy(digest: digest, revision: 1 + random.next() % 3, registers: parts.valuedRegisters)
        let state = ItemState(parts: parts, clock: clock)
        let replica = clock.versions.sorted[0]
        dates.append((Stamp(replica: replica.replica, time: replica.time), parts.created, parts.modified))
        for register in parts.valuedRegisters {
            if let stamp = clock.stamps[register] { try record(state, writtenBy: stamp, registers: [register]) }
        }
        return state
    }

    mutating func step() throws {
        let replica = pick(3)
        let roll = random.next() % 100
        switch roll {
        case 0..<35: try edit(replica)
        case 35..<45: try staleEdit(replica)
        case 45..<53: try delete(replica, stale: false)
        case 53..<57: try delete(replica, stale: true)
        case 57..<64: try resolve(replica)
        default: try merge(into: replica, from: (replica + 1 + pick(2)) % 3)
        }
    }

    /// An edit of the item as the replica holds it.
    mutating func edit(_ replica: Int) throws {
        guard let current = held[replica], !current.clock.isDeleted else { return }
        let (new, what) = try mutated(current, by: replica)
        let stamp = nextStamp(replica, after: current.clock.versions)
        let edited = try ItemMerge.edit(current, madeOn: nil, to: new, stamp: stamp)
        expectNewer(edited, than: current, "an edit")
        try recordEdit(new, base: current, stamp: stamp, resolving: false)
        try reach(edited, replica: replica)
        confirm(replica)
        steps.append("replica \(replica) edits \(what) at \(stamp) \(Self.describe(edited))")
    }

    /// An edit made on an older version than the replica holds now: a transaction replayed
    /// on the version another writer saved meanwhile (which may be a tombstone).
    mutating func staleEdit(_ replica: Int) throws {
        guard let current = held[replica], !earlier[replica].isEmpty else { return }
        let base = earlier[replica][pick(earlier[replica].count)]
        guard !base.clock.isDeleted, ItemMerge.dominance(current.clock, base.clock) == .first else { return }
        let (new, what) = try mutated(base, by: replica)
        let stamp = nextStamp(replica, after: current.clock.versions)
        let resolving = chance(20)
        let edited = try ItemMerge.edit(current, madeOn: base, to: new, stamp: stamp, resolvingConflicts: resolving)
        expectNewer(edited, than: current, "an edit made on an older version")
        try recordEdit(new, base: base, stamp: stamp, resolving: resolving)
        // Registers whose every value a deletion erased meanwhile, the edit's own replaced
        // first: the edit writes the value it had (ItemMerge.edit), a write of its own.
        for (register, written) in edited.clock.stamps where written == stamp && !writes.contains(where: { $0.register == register && $0.stamp == stamp }) {
            try record(edited, writtenBy: stamp, registers: [register])
            let seen = writes.filter { $0.register == register && $0.stamp != stamp && base.clock.versions.covers($0.stamp) }
            replacements.append(Replacement(by: stamp, register: register, stamps: Set(seen.map(\.stamp))))
        }
        try reach(edited, replica: replica)
        confirm(replica)
        steps.append("replica \(replica) edits \(what)\(resolving ? " and resolves" : "") on an older version \(Self.describe(base)) at \(stamp) \(Self.describe(edited))")
    }

    /// A deletion; `stale`: asked on an older version (dropped if the item was edited since).
    mutating func delete(_ replica: Int, stale: Bool) throws {
        guard let current = held[replica] else { return }
        var base = current
        if stale {
            // A version the replica's file had before: what it holds now has seen all it had.
            guard !earlier[replica].isEmpty else { return }
            base = earlier[replica][pick(earlier[replica].count)]
            guard ItemMerge.dominance(current.clock, base.clock) == .first else { return }
        }
        guard !base.clock.isDeleted else { return }
        guard ItemMerge.deletionStands(on: current.clock, askedOn: base.clock) else {
            steps.append("replica \(replica)'s deletion asked on an older version \(Self.describe(base)) is dropped: edited since")
            return
        }
        let stamp = nextStamp(replica, after: current.clock.versions)
        let deleted = ItemMerge.delete(current, stamp: stamp)
        expectNewer(deleted, than: current, "a deletion")
        // What the deletion may cover: what it was asked on, and what deletions before it had seen.
        var seen = base.clock.versions.merged(with: current.clock.deleted ?? VersionVector())
        seen.include(stamp)
        deletions.append((stamp, seen))
        try reach(deleted, replica: replica)
        steps.append("replica \(replica) deletes\(stale ? " (asked on an older version)" : "") at \(stamp) \(Self.describe(deleted))")
    }

    /// A resolution: an edit that changes nothing and drops the losing values.
    mutating func resolve(_ replica: Int) throws {
        guard let current = held[replica], !current.clock.isDeleted, !current.clock.siblings.isEmpty else { return }
        let (attributes, secrets) = try Self.view(current)
        let new = try Self.parts(attributes, secrets)
        let stamp = nextStamp(replica, after: current.clock.versions)
        let resolved = try ItemMerge.edit(current, madeOn: nil, to: new, stamp: stamp, resolvingConflicts: true)
        expectNewer(resolved, than: current, "a resolution")
        try recordEdit(new, base: current, stamp: stamp, resolving: true)
        try reach(resolved, replica: replica)
        confirm(replica)
        steps.append("replica \(replica) resolves the conflicts at \(stamp) \(Self.describe(resolved))")
    }

    mutating func merge(into replica: Int, from other: Int) throws {
        guard let theirs = held[other] else { return }
        var joined = theirs
        if let ours = held[replica] { joined = try join(ours, theirs) }
        try reach(joined, replica: replica)
        steps.append("replica \(replica) merges replica \(other) \(Self.describe(joined))")
    }

    /// An edit or a deletion has seen all its input has, and more (its own stamp).
    mutating func expectNewer(_ result: ItemState, than input: ItemState, _ what: String) {
        if ItemMerge.dominance(result.clock, input.clock) != .first {
            failures.append("\(what) has not seen more than its input: \(Self.describe(result)) from \(Self.describe(input))")
        }
    }

    /// Takes `state`, as a record would give it back, as what `replica` holds.
    mutating func reach(_ state: ItemState, replica: Int) throws {
        let (state, encoded) = try Self.reopened(state)
        if let old = held[replica] { earlier[replica].append(old) }
        held[replica] = state
        pool[replica].append((state, encoded))
        counts.states += 1
    }

    /// Notes what `replica` holds now as made by an addition or an edit: it confirms its values.
    mutating func confirm(_ replica: Int) {
        guard let state = held[replica] else { return }
        var values = Set<ValueID>(), passwords: [(stamp: Stamp, password: [UInt8])] = []
        for register in Set(state.clock.stamps.keys).union(state.clock.siblings.keys) {
            for (stamp, value) in state.values(of: register) {
                if case .erased = value { continue }
                values.insert(ValueID(register: register, stamp: stamp))
                if register == .password, let password = Self.password(of: value) { passwords.append((stamp, password)) }
            }
        }
        confirming.append((state.clock.versions, values, passwords, Self.history(of: state)))
    }

    mutating func join(_ a: ItemState, _ b: ItemState) throws -> ItemState {
        counts.joins += 1
        if ItemMerge.dominance(a.clock, b.clock) == .neither { counts.concurrentJoins += 1 }
        return try ItemMerge.join(a, b)
    }

    /// A stamp for `replica`'s next edit of a state that has seen `clock` (HybridTime.next).
    mutating func nextStamp(_ replica: Int, after clock: VersionVector) -> Stamp {
        // The wall clock moves by 0 to 2 ms a step: replicas often stamp the same time.
        wall += Int64(random.next() % 3)
        lastTime[replica] = HybridTime.next(after: max(clock.maxTime, lastTime[replica]), nowMilliseconds: wall + skew[replica])
        return Stamp(replica: Self.replicaIDs[replica], time: lastTime[replica])
    }

    // MARK: The ledger

    /// Records the writes of an edit stamped `stamp` that turned `base` into `new`, and what it replaced.
    mutating func recordEdit(_ new: ItemParts, base: ItemState, stamp: Stamp, resolving: Bool) throws {
        dates.append((stamp, new.created, new.modified))
        let registers = Set(new.valuedRegisters).union(base.parts.valuedRegisters).union(base.clock.stamps.keys)
        for register in registers {
            let fields = Self.bytes(ItemMerge.value(register, in: new))
            if fields != Self.bytes(ItemMerge.value(register, in: base.parts)) {
                try record(ItemState(parts: new, clock: base.clock), writtenBy: stamp, registers: [register])
                let seen = writes.filter { $0.register == register && $0.stamp != stamp && base.clock.versions.covers($0.stamp) }
                replacements.append(Replacement(by: stamp, register: register, stamps: Set(seen.map(\.stamp))))
            } else if resolving {
                let reviewed = base.parts.conflicts.filter { $0.register == register }.map(\.stamp)
                if !reviewed.isEmpty { replacements.append(Replacement(by: stamp, register: register, stamps: Set(reviewed))) }
            }
        }
    }

    mutating func record(_ state: ItemState, writtenBy stamp: Stamp, registers: [Register]) throws {
        for register in registers {
            let value = ItemMerge.value(register, in: state.parts)
            writes.append(Write(register: register, stamp: stamp, fields: Self.bytes(value),
                                password: register == .password ? Self.password(of: value) : nil))
        }
    }

    // MARK: The laws

    /// A state some replica reached, and one another replica reached: often concurrent.
    /// A state some replica reached (other than `replica`): two such are often concurrent.
    func sample(other replica: Int? = nil) -> (state: ItemState, encoded: Encoded, replica: Int)? {
        let replicas = (0..<3).filter { $0 != replica && !pool[$0].isEmpty }
        guard !replicas.isEmpty else { return nil }
        let chosen = replicas[pick(replicas.count)]
        let (state, encoded) = pool[chosen][pick(pool[chosen].count)]
        return (state, encoded, chosen)
    }

    mutating func checkLaws() throws {
        for (state, _) in pool.joined() { try checkLedger(state, "state \(Self.describe(state))") }
        for _ in 0..<3 {
            guard let (a, ea, replica) = sample(), let (b, _, _) = sample(other: replica) else { return }
            let ab = try join(a, b), ba = try join(b, a)
            let eab = try Self.encoded(ab)
            counts.commutative += 1
            expectSame(ab, eab, ba, try Self.encoded(ba), "commutativity: join(a, b) != join(b, a)\n    a \(Self.describe(a))\n    b \(Self.describe(b))")
            try checkLedger(ab, "join(a, b) \(Self.describe(ab)) of\n    a \(Self.describe(a))\n    b \(Self.describe(b))")
            counts.idempotent += 1
            let aa = try join(a, a)
            expectSame(aa, try Self.encoded(aa), a, ea, "idempotence: join(a, a) != a \(Self.describe(a))")
            let abb = try join(ab, b)
            expectSame(abb, try Self.encoded(abb), ab, eab, "absorption: join(join(a, b), b) != join(a, b)\n    a \(Self.describe(a))\n    b \(Self.describe(b))")
        }
        for _ in 0..<triples {
            guard let (a, _, first) = sample(), let (b, _, second) = sample(other: first), let (c, _, _) = sample(other: second) else { return }
            let left = try join(try join(a, b), c), right = try join(a, try join(b, c))
            counts.associative += 1
            expectSame(left, try Self.encoded(left), right, try Self.encoded(right),
                           "associativity: join(join(a, b), c) != join(a, join(b, c))\n    a \(Self.describe(a))\n    b \(Self.describe(b))\n    c \(Self.describe(c))\n    left \(Self.describe(left))\n    right \(Self.describe(right))")
            try checkLedger(left, "join(join(a, b), c) \(Self.describe(left))")
        }
    }

    /// Records a failure unless `x` and `y` (encoded as `ex` and `ey`) encode to the same lists.
    mutating func expectSame(_ x: ItemState, _ ex: Encoded, _ y: ItemState, _ ey: Encoded, _ what: @autoclosure () -> String) {
        if ex != ey { failures.append(what() + "\n    differing: " + Self.difference(x, y)) }
    }

    /// Nothing lost, nothing invented, deletions exact: `state` against the ledger.
    mutating func checkLedger(_ state: ItemState, _ what: @autoclosure () -> String) throws {
        let seen = state.clock.versions
        let deletion = state.clock.deleted
        // The additions and edits this state has seen, and those its deletions had not.
        let confirmed = confirming.filter { seen.dominates($0.versions) }
        let unseenByDeletion = confirmed.filter { !(deletion?.dominates($0.versions) ?? false) }
        var expected: [Register: [Stamp: [UInt8]]] = [:]
        for write in writes where seen.covers(write.stamp) {
            counts.writesChecked += 1
            let held = Self.fields(of: write.register, stamp: write.stamp, in: state)
            // A password may go only with a deletion: when every edit the deletion had not seen
            // held it neither in its history nor as a value that a write this state has seen
            // replaced (that write moved it into a history the deletion erased).
            if let password = write.password, !password.isEmpty, held != write.fields, !Self.history(of: state).contains(password),
               !state.values(of: .password).values.contains(where: { Self.password(of: $0) == password }),
               unseenByDeletion.contains(where: { edit in
                   edit.history.contains(password) || edit.passwords.contains { value in
                       value.password == password
                           && !replacements.contains { $0.register == .password && $0.stamps.contains(value.stamp) && seen.covers($0.by) }
                   }
               }) {
                failures.append("password \(Self.text(password)) written at \(write.stamp) is gone from \(what())")
            }
            let replaced = replacements.contains { $0.register == write.register && $0.stamps.contains(write.stamp) && seen.covers($0.by) }
            if replaced { continue }
            expected[write.register, default: [:]][write.stamp] = write.fields
            let id = ValueID(register: write.register, stamp: write.stamp)
            let confirmation = confirmed.filter { $0.values.contains(id) }.reduce(VersionVector()) { $0.merged(with: $1.versions) }
            let shouldErase = deletion?.dominates(confirmation) ?? false
            var erased = false
            if case .erased? = state.values(of: write.register)[write.stamp] { erased = true }
            if erased != shouldErase {
                failures.append("\(write.register) written at \(write.stamp) is \(erased ? "" : "not ")erased, expected the opposite (confirmed by \(Self.describe(confirmation))), in \(what())")
                continue
            }
            if erased { continue }
            if held != write.fields {
                failures.append("\(write.register) = \(Self.text(write.fields)) written at \(write.stamp) is lost (holds \(held.map(Self.text) ?? "nothing")) from \(what())")
            }
        }
        for (register, winner) in state.clock.stamps {
            for stamp in [winner] + (state.clock.siblings[register] ?? []) where expected[register]?[stamp] == nil {
                failures.append("\(register) holds \(stamp), a write it should not (replaced, or never made), in \(what())")
            }
            // The newest value not erased wins (an edit's stamp is above every stamp its
            // replica has seen); when every value is erased, the newest.
            let values = state.values(of: register)
            let live = values.filter { if case .erased = $0.value { return false } else { return true } }
            if let newer = (live.isEmpty ? values : live).keys.first(where: { $0 > winner }) {
                failures.append("\(register)'s value \(winner) beats a newer one, \(newer), in \(what())")
            }
        }
        // The dates: functions of the edits seen, whatever order of merges reached the state.
        let seenDates = dates.filter { seen.covers($0.stamp) }
        if let earliest = seenDates.map(\.created).min(), state.parts.created != earliest {
            failures.append("created \(state.parts.created), expected the earliest of the edits seen, \(earliest), in \(what())")
        }
        if let latest = seenDates.map(\.modified).max(), state.parts.modified != latest {
            failures.append("modified \(state.parts.modified), expected the latest of the edits seen, \(latest), in \(what())")
        }
        let deletions = self.deletions.filter { seen.covers($0.stamp) }
        let deletedSeen = deletions.reduce(VersionVector()) { $0.merged(with: $1.seen) }
        if (state.clock.deleted ?? VersionVector()) != deletedSeen {
            failures.append("deletion vector \(Self.describe(state.clock.deleted)), expected \(Self.describe(deletedSeen)) in \(what())")
        }
        if state.clock.isDeleted != (!deletions.isEmpty && deletedSeen.dominates(seen)) {
            failures.append("deleted: \(state.clock.isDeleted), expected the opposite, in \(what())")
        }
        if state.clock.isDeleted { counts.deleted += 1 }
    }

    // MARK: Items, as the vault's API would edit them

    /// The attributes and secrets an edit starts from: what the transaction shows
    /// (losing passwords in the history, ``ItemSealer/secrets(of:)``).
    static func view(_ state: ItemState) throws -> (ItemAttributes, ItemSecrets) {
        let encoded = try encodedLists(state)
        let attributes = try EntryCodec.decodeOverview(encoded.overview)
        var secrets = try encoded.secrets.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
        if ItemClockCodec.hasSiblings(encoded.overview) { secrets = try ItemMerge.secretsView(secrets, losing: state.parts.conflicts) }
        return (attributes, secrets)
    }

    static func parts(_ attributes: ItemAttributes, _ secrets: ItemSecrets) throws -> ItemParts {
        try ItemParts(overview: EntryCodec.encodeOverview(attributes).publicBytes, secrets: EntryCodec.encodeSecrets(secrets).secureBytes())
    }

    /// An item with a few random fields.
    func randomParts() throws -> ItemParts {
        var attributes = ItemAttributes(kind: .genericPassword, service: "mail", account: chance(50) ? "alice" : nil)
        attributes.created = created
        attributes.modified = Date(millisecondsSince1970: wall)
        var secrets = ItemSecrets()
        for _ in 0..<(1 + pick(3)) { try change(&attributes, &secrets) }
        return try Self.parts(attributes, secrets)
    }

    /// One or two fields of `state` changed by `replica`: the parts of the edit, and what it did.
    mutating func mutated(_ state: ItemState, by replica: Int) throws -> (ItemParts, String) {
        let (old, oldSecrets) = try Self.view(state)
        var attributes = old, secrets = oldSecrets
        var what: [String] = []
        for _ in 0..<(1 + pick(2)) { what.append(try change(&attributes, &secrets)) }
        attributes.created = old.created
        wall += 1
        attributes.modified = Date(millisecondsSince1970: wall + skew[replica])
        // A changed password goes into the history (VaultTransaction.recordHistory).
        if let previous = oldSecrets.password, secrets.password != previous {
            secrets.passwordHistory = [PasswordHistoryEntry(password: previous, replaced: attributes.modified)] + oldSecrets.passwordHistory
        }
        return (try Self.parts(attributes, secrets), what.joined(separator: ", "))
    }

    /// Sets or removes one field, from few values, so that replicas often write the same one.
    @discardableResult
    func change(_ attributes: inout ItemAttributes, _ secrets: inout ItemSecrets) throws -> String {
        func text(_ values: [String]) -> String? {
            let index = pick(values.count + 1)
            return index < values.count ? values[index] : nil
        }
        switch pick(11) {
        case 0: attributes.label = text(["Mail", "Post", "Inbox"]); return "label \(attributes.label ?? "-")"
        case 1: attributes.account = text(["alice", "bob"]); return "account \(attributes.account ?? "-")"
        case 2: attributes.comment = text(["old", "new", "kept"]); return "comment \(attributes.comment ?? "-")"
        case 3: attributes.tags = ["home", "work", "mail"].filter { _ in chance(50) }; return "tags \(attributes.tags)"
        case 4: attributes.isFavorite.toggle(); return "favourite \(attributes.isFavorite)"
        case 5, 6:
            let name = pick(2) == 0 ? "f1" : "f2"
            attributes.fields.removeAll { $0.name == name }
            if let value = text(["x", "y", "z"]) { attributes.fields.append(CustomField(name: name, value: value)) }
            return "field \(name) \(attributes.fields.first { $0.name == name }?.value ?? "-")"
        case 7, 8:
            let value = text(["hunter2", "swordfish", "letmein", "correct"])
            secrets.password = try value.map { try SecureBytes(copying: $0) }
            return "password \(value ?? "-")"
        case 9:
            let value = text(["note 1", "note 2"])
            secrets.notes = try value.map { try SecureBytes(copying: $0) }
            return "notes \(value ?? "-")"
        default:
            secrets.fields.removeAll { $0.name == "pin" }
            let value = text(["1234", "0000"])
            if let value { secrets.fields.append(SecretField(name: "pin", value: try SecureBytes(copying: value))) }
            return "secret field pin \(value ?? "-")"
        }
    }

    // MARK: Encoding and reading back

    /// The lists a record holds (overview with the clock, and secret part), in ordinary
    /// memory to compare (these secrets are the test's own).
    struct Encoded: Equatable {
        let overview: [UInt8]
        let secrets: [UInt8]
    }

    /// The lists a record of `state` would hold: overview (with the clock) and secret part.
    static func encodedLists(_ state: ItemState) throws -> (overview: [UInt8], secrets: SecureBytes) {
        (try state.parts.overviewList(clock: state.clock), try state.parts.secretList().secureBytes())
    }

    static func encoded(_ state: ItemState) throws -> Encoded {
        Encoded(overview: try state.parts.overviewList(clock: state.clock), secrets: try state.parts.secretList().publicBytes)
    }

    /// `state` as ``ItemSealer`` would seal it and open it again, and its encoding.
    static func reopened(_ state: ItemState) throws -> (ItemState, Encoded) {
        let lists = try encodedLists(state)
        let parts = try ItemParts(overview: lists.overview, secrets: lists.secrets)
        guard let clock = try ItemClockCodec.decode(overview: lists.overview) else { throw FormatError.malformed("no clock written") }
        try parts.checkConsistency(with: clock)
        return (ItemState(parts: parts, clock: clock.resolved(present: parts.valuedRegisters)),
                Encoded(overview: lists.overview, secrets: lists.secrets.withUnsafeBytes { Array($0) }))
    }

    static func bytes(_ value: ItemMerge.Value) -> [UInt8] {
        switch value {
        case .none, .erased: return []
        case .overview(let bytes): return bytes
        case .secret(let fragment): return fragment.source.withUnsafeBytes { Array($0[fragment.range]) }
        }
    }

    /// The fields `state` holds for the write of `register` stamped `stamp`: its value or a conflict's.
    static func fields(of register: Register, stamp: Stamp, in state: ItemState) -> [UInt8]? {
        if state.clock.stamps[register] == stamp { return bytes(ItemMerge.value(register, in: state.parts)) }
        guard state.clock.siblings[register]?.contains(stamp) ?? false,
              let conflict = state.parts.conflicts.first(where: { $0.register == register && $0.stamp == stamp }) else { return nil }
        return bytes(.secret(conflict.value))
    }

    /// The password a value of the password register holds (nil: none): its one field's
    /// bytes after the 6-byte header.
    static func password(of value: ItemMerge.Value) -> [UInt8]? {
        let fields = bytes(value)
        return fields.count >= 6 ? Array(fields[6...]) : nil
    }

    static func history(of state: ItemState) -> [[UInt8]] {
        state.parts.history.compactMap { HistoryField($0).map { bytes(.secret($0.password)) } }
    }

    // MARK: Descriptions (for failures and COFFER_MERGE_LAW_SEED)

    /// What differs between two states whose lists differ: dates, the order of named fields,
    /// the history, or a register's value.
    static func difference(_ x: ItemState, _ y: ItemState) -> String {
        var out: [String] = []
        if x.clock != y.clock { out.append("clock") }
        if x.parts.created != y.parts.created { out.append("created \(x.parts.created) / \(y.parts.created)") }
        if x.parts.modified != y.parts.modified { out.append("modified \(x.parts.modified) / \(y.parts.modified)") }
        if x.parts.order != y.parts.order { out.append("order of named fields") }
        let hx = x.parts.history.map { bytes(.secret($0)) }, hy = y.parts.history.map { bytes(.secret($0)) }
        if hx != hy { out.append("history \(hx.map(text)) / \(hy.map(text))") }
        for register in Set(x.clock.stamps.keys).union(y.clock.stamps.keys).sorted() {
            let vx = bytes(ItemMerge.value(register, in: x.parts)), vy = bytes(ItemMerge.value(register, in: y.parts))
            if vx != vy { out.append("\(register) \(text(vx)) / \(text(vy))") }
        }
        let cx = x.parts.conflicts.map { "\($0.register)@\($0.stamp)=\(text(bytes(.secret($0.value))))" }.sorted()
        let cy = y.parts.conflicts.map { "\($0.register)@\($0.stamp)=\(text(bytes(.secret($0.value))))" }.sorted()
        if cx != cy { out.append("conflicts \(cx) / \(cy)") }
        return out.isEmpty ? "(the encodings only)" : out.joined(separator: "; ")
    }

    static func text(_ bytes: [UInt8]) -> String {
        bytes.isEmpty ? "(removed)" : "\"" + String(decoding: bytes.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self) + "\""
    }

    static func describe(_ vector: VersionVector?) -> String {
        guard let vector else { return "-" }
        return "[" + vector.sorted.map { "\(String($0.replica, radix: 16)):\($0.time)" }.joined(separator: " ") + "]"
    }

    static func describe(_ state: ItemState) -> String {
        var out = "{seen \(describe(state.clock.versions))"
        if let deleted = state.clock.deleted { out += " deleted \(describe(deleted))\(state.clock.isDeleted ? " (tombstone)" : "")" }
        // An erased value (SPEC.md §17.5) is marked with "×".
        func mark(_ register: Register, _ stamp: Stamp) -> String {
            state.clock.erased.contains(ValueID(register: register, stamp: stamp)) ? "×" : ""
        }
        for (register, stamp) in state.clock.stamps.sorted(by: { $0.key < $1.key }) {
            out += " \(register)@\(stamp)\(mark(register, stamp))"
            if let losers = state.clock.siblings[register] {
                out += " beats \(losers.map { "\($0)\(mark(register, $0))" }.joined(separator: ","))"
            }
        }
        return out + "}"
    }
}

import CofferCrypto
import CofferFormat
import Foundation

/// An item as the merge rules see it: its fields cut into registers (SPEC.md §17.2) and its
/// clock with every register stamped. No keys: ``ItemSealer`` opens records into states and
/// seals states into records.
struct ItemState: Sendable {
    var parts: ItemParts
    var clock: ItemClock

    /// A register's values: the winner and the losing ones, by stamp.
    func values(of register: Register) -> [Stamp: ItemMerge.Value] {
        var out: [Stamp: ItemMerge.Value] = [:]
        if let stamp = clock.stamps[register] { out[stamp] = ItemMerge.value(register, in: parts) }
        for conflict in parts.conflicts where conflict.register == register { out[conflict.stamp] = .secret(conflict.value) }
        return out
    }

    /// Keeps `values`, except `winner`'s, as losing values of `register`, oldest first: their
    /// stamps among the clock's siblings, their fields among the conflicts.
    mutating func keepLosing(_ values: [Stamp: ItemMerge.Value], of register: Register, winner: Stamp) throws(FormatError) {
        for (stamp, value) in values.sorted(by: { $0.key < $1.key }) where stamp != winner {
            clock.siblings[register, default: []].append(stamp)
            parts.conflicts.append(ItemParts.Conflict(register: register, stamp: stamp, value: try ItemMerge.fragment(value)))
        }
    }
}

/// The rules of SPEC.md §17.5 over item states, as pure functions: the join of two versions
/// of one item, a local edit, a deletion. Every register is a multi-value register over the
/// item's version vector; the newest stamp wins and the concurrent values it beat are kept
/// as conflicts. Nothing here sees a key, draws randomness or touches a file; the only
/// failure is guarded memory running out (a losing public value is copied into it).
enum ItemMerge {
    /// A register's value as one version holds it.
    enum Value {
        case none
        case overview([UInt8])
        case secret(SecretFragment)

        func sameBytes(as other: Value) -> Bool {
            switch (self, other) {
            case (.none, .none): return true
            case (.overview(let a), .overview(let b)): return a == b
            case (.secret(let a), .secret(let b)): return a.sameBytes(as: b)
            default: return false
            }
        }
    }

    /// Which of two clocks has seen everything the other has (§17.5 step 2): its version
    /// vector and its deletion vector (empty when absent) both dominate the other's.
    enum Dominance: Equatable {
        case first, second
        /// Each has seen what the other has: the same edits (a merge made twice, say).
        case both
        /// Concurrent: each has seen an edit the other has not.
        case neither
    }

    static func dominance(_ a: ItemClock, _ b: ItemClock) -> Dominance {
        let none = VersionVector()
        let aCovers = a.versions.dominates(b.versions) && (a.deleted ?? none).dominates(b.deleted ?? none)
        let bCovers = b.versions.dominates(a.versions) && (b.deleted ?? none).dominates(a.deleted ?? none)
        switch (aCovers, bCovers) {
        case (true, false): return .first
        case (false, true): return .second
        case (true, true): return .both
        case (false, false): return .neither
        }
    }

    // MARK: The join

    /// The join of two states of one item (§17.5 steps 2 and 3): the one that has seen all
    /// the other has (the first, of two that have seen the same edits; the sealer keeps the
    /// record that step 2 names), else ``joinConcurrent(_:_:)``.
    static func join(_ a: ItemState, _ b: ItemState) throws(FormatError) -> ItemState {
        switch dominance(a.clock, b.clock) {
        case .first, .both: return a
        case .second: return b
        case .neither: return try joinConcurrent(a, b)
        }
    }

    /// §17.5 step 3, for two concurrent states: a value of one side survives if the other
    /// side holds it too or has not seen it; of a register's surviving values the newest
    /// stamp wins and the others become its conflicts.
    static func joinConcurrent(_ a: ItemState, _ b: ItemState) throws(FormatError) -> ItemState {
        var clock = ItemClock(versions: a.clock.versions.merged(with: b.clock.versions), stamps: [:])
        if a.clock.deleted != nil || b.clock.deleted != nil {
            clock.deleted = (a.clock.deleted ?? VersionVector()).merged(with: b.clock.deleted ?? VersionVector())
        }
        var parts = a.parts
        parts.conflicts = []
        parts.order = []   // named fields by name: the same order whichever side merges
        parts.created = min(a.parts.created, b.parts.created)
        parts.modified = max(a.parts.modified, b.parts.modified)
        parts.history = mergedHistory(a.parts.history, b.parts.history)
        var out = ItemState(parts: parts, clock: clock)
        for register in Set(a.clock.stamps.keys).union(b.clock.stamps.keys).sorted() {
            let sa = a.values(of: register), sb = b.values(of: register)
            var kept: [Stamp: Value] = [:]
            for (stamp, value) in sa where sb[stamp] != nil || !b.clock.versions.covers(stamp) { kept[stamp] = value }
            for (stamp, value) in sb where kept[stamp] == nil && (sa[stamp] != nil || !a.clock.versions.covers(stamp)) { kept[stamp] = value }
            if kept.isEmpty {
                // Only a faulty writer's clocks get here; keep every value rather than none.
                kept = sa.merging(sb) { first, _ in first }
            }
            guard let winner = kept.keys.max(), let value = kept[winner] else { continue }
            out.clock.stamps[register] = winner
            try set(register, value, in: &out.parts)
            try out.keepLosing(kept, of: register, winner: winner)
        }
        out.clock = out.clock.compacted()
        return out
    }

    /// History entries of both: each password once, at the latest date either side
    /// replaced it, newest first (then by bytes). A union (of the map password -> date), so
    /// the order of merges does not matter.
    static func mergedHistory(_ a: [SecretFragment], _ b: [SecretFragment]) -> [SecretFragment] {
        var out: [(entry: SecretFragment, password: SecretFragment?, replaced: Int64)] = []
        for entry in a + b {
            let field = HistoryField(entry)
            let replaced = field?.replaced ?? 0
            let same = field.flatMap { field in out.firstIndex { $0.password?.sameBytes(as: field.password) ?? false } }
            if let index = same {
                if replaced > out[index].replaced || (replaced == out[index].replaced && precedes(entry, out[index].entry)) {
                    out[index] = (entry, field?.password, replaced)
                }
            } else {
                out.append((entry, field?.password, replaced))
            }
        }
        return out.sorted { x, y in
            if x.replaced != y.replaced { return x.replaced > y.replaced }
            return precedes(x.entry, y.entry)
        }.map(\.entry)
    }

    private static func precedes(_ x: SecretFragment, _ y: SecretFragment) -> Bool {
        x.source.withUnsafeBytes { xb in y.source.withUnsafeBytes { yb in xb[x.range].lexicographicallyPrecedes(yb[y.range]) } }
    }

    // MARK: Local edits

    /// The clock of a new item whose first edit, `stamp`, wrote every register in `registers`.
    static func clock(ofNewItem registers: some Sequence<Register>, stamp: Stamp) -> ItemClock {
        var stamps: [Register: Stamp] = [:]
        for register in registers { stamps[register] = stamp }
        return ItemClock(versions: VersionVector([stamp.replica: stamp.time]), stamps: stamps)
    }

    /// A local edit stamped `stamp` that turned `base` into `new`, applied to `current`;
    /// `base` nil: the edit was made on `current` itself (no other writer saved meanwhile).
    ///
    /// Registers whose value the edit changed take it, stamped `stamp`; values another
    /// writer gave them meanwhile stay as conflicts. A register the edit left as it was
    /// keeps its losing values (a conflict stays until it is resolved or its own field is
    /// edited); with `resolvingConflicts`, those the edit was shown leave. Losing passwords
    /// were offered to the edit as history (``secretsView(_:losing:)``), so the edit's
    /// history may hold them too: the view shows each password once.
    static func edit(_ current: ItemState, madeOn base: ItemState?, to new: ItemParts, stamp: Stamp,
                     resolvingConflicts: Bool = false) throws(FormatError) -> ItemState {
        let read = base ?? current
        var out = current
        out.clock.versions.include(stamp)
        // The edit's order of named fields, then any another writer added meanwhile.
        let edited = Set(new.order)
        out.parts.order = new.order + current.parts.order.filter { !edited.contains($0) }
        // The dates are functions of the edits a version has seen, whichever way it was
        // reached (§17.5): `created` the earliest any of them gave, `modified` the latest
        // (a writer whose clock is behind never moves it back). A join takes the same
        // minimum and maximum, and a version that has seen all another has holds them already.
        out.parts.created = min(new.created, current.parts.created)
        out.parts.modified = max(new.modified, current.parts.modified)
        if base == nil {
            out.parts.history = new.history
        } else {
            // Entries another writer added meanwhile are kept too.
            let othersHistory = current.parts.history.filter { entry in !read.parts.history.contains { $0.sameBytes(as: entry) } }
            out.parts.history = mergedHistory(new.history, othersHistory)
        }
        out.parts.conflicts = []
        out.clock.siblings = [:]
        let registers = Set(new.valuedRegisters).union(read.parts.valuedRegisters).union(read.clock.stamps.keys)
            .union(current.clock.stamps.keys)
        for register in registers.sorted() {
            let mine = value(register, in: new)
            let values = current.values(of: register)
            if !mine.sameBytes(as: value(register, in: read.parts)) {
                try set(register, mine, in: &out.parts)
                out.clock.stamps[register] = stamp
                // Values of the register the edit never saw: another writer's, concurrent with it.
                let seen = read.values(of: register)
                try out.keepLosing(values.filter { seen[$0.key] == nil }, of: register, winner: stamp)
            } else {
                // A resolution drops the losing values it reviewed: those that had lost in
                // `base`. A value that won in `base` and has lost since, to one another writer
                // saved meanwhile, was not reviewed: it stays. An edit of other fields keeps
                // every losing value of this one.
                guard let winner = current.clock.stamps[register] else { continue }
                let reviewed = Set(read.parts.conflicts.lazy.filter { $0.register == register }.map(\.stamp))
                try out.keepLosing(resolvingConflicts ? values.filter { !reviewed.contains($0.key) } : values, of: register, winner: winner)
            }
        }
        out.clock = out.clock.compacted()
        return out
    }

    /// Whether a deletion asked on the version whose clock is `base` still stands on
    /// `current` (SPEC.md §17.5): not if another writer edited the item after `base`, as a
    /// concurrent edit wins over a deletion. What another writer saved that is no such edit
    /// (a deletion of the item, a merge of versions the deletion had seen) does not undo it.
    static func deletionStands(on current: ItemClock, askedOn base: ItemClock) -> Bool {
        guard current.versions != base.versions else { return true }
        // Every edit `current` has beyond `base` must have been seen by a deletion already.
        let deleted = current.deleted ?? VersionVector()
        return !current.versions.times.contains { replica, time in time > base.versions[replica] && time > deleted[replica] }
    }

    /// The tombstone of `state`: the item as it is, with a deletion stamped `stamp` that has seen it.
    static func delete(_ state: ItemState, stamp: Stamp) -> ItemState {
        var out = state
        out.clock.versions.include(stamp)
        out.clock.deleted = (out.clock.deleted ?? VersionVector()).merged(with: out.clock.versions)
        out.clock = out.clock.compacted()
        return out
    }

    /// An item's decoded secrets as the API shows them: passwords that lost a concurrent edit
    /// (among `conflicts`) appear in the password history, dated by their edit, newest first;
    /// one an edit already wrote into the history (it was shown there) is not shown twice.
    static func secretsView(_ secrets: ItemSecrets, losing conflicts: [ItemParts.Conflict]) throws(FormatError) -> ItemSecrets {
        var out = secrets
        for conflict in conflicts where conflict.register == .password {
            let lost = try conflict.value.copy().withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            guard let password = lost.password, !out.passwordHistory.contains(where: { $0.password == password }) else { continue }
            out.passwordHistory.append(PasswordHistoryEntry(password: password, replaced: Date(millisecondsSince1970: conflict.stamp.milliseconds)))
        }
        out.passwordHistory.sort { $0.replaced > $1.replaced }
        return out
    }

    // MARK: Register values

    static func value(_ register: Register, in parts: ItemParts) -> Value {
        if register.isSecret { return parts.secrets[register].map { .secret($0) } ?? .none }
        return parts.overview[register].map { .overview($0) } ?? .none
    }

    /// Puts a register's value (its fields) into `parts`.
    static func set(_ register: Register, _ value: Value, in parts: inout ItemParts) throws(FormatError) {
        switch value {
        case .none:
            parts.overview[register] = nil
            parts.secrets[register] = nil
        case .overview(let bytes):
            if register.isSecret { parts.secrets[register] = try fragment(value) } else { parts.overview[register] = bytes }
        case .secret(let fragment):
            if register.isSecret {
                parts.secrets[register] = fragment.range.isEmpty ? nil : fragment
            } else {
                // A losing overview value kept in the secret part wins again: back to public bytes.
                let bytes = fragment.source.withUnsafeBytes { Array($0[fragment.range]) }
                parts.overview[register] = bytes.isEmpty ? nil : bytes
            }
        }
    }

    /// A value as guarded bytes, for the secret part's conflict records.
    static func fragment(_ value: Value) throws(FormatError) -> SecretFragment {
        switch value {
        case .none: return try SecretFragment(copying: [])
        case .overview(let bytes): return try SecretFragment(copying: bytes)
        case .secret(let fragment):
            return fragment
        }
    }
}

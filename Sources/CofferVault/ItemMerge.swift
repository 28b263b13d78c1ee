import CofferCrypto
import CofferFormat
import Foundation

/// An item as the merge rules see it: its fields cut into registers (SPEC.md §17.2) and its
/// clock with every register stamped. No keys: ``ItemSealer`` opens records into states and
/// seals states into records.
struct ItemState: Sendable {
    var parts: ItemParts
    var clock: ItemClock

    /// A register's values: the winner and the losing ones, by stamp; a value a deletion
    /// erased (every value of a tombstone) is ``ItemMerge/Value/erased``.
    func values(of register: Register) -> [Stamp: ItemMerge.Value] {
        var out: [Stamp: ItemMerge.Value] = [:]
        let tombstone = clock.isDeleted
        func erased(_ stamp: Stamp) -> Bool { tombstone || clock.erased.contains(ValueID(register: register, stamp: stamp)) }
        if let stamp = clock.stamps[register] { out[stamp] = erased(stamp) ? .erased : ItemMerge.value(register, in: parts) }
        for stamp in clock.siblings[register] ?? [] where erased(stamp) { out[stamp] = .erased }
        for conflict in parts.conflicts where conflict.register == register && !erased(conflict.stamp) {
            out[conflict.stamp] = .secret(conflict.value)
        }
        return out
    }

    /// The confirmation vector of a value (SPEC.md §17.5), reduced by the deletion vector:
    /// the vector of the last state that had it as current, the item's own unless the clock
    /// says otherwise; empty for an erased value.
    func confirmation(_ register: Register, _ stamp: Stamp) -> VersionVector {
        let id = ValueID(register: register, stamp: stamp)
        if clock.isDeleted || clock.erased.contains(id) { return VersionVector() }
        return clock.confirmations[id] ?? clock.defaultConfirmation
    }

    /// The confirmation vector of the `index`-th history entry, reduced by the deletion vector.
    func historyConfirmation(_ index: Int) -> VersionVector {
        parts.historyConfirmations[index] ?? clock.defaultConfirmation
    }

    /// Bounds the clock (SPEC.md §17.9), keeping every replica the history's confirmations name.
    ///
    /// When the replicas the confirmations name (and those above the deletion vector)
    /// alone exceed the bound (a join of two copies that each had thousands of writers of
    /// the item since they parted), every confirmation is widened to the default and the
    /// vector compacted again: a widened confirmation only makes a later deletion erase less,
    /// never a value it did not see, and the item is always written (SPEC.md §17.9).
    mutating func compact() {
        clock = clock.compacted(alsoKeeping: parts.historyConfirmations.values)
        guard clock.versions.count > ItemClock.maxReplicas else { return }
        clock.confirmations = [:]
        parts.historyConfirmations = [:]
        clock = clock.compacted(everyLiveReplica: false)
    }

    /// Turns this state into a tombstone's (SPEC.md §7.6): every value erased, its contents,
    /// losing values and history gone; its dates and clock (stamps and siblings) kept.
    mutating func becomeTombstone() {
        clock = clock.resolved(present: parts.valuedRegisters)
        // Every value erased: each register's winner is its value of largest stamp.
        for (register, siblings) in clock.siblings {
            guard let winner = clock.stamps[register], let newest = siblings.max(), newest > winner else { continue }
            clock.stamps[register] = newest
            clock.siblings[register] = (siblings.filter { $0 != newest } + [winner]).sorted()
        }
        clock.deleted = clock.versions
        clock.erased = []
        clock.confirmations = [:]
        parts.overview = [:]
        parts.secrets = [:]
        parts.conflicts = []
        parts.history = []
        parts.historyConfirmations = [:]
        parts.historyCleared = nil
        parts.order = []
    }

    /// Keeps `values`, except `winner`'s, as losing values of `register`, oldest first: their
    /// stamps among the clock's siblings, their fields among the conflicts (an erased value
    /// keeps its stamp only, SPEC.md §17.5).
    mutating func keepLosing(_ values: [Stamp: ItemMerge.Value], of register: Register, winner: Stamp) throws(FormatError) {
        for (stamp, value) in values.sorted(by: { $0.key < $1.key }) where stamp != winner {
            clock.siblings[register, default: []].append(stamp)
            if case .erased = value {
                clock.erased.insert(ValueID(register: register, stamp: stamp))
            } else {
                parts.conflicts.append(ItemParts.Conflict(register: register, stamp: stamp, value: try ItemMerge.fragment(value)))
            }
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
        /// A value whose contents a deletion erased: its stamp stays (SPEC.md §17.5).
        case erased

        func sameBytes(as other: Value) -> Bool {
            switch (self, other) {
            case (.none, .none): return true
            case (.overview(let a), .overview(let b)): return a == b
            case (.secret(let a), .secret(let b)): return a.sameBytes(as: b)
            case (.erased, .erased): return true
            default: return false
            }
        }

        /// Whether two values hold the same contents, however each side keeps them (a
        /// winner's public bytes, or a losing value's copy in the secret part; nothing and
        /// an empty value alike), compared in constant time. An erased value has none to
        /// compare: it matches any.
        func sameContents(as other: Value) -> Bool {
            if case .erased = self { return true }
            if case .erased = other { return true }
            return withContents { a in other.withContents { b in a.count == b.count && ConstantTime.equals(a, b) } }
        }

        private func withContents<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
            switch self {
            case .none, .erased: return body(UnsafeRawBufferPointer(start: nil, count: 0))
            case .overview(let bytes): return bytes.withUnsafeBytes(body)
            case .secret(let fragment):
                return fragment.source.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[fragment.range])) }
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
    /// side holds it too (its contents from a side where they are not erased, its
    /// confirmation vector the join of both) or has not seen it; a value whose confirmation
    /// the joined deletion has seen is erased; of a register's surviving values the newest
    /// stamp wins and the others become its conflicts. Dates: the earliest creation, the
    /// latest modification. A result that its deletion covers is a tombstone.
    static func joinConcurrent(_ a: ItemState, _ b: ItemState) throws(FormatError) -> ItemState {
        var clock = ItemClock(versions: a.clock.versions.merged(with: b.clock.versions), stamps: [:])
        if a.clock.deleted != nil || b.clock.deleted != nil {
            clock.deleted = (a.clock.deleted ?? VersionVector()).merged(with: b.clock.deleted ?? VersionVector())
        }
        let deletion = clock.deleted
        var parts = a.parts
        parts.conflicts = []
        parts.order = []   // named fields by name: the same order whichever side merges
        parts.created = min(a.parts.created, b.parts.created)
        parts.modified = max(a.parts.modified, b.parts.modified)
        parts.historyCleared = clearedUpTo(a.parts.historyCleared, b.parts.historyCleared)
        (parts.history, parts.historyConfirmations) = mergedHistory(a, b, deletion: deletion, versions: clock.versions)
        var out = ItemState(parts: parts, clock: clock)
        let registers = Set(a.clock.stamps.keys).union(b.clock.stamps.keys).union(a.clock.siblings.keys).union(b.clock.siblings.keys)
        for register in registers.sorted() {
            let sa = a.values(of: register), sb = b.values(of: register)
            var kept: [Stamp: (value: Value, confirmation: VersionVector)] = [:]
            for (stamp, value) in sa where sb[stamp] != nil || !b.clock.versions.covers(stamp) {
                kept[stamp] = (value, a.confirmation(register, stamp))
            }
            for (stamp, value) in sb {
                if let mine = kept[stamp] {
                    // Both hold it: its contents from whichever did not erase it. A stamp names
                    // one write, so two contents under it come from a faulty or forged copy:
                    // keeping either would depend on which side merges.
                    guard mine.value.sameContents(as: value) else {
                        throw .malformed("\(register): two different values under one stamp")
                    }
                    if case .erased = mine.value { kept[stamp]?.value = value }
                    kept[stamp]?.confirmation = mine.confirmation.merged(with: b.confirmation(register, stamp))
                } else if sa[stamp] != nil || !a.clock.versions.covers(stamp) {
                    kept[stamp] = (value, b.confirmation(register, stamp))
                }
            }
            if kept.isEmpty {
                // Only a faulty writer's clocks get here; keep every value rather than none.
                for (stamp, value) in sa.merging(sb, uniquingKeysWith: { first, _ in first }) { kept[stamp] = (value, out.clock.versions) }
            }
            // A deletion erases every value it has seen as current (SPEC.md §17.5); the other
            // values keep their confirmation reduced by the deletion.
            for (stamp, entry) in kept {
                kept[stamp]?.confirmation = entry.confirmation.above(deletion)
                if deletion != nil, kept[stamp]?.confirmation.isEmpty == true { kept[stamp]?.value = .erased }
            }
            guard let winner = winner(of: kept.mapValues(\.value)), let value = kept[winner]?.value else { continue }
            out.clock.stamps[register] = winner
            if case .erased = value {
                out.clock.erased.insert(ValueID(register: register, stamp: winner))
                try set(register, .none, in: &out.parts)
            } else {
                try set(register, value, in: &out.parts)
            }
            try out.keepLosing(kept.mapValues(\.value), of: register, winner: winner)
            let standard = out.clock.defaultConfirmation
            for (stamp, entry) in kept where !entry.confirmation.isEmpty && entry.confirmation != standard {
                out.clock.confirmations[ValueID(register: register, stamp: stamp)] = entry.confirmation
            }
        }
        if out.clock.isDeleted { out.becomeTombstone() }
        out.compact()
        return out
    }

    /// The winner of a register's values (SPEC.md §17.5): the largest stamp of those not
    /// erased, or the largest stamp when every value is erased.
    static func winner(of values: [Stamp: Value]) -> Stamp? {
        let live = values.filter { if case .erased = $0.value { return false } else { return true } }
        return live.keys.max() ?? values.keys.max()
    }

    /// History entries of both (SPEC.md §17.5, format 2): each entry (its bytes) once, with
    /// the join of the two sides' confirmation vectors reduced by the deletion; an entry the
    /// deletion has seen as present (its vector reduced to nothing) is dropped; newest first,
    /// then by the password's bytes. A union of entries, so the order of merges does not matter.
    static func mergedHistory(_ a: ItemState, _ b: ItemState, deletion: VersionVector?,
                              versions: VersionVector) -> (entries: [SecretFragment], confirmations: [Int: VersionVector]) {
        func confirmed(_ state: ItemState) -> [(SecretFragment, VersionVector)] {
            state.clock.isDeleted ? [] : state.parts.history.enumerated().map { ($1, state.historyConfirmation($0)) }
        }
        var out: [(entry: SecretFragment, password: SecretFragment, replaced: Int64, confirmation: VersionVector)] = []
        for (entry, confirmation) in confirmed(a) + confirmed(b) {
            if let index = out.firstIndex(where: { $0.entry.sameBytes(as: entry) }) {
                out[index].confirmation.formMerge(with: confirmation)
            } else {
                let field = HistoryField(entry)
                out.append((entry, field?.password ?? entry, field?.replaced ?? 0, confirmation))
            }
        }
        for index in out.indices { out[index].confirmation = out[index].confirmation.above(deletion) }
        if deletion != nil { out.removeAll { $0.confirmation.isEmpty } }
        // A cleared history stays cleared (SPEC.md §17.5): entries replaced up to the later
        // of the two clear dates go, whichever side still has them.
        if let cleared = clearedUpTo(a.parts.historyCleared, b.parts.historyCleared) { out.removeAll { $0.replaced <= cleared } }
        let sorted = out.sorted { x, y in
            if x.replaced != y.replaced { return x.replaced > y.replaced }
            return precedes(x.password, y.password)
        }
        let standard = versions.above(deletion)
        var confirmations: [Int: VersionVector] = [:]
        for (index, entry) in sorted.enumerated() where entry.confirmation != standard { confirmations[index] = entry.confirmation }
        return (sorted.map(\.entry), confirmations)
    }

    /// The later of two dates up to which a history was cleared (nil: never cleared).
    static func clearedUpTo(_ x: Int64?, _ y: Int64?) -> Int64? {
        guard let x else { return y }
        guard let y else { return x }
        return max(x, y)
    }

    /// History entries of both (as fragments alone, confirmed by their own version), for an
    /// edit made again on a newer version: each password once, newest first.
    static func mergedHistory(_ a: [SecretFragment], _ b: [SecretFragment]) -> [SecretFragment] {
        var out: [(entry: SecretFragment, password: SecretFragment?, replaced: Int64)] = []
        for entry in a + b {
            let field = HistoryField(entry)
            let replaced = field?.replaced ?? 0
            let same = field.flatMap { field in out.firstIndex { $0.password?.sameBytes(as: field.password) ?? false } }
            if let index = same {
                if replaced > out[index].replaced {
                    out[index] = (entry, field?.password, replaced)
                }
            } else {
                out.append((entry, field?.password, replaced))
            }
        }
        return out.sorted { x, y in
            if x.replaced != y.replaced { return x.replaced > y.replaced }
            return precedes(x.password ?? x.entry, y.password ?? y.entry)
        }.map(\.entry)
    }

    /// The order of two history entries of one date (SPEC.md §17.5), given their passwords:
    /// by the passwords' bytes. Not by the entries' bytes: in memory those carry format 1's
    /// framing, whose little-endian lengths order two passwords of different lengths
    /// otherwise than the entries' bytes in the file (format 2's varints) would, and an
    /// application shows the same order (``visibleHistory(_:)``).
    private static func precedes(_ x: SecretFragment, _ y: SecretFragment) -> Bool {
        x.source.withUnsafeBytes { xb in y.source.withUnsafeBytes { yb in xb[x.range].lexicographicallyPrecedes(yb[y.range]) } }
    }

    // MARK: Local edits

    /// The clock of a new item whose first edit, `stamp`, wrote every register in `registers`,
    /// and every unkeyed register (those without a value written empty): every version of
    /// an item has seen its creation, so an empty register stamped then merges as one never
    /// written, and the item's stamps are then implied by its version vector (SPEC.md §7.6).
    static func clock(ofNewItem registers: some Sequence<Register>, stamp: Stamp) -> ItemClock {
        var stamps: [Register: Stamp] = [:]
        for register in Register.all where !register.isKeyed { stamps[register] = stamp }
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
                     resolvingConflicts: Bool = false, clearingHistory: Bool = false) throws(FormatError) -> ItemState {
        let read = base ?? current
        var out = current
        // Every value and history entry the edit has that is not erased is confirmed by it
        // (SPEC.md §17.5): its confirmation becomes the default.
        out.clock.confirmations = [:]
        out.parts.historyConfirmations = [:]
        out.clock.erased = []
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
        // Clearing the history (SPEC.md §17.5): every entry the edit can see goes, and the
        // clear date (its stamp's, or a later entry's) keeps them gone in every merge; an
        // edit carries the latest clear date it has seen.
        out.parts.historyCleared = clearedUpTo(current.parts.historyCleared, new.historyCleared)
        if clearingHistory {
            let seen = (current.parts.history + read.parts.history + new.history).compactMap { HistoryField($0)?.replaced }
            out.parts.historyCleared = clearedUpTo(out.parts.historyCleared, max(stamp.milliseconds, seen.max() ?? .min))
        }
        if let cleared = out.parts.historyCleared {
            out.parts.history.removeAll { (HistoryField($0)?.replaced ?? .min) <= cleared }
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
                for value in out.clock.erased where value.register == register && seen[value.stamp] != nil {
                    out.clock.erased.remove(value)
                }
            } else {
                // A resolution drops the losing values it reviewed: those that had lost in
                // `base`. A value that won in `base` and has lost since, to one another writer
                // saved meanwhile, was not reviewed: it stays. An edit of other fields keeps
                // every losing value of this one.
                guard let winner = current.clock.stamps[register] else { continue }
                // A value another writer's deletion erased meanwhile that the edit had whole
                // comes back with its contents: the edit had it as current (SPEC.md §17.5).
                var values = values
                let had = read.values(of: register)
                for (stamp, value) in values {
                    guard case .erased = value, let kept = had[stamp] else { continue }
                    if case .erased = kept { continue }
                    values[stamp] = kept
                }
                let reviewed = Set(read.parts.conflicts.lazy.filter { $0.register == register }.map(\.stamp))
                // An edit of other fields keeps every losing value of this register, a
                // losing password too: it stays a conflict until resolved or its own field is
                // edited (issue 27, finding 13).
                // Clearing the history drops the losing passwords it showed there too.
                let dropsReviewed = resolvingConflicts || (clearingHistory && register == .password)
                let keep = dropsReviewed ? values.filter { !reviewed.contains($0.key) || $0.key == winner } : values
                guard let newWinner = Self.winner(of: keep), let value = keep[newWinner] else { continue }
                if case .erased = value, base != nil, let readWinner = read.clock.stamps[register], let mine = had[readWinner] {
                    // Every value erased, the edit's own replaced meanwhile by a write that a
                    // deletion erased since: the edit writes the value it had, stamped `stamp`,
                    // so that the item it brings back is the one it saw (SPEC.md §17.5).
                    switch mine {
                    case .erased, .none: break
                    case .overview, .secret:
                        try set(register, mine, in: &out.parts)
                        out.clock.stamps[register] = stamp
                        try out.keepLosing(values.filter { had[$0.key] == nil }, of: register, winner: stamp)
                        continue
                    }
                }
                out.clock.stamps[register] = newWinner
                try set(register, value, in: &out.parts)
                if case .erased = value { out.clock.erased.insert(ValueID(register: register, stamp: newWinner)) }
                try out.keepLosing(keep, of: register, winner: newWinner)
            }
        }
        out.compact()
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
        // Every value the item has was current for the deletion: erased (SPEC.md §17.5).
        out.becomeTombstone()
        out.compact()
        return out
    }

    /// An item's decoded secrets as the API shows them: passwords that lost a concurrent edit
    /// (among `conflicts`) appear in the password history, dated by their edit, in the order
    /// of ``visibleHistory(_:)``; one an edit already wrote into the history (it was shown
    /// there) is not shown twice.
    static func secretsView(_ secrets: ItemSecrets, losing conflicts: [ItemParts.Conflict]) throws(FormatError) -> ItemSecrets {
        var out = secrets
        for conflict in conflicts where conflict.register == .password {
            let lost = try conflict.value.copy().withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            guard let password = lost.password, !out.passwordHistory.contains(where: { $0.password == password }) else { continue }
            out.passwordHistory.append(PasswordHistoryEntry(password: password, replaced: Date(millisecondsSince1970: conflict.stamp.milliseconds)))
        }
        out.passwordHistory = visibleHistory(out.passwordHistory)
        return out
    }

    /// A history as applications see it (SPEC.md §17.5): each password once, at the latest
    /// date it was replaced, newest first, and among one date by the password's bytes. The
    /// record keeps every entry merges brought (a union, so that merging in any order gives
    /// the same record); the next edit writes this view back. Ties go by the bytes, not by
    /// where an entry came from: the losing passwords of a merge, appended after the record's
    /// entries, came after those of their date, which a reader from the spec could not know
    /// (found by the history merge vector).
    static func visibleHistory(_ entries: [PasswordHistoryEntry]) -> [PasswordHistoryEntry] {
        guard entries.count > 1 else { return entries }
        let ordered = entries.sorted { a, b in
            if a.replaced != b.replaced { return a.replaced > b.replaced }
            return a.password.withUnsafeBytes { x in b.password.withUnsafeBytes { y in x.lexicographicallyPrecedes(y) } }
        }
        var out: [PasswordHistoryEntry] = []
        for entry in ordered where !out.contains(where: { $0.password == entry.password }) {
            out.append(entry)
        }
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
        case .none, .erased:
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
        case .none, .erased: return try SecretFragment(copying: [])
        case .overview(let bytes): return try SecretFragment(copying: bytes)
        case .secret(let fragment):
            return fragment
        }
    }
}

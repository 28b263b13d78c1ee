import CofferCrypto
import CofferFormat
import Foundation

/// One version of an item as a merge sees it: its record, checked overview list and clock
/// (derived for an item written before clocks, SPEC.md §17.6).
struct ItemVersion: Sendable {
    let record: EntryRecord
    let overview: [UInt8]
    let clock: ItemClock
    /// Written before clocks: no clock fields in its overview.
    let isLegacy: Bool

    /// The record's digest is checked (SPEC.md §10, step 13): nothing is edited, merged or
    /// replayed from a record the manifest does not name.
    init(record: EntryRecord, overview: [UInt8]) throws(CofferError) {
        try formatCall { () throws(FormatError) in try record.checkDigest() }
        self.record = record
        self.overview = overview
        isLegacy = !ItemClockCodec.hasClock(overview)
        if let clock = try formatCall({ () throws(FormatError) in try ItemClockCodec.decode(overview: overview) }) {
            self.clock = clock
        } else {
            // Stamps are filled in once the parts are known (`withParts`); versions suffice to compare.
            clock = ItemClock.legacy(digest: record.digest, revision: record.revision, registers: [])
        }
    }

    /// The item's parts (its secret part decrypted), and its clock with every register
    /// stamped: a legacy item's valued registers get the legacy stamp.
    func parts(vaultID: [UInt8], keys: VaultKeys) throws(CofferError) -> (ItemParts, ItemClock) {
        let parts = try formatCall { () throws(FormatError) in
            try ItemParts(overview: overview, secrets: record.openSecretList(vaultID: vaultID, keys: keys))
        }
        guard isLegacy else { return (parts, clock.resolved(present: parts.valuedRegisters)) }
        return (parts, ItemClock.legacy(digest: record.digest, revision: record.revision, registers: parts.valuedRegisters))
    }
}

/// The merge of two versions of one item and the writing of a local edit, by the rules
/// of SPEC.md §17.5: every register is a multi-value register over the item's version
/// vector; the newest stamp wins and the concurrent values it beat are kept as conflicts.
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

    /// Which of two versions already holds everything the other does, if one does.
    /// Ties (same clock, different bytes: the same merge sealed twice) go to the higher
    /// revision, then to the lower digest, so every replica keeps the same record.
    static func dominant(_ a: ItemVersion, _ b: ItemVersion) -> ItemVersion? {
        if a.record.digest == b.record.digest { return a }
        let aCovers = a.clock.versions.dominates(b.clock.versions) && (a.clock.deleted ?? VersionVector()).dominates(b.clock.deleted ?? VersionVector())
        let bCovers = b.clock.versions.dominates(a.clock.versions) && (b.clock.deleted ?? VersionVector()).dominates(a.clock.deleted ?? VersionVector())
        switch (aCovers, bCovers) {
        case (true, false): return a
        case (false, true): return b
        case (true, true):
            if a.record.revision != b.record.revision { return a.record.revision > b.record.revision ? a : b }
            return a.record.digest.bytes.lexicographicallyPrecedes(b.record.digest.bytes) ? a : b
        case (false, false): return nil
        }
    }

    /// The join of two versions of one item: one of them when it already holds the other,
    /// else a new record at the higher revision + 1.
    static func merge(_ a: ItemVersion, _ b: ItemVersion, vaultID: [UInt8], keys: VaultKeys,
                      entropy: EntropySource) throws(CofferError) -> SealedItem {
        if let winner = dominant(a, b) { return SealedItem(record: winner.record, overview: winner.overview) }
        let (pa, ca) = try a.parts(vaultID: vaultID, keys: keys)
        let (pb, cb) = try b.parts(vaultID: vaultID, keys: keys)
        var clock = ItemClock(versions: ca.versions.merged(with: cb.versions), stamps: [:])
        if ca.deleted != nil || cb.deleted != nil {
            clock.deleted = (ca.deleted ?? VersionVector()).merged(with: cb.deleted ?? VersionVector())
        }
        var parts = pa
        parts.conflicts = []
        parts.order = []   // named fields by name: the same order whichever side merges
        parts.created = min(pa.created, pb.created)
        parts.modified = max(pa.modified, pb.modified)
        parts.history = mergedHistory(pa.history, pb.history)
        let registers = Set(ca.stamps.keys).union(cb.stamps.keys)
        for register in registers.sorted() {
            let sa = siblings(register, pa, ca), sb = siblings(register, pb, cb)
            // A value survives if the other side holds it too or has not seen it.
            var kept: [Stamp: Value] = [:]
            for (stamp, value) in sa where sb[stamp] != nil || !cb.versions.covers(stamp) { kept[stamp] = value }
            for (stamp, value) in sb where kept[stamp] == nil && (sa[stamp] != nil || !ca.versions.covers(stamp)) { kept[stamp] = value }
            if kept.isEmpty {
                // Only a faulty writer's clocks get here; keep every value rather than none.
                kept = sa.merging(sb) { first, _ in first }
            }
            let ordered = kept.keys.sorted()
            guard let winner = ordered.last, let value = kept[winner] else { continue }
            clock.stamps[register] = winner
            try set(register, value, in: &parts)
            for loser in ordered.dropLast() {
                clock.siblings[register, default: []].append(loser)
                parts.conflicts.append(ItemParts.Conflict(register: register, stamp: loser, value: try fragment(kept[loser] ?? .none)))
            }
        }
        return try seal(id: a.record.id, revision: max(a.record.revision, b.record.revision) + 1, parts: parts, clock: clock,
                        vaultID: vaultID, keys: keys, entropy: entropy)
    }

    /// A register's values in one version: the winner and the losing ones, by stamp.
    private static func siblings(_ register: Register, _ parts: ItemParts, _ clock: ItemClock) -> [Stamp: Value] {
        var out: [Stamp: Value] = [:]
        if let stamp = clock.stamps[register] { out[stamp] = value(register, parts) }
        for conflict in parts.conflicts where conflict.register == register { out[conflict.stamp] = .secret(conflict.value) }
        return out
    }

    static func value(_ register: Register, _ parts: ItemParts) -> Value {
        if register.isSecret { return parts.secrets[register].map { .secret($0) } ?? .none }
        return parts.overview[register].map { .overview($0) } ?? .none
    }

    /// Puts a register's value (its fields) into `parts`.
    static func set(_ register: Register, _ value: Value, in parts: inout ItemParts) throws(CofferError) {
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
    static func fragment(_ value: Value) throws(CofferError) -> SecretFragment {
        switch value {
        case .none:
            return SecretFragment(source: try SecureBytes(count: 0) { _ in }, range: 0..<0)
        case .overview(let bytes):
            let copy = try SecureBytes(count: bytes.count) { $0.copyBytes(from: bytes) }
            return SecretFragment(source: copy, range: 0..<bytes.count)
        case .secret(let fragment):
            return fragment
        }
    }

    /// History entries of both: each password once, at the latest date either side
    /// replaced it, newest first (then by bytes). A union (of the map password -> date), so
    /// the order of merges does not matter.
    static func mergedHistory(_ a: [SecretFragment], _ b: [SecretFragment]) -> [SecretFragment] {
        var out: [(entry: SecretFragment, replaced: Int64)] = []
        for entry in a + b {
            let replaced = replacedDate(of: entry)
            if let index = out.firstIndex(where: { samePassword($0.entry, entry) }) {
                if replaced > out[index].replaced || (replaced == out[index].replaced && precedes(entry, out[index].entry)) {
                    out[index] = (entry, replaced)
                }
            } else {
                out.append((entry, replaced))
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

    /// Whether two history fields hold the same password: a history field is a 6-byte
    /// header, then the nested password field (6-byte header and the bytes), then the date.
    private static func samePassword(_ x: SecretFragment, _ y: SecretFragment) -> Bool {
        func password(_ f: SecretFragment) -> SecretFragment? {
            guard f.range.count >= 12 else { return nil }
            let length = f.source.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: f.range.lowerBound + 8, as: UInt32.self))) }
            guard length <= f.range.count - 12 else { return nil }
            return SecretFragment(source: f.source, range: (f.range.lowerBound + 12)..<(f.range.lowerBound + 12 + length))
        }
        guard let px = password(x), let py = password(y) else { return false }
        return px.sameBytes(as: py)
    }

    /// The replaced date of a history field (its last 8 bytes: tag 2, length 8, i64).
    private static func replacedDate(of entry: SecretFragment) -> Int64 {
        guard entry.range.count >= 8 else { return 0 }
        return entry.source.withUnsafeBytes { raw in
            Int64(littleEndian: raw.loadUnaligned(fromByteOffset: entry.range.upperBound - 8, as: Int64.self))
        }
    }

    static func seal(id: ItemID, revision: UInt64, parts: ItemParts, clock: ItemClock, vaultID: [UInt8], keys: VaultKeys,
                     entropy: EntropySource, check: Bool = true) throws(CofferError) -> SealedItem {
        try formatCall { () throws(FormatError) in
            let overview = try parts.overviewList(clock: clock)
            let secrets = try parts.secretList()
            // What is sealed is read back first: a list cut and put together again is never
            // written unless a reader would accept it (the overview is checked as it is built).
            if check {
                _ = try secrets.secureBytes().withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            }
            let record = try EntryRecord.seal(id: id, revision: revision, overview: overview, secrets: secrets,
                                              vaultID: vaultID, keys: keys, entropy: entropy)
            return SealedItem(record: record, overview: overview)
        }
    }
}

// MARK: Local edits

extension ItemMerge {
    /// A new item written by one edit stamped `stamp`.
    ///
    /// Sealed straight from the encoders, with no decrypted copy of the secrets to cut into
    /// registers: adding many items (an import) costs one guarded buffer per item.
    static func add(id: ItemID, attributes: ItemAttributes, secrets: ItemSecrets, stamp: Stamp, vaultID: [UInt8],
                    keys: VaultKeys, entropy: EntropySource) throws(CofferError) -> SealedItem {
        try formatCall { () throws(FormatError) in
            try EntryCodec.checkDates(attributes, secrets)
            var overview = EntryCodec.encodeOverview(attributes).publicBytes
            let present = try ItemParts.registers(ofOverview: overview).union(ItemParts.registers(of: secrets))
            var stamps: [Register: Stamp] = [:]
            for register in present { stamps[register] = stamp }
            let clock = ItemClock(versions: VersionVector([stamp.replica: stamp.time]), stamps: stamps)
            overview += try ItemClockCodec.encode(clock, present: present)
            let record = try EntryRecord.seal(id: id, revision: 1, overview: overview, secrets: EntryCodec.encodeSecrets(secrets),
                                              vaultID: vaultID, keys: keys, entropy: entropy)
            return SealedItem(record: record, overview: overview)
        }
    }

    /// A local edit that turned `base` into `attributes` and `secrets`, applied to `current`
    /// (the same version, unless another writer saved the item since `base` was read).
    ///
    /// Registers whose value the edit changed take it, stamped `stamp`; values another
    /// writer gave them meanwhile stay as conflicts. Losing passwords were offered to the
    /// edit as history (``secretsView``), so they leave the conflicts; with
    /// `resolvingConflicts`, every other losing value does too.
    static func edit(current: ItemVersion, base: ItemVersion, attributes: ItemAttributes, secrets: ItemSecrets,
                     stamp: Stamp, resolvingConflicts: Bool = false, vaultID: [UInt8], keys: VaultKeys,
                     entropy: EntropySource) throws(CofferError) -> SealedItem {
        try edit(current: current, base: base, new: try newParts(attributes, secrets), stamp: stamp,
                 resolvingConflicts: resolvingConflicts, vaultID: vaultID, keys: keys, entropy: entropy)
    }

    /// ``edit(current:base:attributes:secrets:stamp:resolvingConflicts:vaultID:keys:entropy:)``
    /// with the edit's result as parts (a staged record, made again on a newer version).
    static func edit(current: ItemVersion, base: ItemVersion, new: ItemParts, stamp: Stamp,
                     resolvingConflicts: Bool, vaultID: [UInt8], keys: VaultKeys,
                     entropy: EntropySource) throws(CofferError) -> SealedItem {
        let (pc, cc) = try current.parts(vaultID: vaultID, keys: keys)
        let same = current.record.digest == base.record.digest
        let (pb, cb) = same ? (pc, cc) : try base.parts(vaultID: vaultID, keys: keys)
        var parts = pc
        var clock = cc
        clock.versions.include(stamp)
        // The edit's order of named fields, then any another writer added meanwhile.
        let edited = Set(new.order)
        parts.order = new.order + pc.order.filter { !edited.contains($0) }
        parts.created = new.created
        parts.modified = same ? new.modified : max(new.modified, pc.modified)
        // Entries another writer added meanwhile are kept; the edit's own list otherwise.
        let othersHistory = pc.history.filter { entry in !pb.history.contains { $0.sameBytes(as: entry) } }
        parts.history = same ? new.history : mergedHistory(new.history, othersHistory)
        parts.conflicts = []
        clock.siblings = [:]
        let registers = Set(new.valuedRegisters).union(pb.valuedRegisters).union(cb.stamps.keys).union(cc.stamps.keys)
        for register in registers.sorted() {
            let mine = value(register, new)
            let current = siblings(register, pc, cc)
            let based = Set(siblings(register, pb, cb).keys)
            // Values of the register the edit never saw: another writer's, concurrent with it.
            let unseen = current.filter { !based.contains($0.key) }
            if !mine.sameBytes(as: value(register, pb)) {
                try set(register, mine, in: &parts)
                clock.stamps[register] = stamp
                for (loser, loserValue) in unseen.sorted(by: { $0.key < $1.key }) {
                    clock.siblings[register, default: []].append(loser)
                    parts.conflicts.append(ItemParts.Conflict(register: register, stamp: loser, value: try fragment(loserValue)))
                }
            } else {
                // Losing passwords were offered to the edit as history, and a resolution drops
                // the losing values it reviewed: those that had lost in `base` leave the
                // conflicts. A value that won in `base` and has lost since, to one another
                // writer saved meanwhile, was neither offered nor reviewed: it stays.
                let reviewed = Set(pb.conflicts.lazy.filter { $0.register == register }.map(\.stamp))
                let keep = (register == .password || resolvingConflicts) ? current.filter { !reviewed.contains($0.key) } : current
                guard let winner = cc.stamps[register] else { continue }
                for (loser, loserValue) in keep.sorted(by: { $0.key < $1.key }) where loser != winner {
                    clock.siblings[register, default: []].append(loser)
                    parts.conflicts.append(ItemParts.Conflict(register: register, stamp: loser, value: try fragment(loserValue)))
                }
            }
        }
        return try seal(id: current.record.id, revision: current.record.revision + 1, parts: parts, clock: clock,
                        vaultID: vaultID, keys: keys, entropy: entropy)
    }

    /// The tombstone of `current` (SPEC.md §17.5): the item as it is, with a deletion that
    /// has seen it. Nil when another writer edited the item after `base`, the version the
    /// deletion was asked on: a concurrent edit wins over a deletion. What another writer
    /// saved that is no such edit (a deletion of the item, a merge of versions the deletion
    /// had seen) does not undo the deletion.
    static func delete(current: ItemVersion, base: ItemVersion, stamp: Stamp, vaultID: [UInt8], keys: VaultKeys,
                       entropy: EntropySource) throws(CofferError) -> SealedItem? {
        if current.record.digest != base.record.digest, current.clock.versions != base.clock.versions {
            // Every edit `current` has beyond `base` must have been seen by a deletion already.
            let deleted = current.clock.deleted ?? VersionVector()
            let unseenEdit = current.clock.versions.times.contains { replica, time in
                time > base.clock.versions[replica] && time > deleted[replica]
            }
            if unseenEdit { return nil }
        }
        let (parts, stamped) = try current.parts(vaultID: vaultID, keys: keys)
        var clock = stamped
        clock.versions.include(stamp)
        clock.deleted = (clock.deleted ?? VersionVector()).merged(with: clock.versions)
        return try seal(id: current.record.id, revision: current.record.revision + 1, parts: parts, clock: clock,
                        vaultID: vaultID, keys: keys, entropy: entropy)
    }

    private static func newParts(_ attributes: ItemAttributes, _ secrets: ItemSecrets) throws(CofferError) -> ItemParts {
        try formatCall { () throws(FormatError) in
            try EntryCodec.checkDates(attributes, secrets)
            return try ItemParts(overview: EntryCodec.encodeOverview(attributes).publicBytes,
                                 secrets: EntryCodec.encodeSecrets(secrets).secureBytes())
        }
    }

    /// An item's secrets as the API shows them: passwords that lost a concurrent edit
    /// appear in the password history (dated by their edit), newest first.
    static func secretsView(of version: ItemVersion, vaultID: [UInt8], keys: VaultKeys) throws(CofferError) -> ItemSecrets {
        var secrets = try formatCall { () throws(FormatError) in try version.record.openSecrets(vaultID: vaultID, keys: keys) }
        guard ItemClockCodec.hasSiblings(version.overview) else { return secrets }
        let (parts, _) = try version.parts(vaultID: vaultID, keys: keys)
        for conflict in parts.conflicts where conflict.register == .password {
            let lost = try formatCall { () throws(FormatError) in
                try conflict.value.copy().withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            }
            guard let password = lost.password else { continue }
            secrets.passwordHistory.append(PasswordHistoryEntry(password: password, replaced: Date(millisecondsSince1970: conflict.stamp.milliseconds)))
        }
        secrets.passwordHistory.sort { $0.replaced > $1.replaced }
        return secrets
    }
}

import CofferCrypto

/// Encoded fields cut from a decrypted secret list: the guarded buffer and where they are.
/// Nothing is copied until a new list is assembled from fragments.
package struct SecretFragment: Sendable {
    package let source: SecureBytes
    package let range: Range<Int>

    package init(source: SecureBytes, range: Range<Int>) {
        self.source = source
        self.range = range
    }

    /// A fragment of its own guarded buffer holding a copy of `bytes` (none: an empty value).
    package init(copying bytes: [UInt8]) throws(FormatError) {
        source = try crypto { () throws(CofferError) in try SecureBytes(count: bytes.count) { $0.copyBytes(from: bytes) } }
        range = 0..<bytes.count
    }

    /// The bytes of `ranges` of `source`, one after another, in a guarded buffer of their own.
    package init(joining ranges: [Range<Int>], of source: SecureBytes) throws(FormatError) {
        let count = ranges.reduce(0) { $0 + $1.count }
        self.source = try crypto { () throws(CofferError) in
            try SecureBytes(count: count) { buffer in
                source.withUnsafeBytes { from in
                    var offset = 0
                    for range in ranges {
                        UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + range.count)])
                            .copyMemory(from: UnsafeRawBufferPointer(rebasing: from[range]))
                        offset += range.count
                    }
                }
            }
        }
        range = 0..<count
    }

    /// The fragment's bytes, copied into their own guarded buffer.
    package func copy() throws(FormatError) -> SecureBytes {
        try crypto { () throws(CofferError) in try source.slice(range) }
    }

    /// Whether two fragments hold the same bytes (constant time for equal lengths).
    package func sameBytes(as other: SecretFragment) -> Bool {
        guard range.count == other.range.count else { return false }
        return source.withUnsafeBytes { a in
            other.source.withUnsafeBytes { b in
                ConstantTime.equals(UnsafeRawBufferPointer(rebasing: a[range]), UnsafeRawBufferPointer(rebasing: b[other.range]))
            }
        }
    }
}

/// An entry's two field lists cut into registers (SPEC.md §17.2), so that a merge or a
/// write can take each register's fields from where they win, and put the lists back
/// together in tag order. Syntax only: which value wins is decided above this layer.
package struct ItemParts: Sendable {
    /// Each overview register's fields, encoded; a register without fields is absent.
    package var overview: [Register: [UInt8]]
    package var created: Int64
    package var modified: Int64
    /// Each secret register's fields.
    package var secrets: [Register: SecretFragment]
    /// Each history entry (a whole history field).
    package var history: [SecretFragment]
    /// Values that lost a concurrent edit.
    package var conflicts: [Conflict]
    /// For history entries (by position in ``history``) last present in a state that had
    /// seen less than the item: that state's vector (format 2, SPEC.md §17.3).
    package var historyConfirmations: [Int: VersionVector] = [:]
    /// The date (milliseconds since 1970) up to which the password history was cleared
    /// (SPEC.md §17.5): no entry replaced then or before is kept, whichever copy has it.
    package var historyCleared: Int64?
    /// The order of the named fields (custom fields, secret fields, attachments) as the
    /// list had them: a list is written back in this order, then any other named fields
    /// by name. A merge that builds a new list empties it, so that every replica writes
    /// the same order.
    package var order: [Register] = []

    /// A losing value: register, stamp, and the register's fields as that edit left them.
    package struct Conflict: Sendable {
        package var register: Register
        package var stamp: Stamp
        package var value: SecretFragment

        package init(register: Register, stamp: Stamp, value: SecretFragment) {
            self.register = register
            self.stamp = stamp
            self.value = value
        }
    }

    private init(overview: [Register: [UInt8]], created: Int64, modified: Int64, secrets: [Register: SecretFragment],
                 history: [SecretFragment], conflicts: [Conflict]) {
        self.overview = overview
        self.created = created
        self.modified = modified
        self.secrets = secrets
        self.history = history
        self.conflicts = conflicts
    }

    /// Cuts a checked overview list and a checked secret list (unpadded plaintext).
    package init(overview list: [UInt8], secrets: SecureBytes) throws(FormatError) {
        overview = [:]
        created = 0
        modified = 0
        self.secrets = [:]
        history = []
        conflicts = []
        // A register's fields, in list order: consecutive, except an unknown register's
        // field of tag 0, which comes first in the list.
        var cuts: [Register: [Range<Int>]] = [:]
        try list.withBytes { (raw) throws(FormatError) in
            var reader = FieldReader(raw, structure: "overview") { _ in true }
            var occurrences: [[UInt8]: UInt32] = [:]
            while let (tag, value) = try reader.next() {
                let field = (value.lowerBound - 6)..<value.upperBound
                if tag == EntryCodec.OverviewTag.created { created = try EntryCodec.date(reader, value, "overview: created") }
                else if tag == EntryCodec.OverviewTag.modified { modified = try EntryCodec.date(reader, value, "overview: modified") }
                else if let family = Register.ofOverviewTag(tag) {
                    let register = try Self.register(family, field: field, in: raw, occurrences: &occurrences)
                    if register.isKeyed { order.append(register) }
                    cuts[register, default: []].append(field)
                }
            }
        }
        for (register, ranges) in cuts { overview[register] = ranges.flatMap { list[$0] } }
        var secretCuts: [Register: [Range<Int>]] = [:]
        var historyCuts: [Range<Int>] = []
        var conflictCuts: [(Register, Stamp, Range<Int>)] = []
        try secrets.withUnsafeBytes { (raw) throws(FormatError) in
            var reader = FieldReader(raw, structure: "secret") { _ in true }
            var occurrences: [[UInt8]: UInt32] = [:]
            while let (tag, value) = try reader.next() {
                let field = (value.lowerBound - 6)..<value.upperBound
                if tag == EntryCodec.SecretTag.history {
                    historyCuts.append(field)
                } else if tag == ItemClockCodec.Tag.historyConfirmations {
                    historyConfirmations = try ItemClockCodec.decodeHistoryConfirmations(
                        UnsafeRawBufferPointer(rebasing: raw[value]), historyCount: historyCuts.count)
                } else if tag == ItemClockCodec.Tag.historyCleared {
                    historyCleared = try EntryCodec.date(reader, value, "secret: history cleared")
                } else if tag == ItemClockCodec.Tag.conflict {
                    let conflict = try ItemClockCodec.decodeConflictRange(reader.nested(value, "conflict"))
                    // The nested reader counts from the start of the field's value.
                    let shift = value.lowerBound
                    conflictCuts.append((conflict.register, conflict.stamp, (conflict.value.lowerBound + shift)..<(conflict.value.upperBound + shift)))
                } else if let family = Register.ofSecretTag(tag) {
                    let register = try Self.register(family, field: field, in: raw, occurrences: &occurrences)
                    if register.isKeyed { order.append(register) }
                    secretCuts[register, default: []].append(field)
                }
            }
        }
        for (register, ranges) in secretCuts {
            guard let first = ranges.first, let last = ranges.last else { continue }
            if ranges.count > 1, ranges[1].lowerBound != first.upperBound {
                // Tag 0 and the other unknown secrets, apart in the list: one value, copied.
                self.secrets[register] = try SecretFragment(joining: ranges, of: secrets)
            } else {
                self.secrets[register] = SecretFragment(source: secrets, range: first.lowerBound..<last.upperBound)
            }
        }
        history = historyCuts.map { SecretFragment(source: secrets, range: $0) }
        conflicts = conflictCuts.map { Conflict(register: $0.0, stamp: $0.1, value: SecretFragment(source: secrets, range: $0.2)) }
    }

    /// The register of one field: its family, or for a named field the family keyed by its
    /// name and how many fields of that name came before it.
    private static func register(_ family: Register, field: Range<Int>, in raw: UnsafeRawBufferPointer,
                                 occurrences: inout [[UInt8]: UInt32]) throws(FormatError) -> Register {
        guard family.isKeyed else { return family }
        guard let name = pairName(UnsafeRawBufferPointer(rebasing: raw[field])) else { throw .malformed("named field without a name") }
        let seen = [family.code] + name
        let occurrence = occurrences[seen, default: 0]
        occurrences[seen] = occurrence + 1
        return Register.keyed(family.code, name: name, occurrence: occurrence)
    }

    /// The length of the field of tag 0 that starts `fields` (a register's checked fields),
    /// 0 when they do not start with one.
    static func leadingTagZero(_ fields: some Collection<UInt8>) -> Int {
        let bytes = Array(fields.prefix(6))
        guard bytes.count == 6, bytes[0] == 0, bytes[1] == 0 else { return 0 }
        let length = Int(bytes[2]) | Int(bytes[3]) << 8 | Int(bytes[4]) << 16 | Int(bytes[5]) << 24
        return min(fields.count, 6 + length)
    }

    static func leadingTagZero(_ fields: UnsafeRawBufferPointer) -> Int {
        guard fields.count >= 6, fields[0] == 0, fields[1] == 0 else { return 0 }
        let length = Int(UInt32(littleEndian: fields.loadUnaligned(fromByteOffset: 2, as: UInt32.self)))
        return min(fields.count, 6 + length)
    }

    /// The name of a pair field (a whole field: header, then the nested name field first).
    static func pairName(_ field: UnsafeRawBufferPointer) -> [UInt8]? {
        guard field.count >= 12 else { return nil }
        let length = Int(UInt32(littleEndian: field.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
        guard length <= field.count - 12 else { return nil }
        return Array(field[12..<(12 + length)])
    }

    /// Registers in the order their fields are written: by code; named fields in `order`,
    /// then the others by name (then key), so that every replica writes the same list.
    private func ordered(_ registers: some Sequence<Register>, name: (Register) -> [UInt8]) -> [Register] {
        var position: [Register: Int] = [:]
        for (i, register) in order.enumerated() where position[register] == nil { position[register] = i }
        return registers.map { ($0, position[$0] ?? Int.max, $0.isKeyed ? name($0) : []) }.sorted { a, b in
            if a.0.code != b.0.code { return a.0.code < b.0.code }
            if a.1 != b.1 { return a.1 < b.1 }
            if a.2 != b.2 { return a.2.lexicographicallyPrecedes(b.2) }
            return a.0.key < b.0.key
        }.map(\.0)
    }

    /// The registers an encoded overview list gives a value (its named fields keyed).
    package static func registers(ofOverview list: [UInt8]) throws(FormatError) -> Set<Register> {
        try list.withBytes { (raw) throws(FormatError) -> Set<Register> in
            var reader = FieldReader(raw, structure: "overview") { _ in true }
            var occurrences: [[UInt8]: UInt32] = [:]
            var out = Set<Register>()
            while let (tag, value) = try reader.next() {
                guard let family = Register.ofOverviewTag(tag) else { continue }
                out.insert(try register(family, field: (value.lowerBound - 6)..<value.upperBound, in: raw, occurrences: &occurrences))
            }
            return out
        }
    }

    /// The registers a checked secret list gives a value (its named fields keyed).
    package static func registers(ofSecretList raw: UnsafeRawBufferPointer) throws(FormatError) -> Set<Register> {
        var reader = FieldReader(raw, structure: "secret") { _ in true }
        var occurrences: [[UInt8]: UInt32] = [:]
        var out = Set<Register>()
        while let (tag, value) = try reader.next() {
            guard let family = Register.ofSecretTag(tag) else { continue }
            out.insert(try register(family, field: (value.lowerBound - 6)..<value.upperBound, in: raw, occurrences: &occurrences))
        }
        return out
    }

    /// The registers `secrets` give a value, named as when their list is cut (no copy of a secret).
    package static func registers(of secrets: ItemSecrets) -> Set<Register> {
        var out = Set<Register>()
        if secrets.password != nil { out.insert(.password) }
        if secrets.notes != nil { out.insert(.notes) }
        if !secrets.preservedFields.isEmpty { out.insert(.unknownSecret) }
        var occurrences: [[UInt8]: UInt32] = [:]
        func named(_ code: UInt8, _ name: String) {
            let key = [code] + Array(name.utf8)
            let occurrence = occurrences[key, default: 0]
            occurrences[key] = occurrence + 1
            out.insert(Register.keyed(code, name: Array(name.utf8), occurrence: occurrence))
        }
        for field in secrets.fields { named(Register.secretFields.code, field.name) }
        for attachment in secrets.attachments { named(Register.attachments.code, attachment.name) }
        return out
    }

    /// The name of a named field's register (custom field, secret field, attachment), from
    /// any value this item holds for it: its own, or a losing one. Nil for a register that is
    /// not keyed, or when no value names it (every value is a removal). A name is no secret:
    /// it is copied out of the secret part.
    package func fieldName(of register: Register) -> String? {
        guard register.isKeyed else { return nil }
        func name(_ bytes: UnsafeRawBufferPointer) -> String? {
            Self.pairName(bytes).map { String(decoding: $0, as: UTF8.self) }
        }
        if let fields = overview[register], let found = fields.withUnsafeBytes(name) { return found }
        let values = [secrets[register]].compactMap { $0 } + conflicts.filter { $0.register == register }.map(\.value)
        for value in values where !value.range.isEmpty {
            if let found = value.source.withUnsafeBytes({ name(UnsafeRawBufferPointer(rebasing: $0[value.range])) }) { return found }
        }
        return nil
    }

    /// The rules of SPEC.md §17.3 that need both parts (format 2 checks them when it reads
    /// a record's secret part): every register with a value has a stamp; an erased winner
    /// has no value; each sibling that is not erased has exactly one conflict field, and
    /// each conflict field is such a sibling; each history confirmation is below the item's
    /// version vector. `clock` nil: an entry without merge fields (format 1), which holds
    /// no conflict field. Anything else is "malformed". Checked whenever a secret part is
    /// opened (reading secrets, a merge, an edit, a full check), never ignored.
    package func checkConsistency(with clock: ItemClock?) throws(FormatError) {
        guard let clock else {
            guard conflicts.isEmpty else { throw .malformed("entry: a conflict field in an entry without merge fields") }
            return
        }
        let valued = valuedRegisters
        let resolved = clock.resolved(present: valued)
        for register in valued where resolved.stamps[register] == nil {
            throw .malformed("entry: register \(register.code) has a value and no stamp")
        }
        for value in clock.erased where resolved.stamps[value.register] == value.stamp && valued.contains(value.register) {
            throw .malformed("entry: register \(value.register.code)'s erased value is still there")
        }
        var expected = Set<ValueID>()
        for (register, stamps) in clock.siblings {
            // The winner is the value of largest stamp not erased, or, every value erased,
            // of largest stamp (SPEC.md §17.5).
            let winner = resolved.stamps[register]
            let winnerErased = clock.isDeleted || winner.map { clock.erased.contains(ValueID(register: register, stamp: $0)) } ?? true
            for stamp in stamps {
                let value = ValueID(register: register, stamp: stamp)
                let erased = clock.isDeleted || clock.erased.contains(value)
                let beatsWinner = winner.map { stamp > $0 } ?? true
                if erased ? (winnerErased && beatsWinner) : (winnerErased || beatsWinner) {
                    throw .malformed("entry: register \(register.code)'s winner is not its newest value that is not erased")
                }
                if !erased { expected.insert(value) }
            }
        }
        var found = Set<ValueID>()
        for conflict in conflicts {
            let value = ValueID(register: conflict.register, stamp: conflict.stamp)
            guard expected.contains(value), found.insert(value).inserted else {
                throw .malformed("entry: a conflict field for register \(conflict.register.code) that is not one of its siblings, or twice")
            }
        }
        guard found == expected else { throw .malformed("entry: a sibling without its conflict field") }
        for vector in historyConfirmations.values
        where !clock.versions.dominates(vector) || vector.above(clock.deleted) != vector || vector == clock.defaultConfirmation {
            throw .malformed("entry: a history confirmation outside the item's version vector, not above its deletion vector, or the default")
        }
        if let historyCleared, history.contains(where: { (HistoryField($0)?.replaced ?? .min) <= historyCleared }) {
            throw .malformed("entry: a password history entry replaced before the history was cleared")
        }
    }

    /// The registers that hold at least one field.
    package var valuedRegisters: [Register] {
        Array(overview.keys) + secrets.keys.filter { !(secrets[$0]?.range.isEmpty ?? true) }
    }

    /// The overview list: registers in tag order, the dates, then the clock's fields; for a
    /// deleted item, its tombstone's (``tombstoneList(clock:)``).
    /// `keepingDeletedContents`: a deleted item's whole list, as format 1 kept it.
    package func overviewList(clock: ItemClock, keepingDeletedContents: Bool = false) throws(FormatError) -> [UInt8] {
        if clock.isDeleted && !keepingDeletedContents { return try tombstoneList(clock: clock) }
        let list = assembledOverview(then: try ItemClockCodec.encode(clock, present: Set(valuedRegisters)))
        try EntryCodec.validateOverview(list)
        return list
    }

    /// A tombstone's overview list (SPEC.md §7.6): the dates and the clock, every value of
    /// which a deletion erased; nothing else.
    package func tombstoneList(clock: ItemClock) throws(FormatError) -> [UInt8] {
        var stamped = clock.resolved(present: valuedRegisters)
        stamped.deleted = stamped.versions
        stamped.erased = []
        stamped.confirmations = [:]   // every value is erased: none has a confirmation
        var out = FieldList()
        out.field(EntryCodec.OverviewTag.created, i64: created)
        out.field(EntryCodec.OverviewTag.modified, i64: modified)
        out.raw(try ItemClockCodec.encode(stamped, present: [], style: .version2))
        return out.publicBytes
    }

    /// The overview registers in tag order with the dates in their place (tags 13 and 14), then `tail`.
    private func assembledOverview(then tail: [UInt8] = []) -> [UInt8] {
        var out = FieldList()
        let T = EntryCodec.OverviewTag.self
        let registers = ordered(overview.keys) { r in
            overview[r].flatMap { bytes in bytes.withUnsafeBytes { Self.pairName($0) } } ?? []
        }
        // An unknown attribute of tag 0 comes first; the other unknown ones after tag 15.
        var unknown = overview[.unknownOverview] ?? []
        let zero = Self.leadingTagZero(unknown)
        out.raw(Array(unknown.prefix(zero)))
        unknown.removeFirst(zero)
        for register in registers where UInt16(register.code) < T.created { out.raw(overview[register] ?? []) }
        out.field(T.created, i64: created)
        out.field(T.modified, i64: modified)
        for register in registers where UInt16(register.code) > T.modified {
            out.raw(register == .unknownOverview ? unknown : overview[register] ?? [])
        }
        out.raw(tail)
        return out.publicBytes
    }

    /// The secret list: registers and history in tag order, then the losing values.
    package func secretList() throws(FormatError) -> FieldList {
        var out = FieldList()
        let registers = ordered(secrets.keys) { r in
            secrets[r].flatMap { f in f.source.withUnsafeBytes { Self.pairName(UnsafeRawBufferPointer(rebasing: $0[f.range])) } } ?? []
        }
        // An unknown secret of tag 0 comes first; the other unknown ones after tag 5.
        var unknown = secrets[.unknownSecret]
        if let f = unknown {
            let zero = f.source.withUnsafeBytes { Self.leadingTagZero(UnsafeRawBufferPointer(rebasing: $0[f.range])) }
            out.raw(SecretFragment(source: f.source, range: f.range.lowerBound..<(f.range.lowerBound + zero)))
            unknown = SecretFragment(source: f.source, range: (f.range.lowerBound + zero)..<f.range.upperBound)
        }
        for register in registers where register.code < 0x84 { if let f = secrets[register] { out.raw(f) } }
        for entry in history { out.raw(entry) }
        for register in registers where register.code > 0x84 {
            if let f = register == .unknownSecret ? unknown : secrets[register] { out.raw(f) }
        }
        for conflict in conflicts.sorted(by: { ($0.register, $0.stamp.replica, $0.stamp.time) < ($1.register, $1.stamp.replica, $1.stamp.time) }) {
            out.append(try ItemClockCodec.encodeConflict(conflict))
        }
        out.append(ItemClockCodec.encodeHistoryConfirmations(historyConfirmations.filter { $0.key < history.count }))
        if let historyCleared { out.field(ItemClockCodec.Tag.historyCleared, i64: historyCleared) }
        return out
    }

    /// The attributes that hold only `fields`, the value of overview register `register`
    /// (with kind generic password unless the register is the kind, and dates of 1970).
    package static func attributes(of register: Register, fields: [UInt8]) throws(FormatError) -> ItemAttributes {
        var parts = ItemParts(overview: [:], created: 0, modified: 0, secrets: [:], history: [], conflicts: [])
        parts.overview[.kind] = [1, 0, 1, 0, 0, 0, 1]   // tag 1, length 1, generic password
        parts.overview[register] = fields.isEmpty ? nil : fields
        return try EntryCodec.decodeOverview(parts.assembledOverview())
    }
}

import CofferCrypto

/// The merge metadata fields of an entry (SPEC.md §17.3): critical overview fields and
/// the critical secret field holding the values that lost a concurrent edit. They are
/// critical (tags 0x8010 and up) so that a reader from before merging refuses such an
/// entry instead of writing it back with a clock that no longer matches its values.
///
/// The values here are in the encoding of format 2 (SPEC.md §17.3: replica indices and
/// times as varints, times counted back from the version vector), which is also how a
/// decrypted list holds them in memory whatever the file's version: a version-1 record's
/// fields are converted when it is opened and back when it is sealed (``V1ClockFields``).
package enum ItemClockCodec {
    enum Tag {
        /// Overview: the version vector, `n × (replica u64, time u64)`, replicas ascending.
        static let versions: UInt16 = 0x8010
        /// Overview: the default stamp, the mask of registers it stamps, then explicit stamps.
        static let stamps: UInt16 = 0x8011
        /// Overview: stamps of losing values.
        static let siblings: UInt16 = 0x8012
        /// Overview: what the deletion had seen.
        static let deleted: UInt16 = 0x8013
        /// Overview (format 2): values last current in a state that had seen less than the item.
        static let confirmations: UInt16 = 0x8014
        /// Overview (format 2): values whose contents a deletion erased.
        static let erased: UInt16 = 0x8015
        /// Secret part: one losing value (repeatable).
        static let conflict: UInt16 = 0x8010
        /// Secret part (format 2): history entries last present in a state that had seen less.
        static let historyConfirmations: UInt16 = 0x8011
        /// Secret part (format 2): the date up to which the password history was cleared.
        static let historyCleared: UInt16 = 0x8012
        static let overview: ClosedRange<UInt16> = versions...erased
        /// The overview fields a version-1 list may have.
        static let overviewV1: ClosedRange<UInt16> = versions...deleted
    }

    enum ConflictTag { static let register: UInt16 = 1, key: UInt16 = 2, replica: UInt16 = 3, time: UInt16 = 4, value: UInt16 = 5 }

    /// Most replicas one item's clock may name (SPEC.md §9): 256 KiB of version vector.
    package static let maxReplicas = ItemClock.maxReplicas
    static let entryLength = 16
    /// The largest register mask: one bit per register of SPEC.md §17.2.
    static var maxMask: UInt64 { (1 << UInt64(Register.all.count)) - 1 }

    /// Where the clock fields of one overview are.
    struct Ranges {
        var versions: Range<Int>?
        var stamps: Range<Int>?
        var siblings: Range<Int>?
        var deleted: Range<Int>?
        var confirmations: Range<Int>?
        var erased: Range<Int>?

        var isEmpty: Bool { versions == nil && stamps == nil && siblings == nil && deleted == nil && confirmations == nil && erased == nil }

        mutating func set(_ tag: UInt16, _ range: Range<Int>) {
            switch tag {
            case Tag.versions: versions = range
            case Tag.stamps: stamps = range
            case Tag.siblings: siblings = range
            case Tag.deleted: deleted = range
            case Tag.confirmations: confirmations = range
            default: erased = range
            }
        }
    }

    // MARK: Encoding

    /// Replica indices and time deltas against one version vector (SPEC.md §17.3).
    struct StampWriter {
        let vector: [(replica: UInt64, time: UInt64)]
        private let index: [UInt64: Int]

        init(_ versions: VersionVector) {
            vector = versions.sorted
            var index: [UInt64: Int] = [:]
            for (i, entry) in vector.enumerated() { index[entry.replica] = i }
            self.index = index
        }

        /// `i varint ‖ (V[i] − time) varint`.
        func stamp(_ stamp: Stamp, into w: inout ByteWriter) throws(FormatError) {
            guard let i = index[stamp.replica], stamp.time >= 1, stamp.time <= vector[i].time else {
                throw .invalidItem("a stamp outside the item's clock")
            }
            w.varint(UInt64(i))
            w.varint(vector[i].time - stamp.time)
        }

        func register(_ r: Register, into w: inout ByteWriter) throws(FormatError) {
            guard r.isKnown else { throw .invalidItem("unknown register \(r.code)") }
            w.u8(r.code)
            if r.isKeyed { w.u64(r.key) }
        }

        /// A vector below the item's: `m varint`, then `m × (i, back)` for its non-zero entries.
        func vector(_ v: VersionVector, into w: inout ByteWriter) throws(FormatError) {
            let entries = v.sorted
            w.varint(UInt64(entries.count))
            for entry in entries { try stamp(Stamp(replica: entry.replica, time: entry.time), into: &w) }
        }

        func index(of replica: UInt64) -> Int { index[replica] ?? Int.max }
    }

    /// How the stamps field chooses its default stamp and mask (SPEC.md §17.3).
    package enum StampStyle: Sendable {
        /// Format 1: the stamp most registers have (named fields counted one each, the
        /// smaller stamp on ties); present named fields may take it implicitly.
        case version1
        /// Format 2: the stamp most unkeyed registers have (the smaller on ties), or the
        /// largest stamp of the version vector when none has one; named fields always
        /// explicit. Every choice is then visible in the overview alone.
        case version2
    }

    /// The unkeyed registers' bits of the mask: the stamps field format 2 leaves out
    /// (SPEC.md §17.3) gives all of them the largest stamp of the version vector.
    static let unkeyedMask: UInt64 =
        Register.all.enumerated().reduce(0) { $0 | ($1.element.isKeyed ? 0 : 1 << UInt64($1.offset)) }

    /// The largest stamp of a version vector: its entry of the largest time, the larger
    /// replica among equal times (SPEC.md §17.3).
    static func largestStamp(_ versions: VersionVector) -> Stamp? {
        versions.sorted.map { Stamp(replica: $0.replica, time: $0.time) }.max()
    }

    /// The clock's overview fields, in tag order, ready to append to an overview list.
    /// `present` are the registers that hold a value (named fields among them may take the
    /// default stamp implicitly in format 1).
    package static func encode(_ clock: ItemClock, present: Set<Register>, style: StampStyle = .version1) throws(FormatError) -> [UInt8] {
        let replicas = clock.versions.sorted
        guard !replicas.isEmpty else { throw .invalidItem("an item's clock names no replica") }
        // Compacted clocks name at most this many (SPEC.md §17.9); more are values of that
        // many writers at once: a bound of the format, not a usage error.
        guard replicas.count <= maxReplicas else {
            throw .limitReached("an item's values were written by \(replicas.count) writers; this format names at most \(maxReplicas)")
        }
        let writer = StampWriter(clock.versions)
        var out = FieldList()
        var versions = ByteWriter(capacity: replicas.count * entryLength)
        for entry in replicas { versions.u64(entry.replica); versions.u64(entry.time) }
        out.field(Tag.versions, versions.bytes)

        let stamps = clock.resolved(present: present).stamps
        if !stamps.isEmpty {
            // The most common stamp (the item's creation, usually) is written once, with a
            // mask of the registers it stamps; the others one by one (SPEC.md §17.3).
            var counts: [Stamp: Int] = [:]
            for (r, stamp) in stamps where style == .version1 || !r.isKeyed { counts[stamp, default: 0] += 1 }
            let common = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
                ?? largestStamp(clock.versions) ?? Stamp(replica: 0, time: 0)
            var mask: UInt64 = 0
            var explicit: [(Register, Stamp)] = []
            for (r, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
                // A named field takes the default only while present (the mask names its
                // code), and in format 2 never.
                if stamp == common, !r.isKeyed || (style == .version1 && present.contains(r)),
                   let bit = Register.all.firstIndex(of: r.family) {
                    mask |= 1 << UInt64(bit)
                } else {
                    explicit.append((r, stamp))
                }
            }
            var w = ByteWriter(capacity: 8 + explicit.count * 14)
            try writer.stamp(common, into: &w)
            w.varint(mask)
            for (r, stamp) in explicit {
                try writer.register(r, into: &w)
                try writer.stamp(stamp, into: &w)
            }
            out.field(Tag.stamps, w.bytes)
        }
        if !clock.siblings.isEmpty {
            var w = ByteWriter()
            for r in clock.siblings.keys.sorted() {
                guard let winner = stamps[r] else { throw .invalidItem("losing values without a winner") }
                let losers = Set(clock.siblings[r] ?? []).filter { $0 != winner }
                    .sorted { (writer.index(of: $0.replica), $0.time) < (writer.index(of: $1.replica), $1.time) }
                for stamp in losers {
                    try writer.register(r, into: &w)
                    try writer.stamp(stamp, into: &w)
                }
            }
            if !w.bytes.isEmpty { out.field(Tag.siblings, w.bytes) }
        }
        if let deleted = clock.deleted, !deleted.isEmpty {
            var w = ByteWriter()
            for entry in deleted.sorted { try writer.stamp(Stamp(replica: entry.replica, time: entry.time), into: &w) }
            out.field(Tag.deleted, w.bytes)
        }
        let standard = clock.defaultConfirmation
        let confirmations = clock.confirmations.filter { $0.value != standard && !clock.erased.contains($0.key) }
        if !confirmations.isEmpty {
            var w = ByteWriter()
            for (value, vector) in confirmations.sorted(by: { $0.key < $1.key }) {
                guard !vector.isEmpty, clock.versions.dominates(vector), vector.above(clock.deleted) == vector else {
                    throw .invalidItem("a confirmation outside the item's clock, or not reduced by its deletion")
                }
                try writer.register(value.register, into: &w)
                try writer.stamp(value.stamp, into: &w)
                try writer.vector(vector, into: &w)
            }
            out.field(Tag.confirmations, w.bytes)
        }
        if !clock.erased.isEmpty {
            var w = ByteWriter()
            for value in clock.erased.sorted() {
                try writer.register(value.register, into: &w)
                try writer.stamp(value.stamp, into: &w)
            }
            out.field(Tag.erased, w.bytes)
        }
        return out.publicBytes
    }

    // MARK: Reading

    /// Checks the clock fields found in an overview (`raw` is the whole list) without
    /// building anything when it can: opening a vault checks every overview this way.
    static func validate(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges) throws(FormatError) {
        _ = try read(raw, ranges, build: false)
    }

    /// Whether the clock of an overview (`raw`, with its clock fields at `ranges`) lists
    /// `register`'s winner as erased.
    static func winnerErased(_ register: Register, _ raw: UnsafeRawBufferPointer, _ ranges: Ranges) throws(FormatError) -> Bool {
        guard ranges.erased != nil, let clock = try read(raw, ranges, build: true), let winner = clock.stamps[register] else { return false }
        return clock.erased.contains(ValueID(register: register, stamp: winner))
    }

    /// The clock of an overview list, or nil for an entry written before clocks.
    package static func decode(overview list: [UInt8]) throws(FormatError) -> ItemClock? {
        try list.withBytes { (raw) throws(FormatError) -> ItemClock? in try decode(raw) }
    }

    static func decode(_ raw: UnsafeRawBufferPointer) throws(FormatError) -> ItemClock? {
        var reader = FieldReader(raw, structure: "overview") { _ in true }
        var ranges = Ranges()
        while let (tag, range) = try reader.next() {
            if Tag.overview.contains(tag) { ranges.set(tag, range) }
        }
        return try read(raw, ranges, build: true)
    }

    /// Whether an overview list carries a deletion (only such entries can be tombstones).
    package static func mayBeDeleted(_ list: [UInt8]) -> Bool { contains(Tag.deleted, list) }

    /// Whether an overview list has a clock at all (an entry written since clocks exist).
    package static func hasClock(_ list: [UInt8]) -> Bool { contains(Tag.versions, list) }

    /// Whether an overview list holds stamps of losing values (the item is flagged).
    package static func hasSiblings(_ list: [UInt8]) -> Bool { contains(Tag.siblings, list) }

    /// Whether a checked overview list has a field with `tag`: a scan of the headers, no decoding.
    private static func contains(_ wanted: UInt16, _ list: [UInt8]) -> Bool {
        list.withUnsafeBytes { raw in
            var offset = 0
            while raw.count - offset >= 6 {
                let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                if tag == wanted { return true }
                if tag > wanted { return false }
                offset += 6 + Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            }
            return false
        }
    }

    /// Reads a stamp, a register or a vector against the item's version vector.
    struct StampReader {
        let versions: UnsafeRawBufferPointer
        let n: Int

        func replica(_ i: Int) -> UInt64 { UInt64(littleEndian: versions.loadUnaligned(fromByteOffset: i * entryLength, as: UInt64.self)) }
        func seen(_ i: Int) -> UInt64 { UInt64(littleEndian: versions.loadUnaligned(fromByteOffset: i * entryLength + 8, as: UInt64.self)) }

        /// A stamp (`i varint ‖ back varint`), checked: `i < n`, time ≥ 1. Also returns `i`.
        func stamp(_ reader: inout ByteReader, _ what: String) throws(FormatError) -> (stamp: Stamp, index: Int) {
            let i = Int(try reader.varint(limit: UInt64(maxReplicas), "overview \(what)"))
            guard i < n else { throw .malformed("overview: \(what) names replica index \(i) of \(n)") }
            let back = try reader.varint(limit: UInt64.max, "overview \(what)")
            guard back < seen(i) else { throw .malformed("overview: \(what) outside the version vector (time 0 or below)") }
            return (Stamp(replica: replica(i), time: seen(i) - back), i)
        }

        func register(_ reader: inout ByteReader, _ what: String) throws(FormatError) -> Register {
            let code = try reader.u8("overview \(what)")
            guard Register.isKnownCode(code) else { throw .malformed("overview: \(what) for unknown register \(code)") }
            guard Register.isKeyed(code) else { return Register(code: code) }
            let key = try reader.u64("overview \(what)")
            guard key != 0 else { throw .malformed("overview: \(what) with key 0") }
            return Register(code: code, key: key)
        }

        /// `m ≥ 1`, then `m` entries with strictly ascending indices.
        func vector(_ reader: inout ByteReader, _ what: String) throws(FormatError) -> VersionVector {
            let m = Int(try reader.varint(limit: UInt64(maxReplicas), "overview \(what)"))
            guard m >= 1, m <= n else { throw .malformed("overview: \(what) of \(m) entries") }
            var times: [UInt64: UInt64] = [:]
            var last = -1
            for _ in 0..<m {
                let (s, i) = try stamp(&reader, what)
                guard i > last else { throw .malformed("overview: \(what) entries not in ascending order") }
                last = i
                times[s.replica] = s.time
            }
            return VersionVector(times)
        }
    }

    private static func read(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges, build: Bool) throws(FormatError) -> ItemClock? {
        // A field's value ends inside an element: the field itself is whole (the list was
        // checked), so the value is "malformed", not "truncated" (SPEC.md §17.3).
        do {
            return try readElements(raw, ranges, build: build)
        } catch .truncated(let what) {
            throw .malformed("overview: \(what) is not a whole number of elements")
        }
    }

    private static func readElements(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges, build requested: Bool) throws(FormatError) -> ItemClock? {
        if ranges.isEmpty { return nil }
        guard let versionsRange = ranges.versions else { throw .malformed("overview: clock fields without a version vector") }
        let versions = UnsafeRawBufferPointer(rebasing: raw[versionsRange])
        guard versions.count % entryLength == 0, versions.count / entryLength >= 1,
              versions.count / entryLength <= maxReplicas else {
            throw .malformed("overview: version vector of \(versions.count) bytes")
        }
        let n = versions.count / entryLength
        let stamps = StampReader(versions: versions, n: n)
        for i in 0..<n {
            guard stamps.replica(i) != 0, stamps.seen(i) >= 1, i == 0 || stamps.replica(i - 1) < stamps.replica(i) else {
                throw .malformed("overview: version vector entry \(i) (replicas ascending and non-zero, times at least 1)")
            }
        }
        // The rarely present fields refer to values: checking them needs the whole clock.
        let build = requested || ranges.siblings != nil || ranges.confirmations != nil || ranges.erased != nil
        var clock = build ? ItemClock(versions: VersionVector(Dictionary(uniqueKeysWithValues: (0..<n).map { (stamps.replica($0), stamps.seen($0)) })),
                                      stamps: [:]) : nil
        // The codes the mask gives the default stamp (a bit mask: opening checks every
        // overview, and a set would be one allocation each).
        var mask: UInt64 = 0
        func defaulted(_ code: UInt8) -> Bool {
            guard let bit = Register.all.firstIndex(where: { $0.code == code }) else { return false }
            return mask & (1 << UInt64(bit)) != 0
        }
        if let r = ranges.stamps {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[r]))
            let common = try stamps.stamp(&reader, "default stamp").stamp
            mask = try reader.varint(limit: maxMask, "overview stamp mask")
            if clock != nil {
                for (bit, family) in Register.all.enumerated() where mask & (1 << UInt64(bit)) != 0 {
                    if family.isKeyed { clock?.defaultedCodes.insert(family.code) } else { clock?.stamps[family] = common }
                }
            }
            if !(clock?.defaultedCodes.isEmpty ?? true) { clock?.defaultStamp = common }
            var last: Register?
            while !reader.isAtEnd {
                let r = try stamps.register(&reader, "stamp")
                let s = try stamps.stamp(&reader, "stamp").stamp
                guard r.isKeyed || !defaulted(r.code), last.map({ $0 < r }) ?? true else {
                    throw .malformed("overview: stamp for register \(r.code) (repeated or out of order)")
                }
                last = r
                clock?.stamps[r] = s
            }
            guard mask != 0 || last != nil else { throw .malformed("overview: stamps field stamps nothing") }
        }
        /// The stamp of register `r`'s own value: explicit, or the default for a named field of a masked code.
        func winner(_ built: ItemClock, _ r: Register) -> Stamp? {
            built.stamps[r] ?? (r.isKeyed && defaulted(r.code) ? built.defaultStamp : nil)
        }
        /// A list of values (register ‖ stamp), strictly ascending by (register, index, time).
        func values(_ range: Range<Int>, _ what: String, each: (Register, Stamp, inout ByteReader) throws(FormatError) -> Void) throws(FormatError) {
            guard !range.isEmpty else { throw .malformed("overview: empty \(what) field") }
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[range]))
            var last: (Register, Int, UInt64)?
            while !reader.isAtEnd {
                let reg = try stamps.register(&reader, what)
                let (s, index) = try stamps.stamp(&reader, "\(what) stamp")
                if let last, !(last.0 < reg || (last.0 == reg && (last.1, last.2) < (index, s.time))) {
                    throw .malformed("overview: \(what) repeated or out of order")
                }
                last = (reg, index, s.time)
                try each(reg, s, &reader)
            }
        }
        if let r = ranges.siblings {
            try values(r, "siblings") { (reg, s, _) throws(FormatError) in
                guard var built = clock else { return }
                // The register's own value is stamped explicitly, or by the default for a named field.
                guard let own = winner(built, reg), own != s else {
                    throw .malformed("overview: sibling for register \(reg.code) without another value")
                }
                built.siblings[reg, default: []].append(s)
                clock = built
            }
        }
        if let r = ranges.deleted {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[r]))
            guard !r.isEmpty else { throw .malformed("overview: empty deletion field") }
            var last = -1
            var deleted: [UInt64: UInt64] = [:]
            while !reader.isAtEnd {
                let (s, index) = try stamps.stamp(&reader, "deletion")
                guard index > last else { throw .malformed("overview: deletion entries out of order") }
                last = index
                deleted[s.replica] = s.time
            }
            clock?.deleted = VersionVector(deleted)
        }
        /// Whether a value (register, stamp) is one of the item's: its winner or a sibling.
        func isValue(_ built: ItemClock, _ reg: Register, _ s: Stamp) -> Bool {
            winner(built, reg) == s || (built.siblings[reg]?.contains(s) ?? false)
        }
        if let r = ranges.erased {
            try values(r, "erased value") { (reg, s, _) throws(FormatError) in
                guard var built = clock else { return }
                guard isValue(built, reg, s) else { throw .malformed("overview: erased value of register \(reg.code) that is not one of its values") }
                built.erased.insert(ValueID(register: reg, stamp: s))
                clock = built
            }
        }
        if let r = ranges.confirmations {
            try values(r, "confirmation") { (reg, s, reader) throws(FormatError) in
                let vector = try stamps.vector(&reader, "confirmation vector")
                guard var built = clock else { return }
                guard isValue(built, reg, s) else {
                    throw .malformed("overview: confirmation of register \(reg.code) for a value it does not have")
                }
                guard !built.erased.contains(ValueID(register: reg, stamp: s)) else {
                    throw .malformed("overview: an erased value with a confirmation")
                }
                guard built.versions.dominates(vector), vector.above(built.deleted) == vector, vector != built.defaultConfirmation else {
                    throw .malformed("overview: a confirmation vector must be dominated by the item's, above its deletion's in every entry, and differ from the default")
                }
                built.confirmations[ValueID(register: reg, stamp: s)] = vector
                clock = built
            }
        }
        return requested ? clock : nil
    }

    // MARK: Losing values in the secret part

    /// A losing value's field in the secret part (SPEC.md §17.3): register, stamp, value.
    static func encodeConflict(_ c: ItemParts.Conflict) throws(FormatError) -> FieldList {
        var nested = FieldList()
        nested.field(ConflictTag.register, u8: c.register.code)
        if c.register.isKeyed {
            var k = ByteWriter(capacity: 8)
            k.u64(c.register.key)
            nested.field(ConflictTag.key, k.bytes)
        }
        var w = ByteWriter(capacity: 8)
        w.u64(c.stamp.replica)
        nested.field(ConflictTag.replica, w.bytes)
        w = ByteWriter(capacity: 8)
        w.u64(c.stamp.time)
        nested.field(ConflictTag.time, w.bytes)
        var value = FieldList()
        value.raw(c.value)
        nested.field(ConflictTag.value, nested: value)
        var f = FieldList()
        f.field(Tag.conflict, nested: nested)
        return f
    }

    /// Reads a losing value's field; its value is returned as a range of the list.
    static func decodeConflictRange(_ reader: FieldReader) throws(FormatError) -> (register: Register, stamp: Stamp, value: Range<Int>) {
        var reader = reader
        var parts: [UInt16: Range<Int>] = [:]
        var last: UInt16 = 0
        while let (tag, range) = try reader.next() {
            guard tag > last, tag <= ConflictTag.value else { throw .malformed("secret conflict: unexpected field \(tag)") }
            parts[tag] = range
            last = tag
        }
        guard let r = parts[ConflictTag.register], let p = parts[ConflictTag.replica], let t = parts[ConflictTag.time],
              let v = parts[ConflictTag.value] else { throw .malformed("secret conflict: missing field") }
        let code = try reader.u8(r, "conflict register")
        guard Register.isKnownCode(code), (parts[ConflictTag.key] != nil) == Register.isKeyed(code) else {
            throw .malformed("secret conflict: register \(code) (unknown, or its key missing or extra)")
        }
        var key: UInt64 = 0
        if let k = parts[ConflictTag.key] {
            key = UInt64(bitPattern: try reader.i64(k, "conflict key"))
            guard key != 0 else { throw .malformed("secret conflict: key 0") }
        }
        let replica = UInt64(bitPattern: try reader.i64(p, "conflict replica"))
        let time = UInt64(bitPattern: try reader.i64(t, "conflict time"))
        guard replica != 0, time >= 1 else { throw .malformed("secret conflict: zero stamp") }
        // The value is the register's own fields, in the secret or overview syntax, where a
        // list register (URLs, tags, custom and secret fields, attachments, unknown fields)
        // repeats its tag as the entry's own list does.
        let isSecret = Register(code: code).isSecret
        var fields = reader.nested(v, "conflict value") { tag in
            isSecret ? EntryCodec.SecretTag.repeatable.contains(tag) || tag > EntryCodec.SecretTag.attachment
                : EntryCodec.OverviewTag.repeatable.contains(tag) || tag > EntryCodec.OverviewTag.field
        }
        while let (tag, _) = try fields.next() {
            let owner = isSecret ? Register.ofSecretTag(tag) : Register.ofOverviewTag(tag)
            guard owner?.code == code else {
                throw .malformed("secret conflict: field \(tag) does not belong to register \(code)")
            }
        }
        // Each field is then read as the entry's own list reads it (a label is UTF-8, a kind
        // one that exists…): a merge keeps the value and the API shows it (SPEC.md §17.3).
        // A kind is never removed (every state of a live item has one), so its losing value
        // is never empty.
        let value = UnsafeRawBufferPointer(rebasing: reader.buffer[v])
        guard code != Register.kind.code || !value.isEmpty else { throw .malformed("secret conflict: a kind value that is a removal") }
        try EntryCodec.checkRegisterValue(value, secret: isSecret)
        return (Register(code: code, key: key), Stamp(replica: replica, time: time), v)
    }

    // MARK: History confirmations in the secret part

    /// The history entries (by their position among the history fields) last present in a
    /// state that had seen less than the item, with that state's vector (SPEC.md §17.3):
    /// `index varint ‖ n varint ‖ n × (replica u64, time u64)`, indices strictly ascending,
    /// replicas strictly ascending and non-zero, times at least 1.
    package static func encodeHistoryConfirmations(_ confirmations: [Int: VersionVector]) -> FieldList {
        var w = ByteWriter()
        for (index, vector) in confirmations.sorted(by: { $0.key < $1.key }) {
            w.varint(UInt64(index))
            let entries = vector.sorted
            w.varint(UInt64(entries.count))
            for entry in entries { w.u64(entry.replica); w.u64(entry.time) }
        }
        var f = FieldList()
        if !confirmations.isEmpty { f.field(Tag.historyConfirmations, w.bytes) }
        return f
    }

    /// Reads a history-confirmations value; `historyCount` is the number of history fields before it.
    package static func decodeHistoryConfirmations(_ value: UnsafeRawBufferPointer, historyCount: Int) throws(FormatError) -> [Int: VersionVector] {
        guard value.count > 0 else { throw .malformed("secret: empty history confirmations") }
        var reader = ByteReader(value)
        var out: [Int: VersionVector] = [:]
        var last = -1
        while !reader.isAtEnd {
            let index = Int(try reader.varint(limit: UInt64(Int32.max), "secret history confirmations"))
            guard index > last, index < historyCount else {
                throw .malformed("secret: history confirmation for entry \(index) (ascending, below \(historyCount))")
            }
            last = index
            let m = Int(try reader.varint(limit: UInt64(maxReplicas), "secret history confirmations"))
            guard m >= 1 else { throw .malformed("secret: empty history confirmation vector") }
            var times: [UInt64: UInt64] = [:]
            var previous: UInt64 = 0
            for _ in 0..<m {
                let replica = try reader.u64("secret history confirmations"), time = try reader.u64("secret history confirmations")
                guard replica > previous, time >= 1 else { throw .malformed("secret: history confirmation vector (replicas ascending, non-zero; times at least 1)") }
                previous = replica
                times[replica] = time
            }
            out[index] = VersionVector(times)
        }
        return out
    }
}

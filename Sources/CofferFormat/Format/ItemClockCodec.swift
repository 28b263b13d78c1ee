import CofferCrypto

/// The merge metadata fields of an entry (SPEC.md §17.3): four critical overview fields
/// and the critical secret field holding the values that lost a concurrent edit. They
/// are critical (tags 0x8010 and up) so that a reader from before merging refuses such an
/// entry instead of writing it back with a clock that no longer matches its values.
package enum ItemClockCodec {
    enum Tag {
        /// Overview: the version vector, `n × (replica u64, time u64)`, replicas ascending.
        static let versions: UInt16 = 0x8010
        /// Overview: the default stamp, the mask of registers it stamps, then explicit stamps.
        static let stamps: UInt16 = 0x8011
        /// Overview: stamps of losing values, `k × (register u8, replica index u8, time u64)`.
        static let siblings: UInt16 = 0x8012
        /// Overview: what the deletion had seen, `k × (replica index u8, time u64)`.
        static let deleted: UInt16 = 0x8013
        /// Secret part: one losing value (repeatable).
        static let conflict: UInt16 = 0x8010
        static let overview: ClosedRange<UInt16> = versions...deleted
    }

    enum ConflictTag { static let register: UInt16 = 1, key: UInt16 = 2, replica: UInt16 = 3, time: UInt16 = 4, value: UInt16 = 5 }

    /// Most replicas one item's clock may name (indices are one byte).
    static let maxReplicas = ItemClock.maxReplicas
    static let entryLength = 16, stampLength = 9, registerStampLength = 10

    /// Where the clock fields of one overview are.
    struct Ranges {
        var versions: Range<Int>?
        var stamps: Range<Int>?
        var siblings: Range<Int>?
        var deleted: Range<Int>?

        var isEmpty: Bool { versions == nil && stamps == nil && siblings == nil && deleted == nil }

        mutating func set(_ tag: UInt16, _ range: Range<Int>) {
            switch tag {
            case Tag.versions: versions = range
            case Tag.stamps: stamps = range
            case Tag.siblings: siblings = range
            default: deleted = range
            }
        }
    }

    // MARK: Encoding

    /// The clock's overview fields, in tag order, ready to append to an overview list.
    /// `present` are the registers that hold a value (named fields among them may take the
    /// default stamp implicitly).
    package static func encode(_ clock: ItemClock, present: Set<Register>) throws(FormatError) -> [UInt8] {
        let replicas = clock.versions.sorted
        guard !replicas.isEmpty else { throw .invalidItem("an item's clock names no replica") }
        // Compacted clocks name at most this many; more are values of that many writers at once.
        guard replicas.count <= maxReplicas else {
            throw .limitReached("an item's values were written by \(replicas.count) writers; this format names at most \(maxReplicas)")
        }
        var index: [UInt64: UInt8] = [:]
        for (i, entry) in replicas.enumerated() { index[entry.replica] = UInt8(i) }
        func checkedIndex(_ stamp: Stamp) throws(FormatError) -> UInt8 {
            guard let i = index[stamp.replica], stamp.time >= 1, stamp.time <= clock.versions[stamp.replica] else {
                throw .invalidItem("a stamp outside the item's clock")
            }
            return i
        }
        func register(_ r: Register, into w: inout ByteWriter) throws(FormatError) {
            guard r.isKnown else { throw .invalidItem("unknown register \(r.code)") }
            w.u8(r.code)
            if r.isKeyed { w.u64(r.key) }
        }
        var out = FieldList()
        var writer = ByteWriter(capacity: replicas.count * entryLength)
        for entry in replicas { writer.u64(entry.replica); writer.u64(entry.time) }
        out.field(Tag.versions, writer.bytes)

        let stamps = clock.resolved(present: present).stamps
        if !stamps.isEmpty {
            // The most common stamp (the item's creation, usually) is written once, with a
            // mask of the registers it stamps; the others one by one.
            var counts: [Stamp: Int] = [:]
            for stamp in stamps.values { counts[stamp, default: 0] += 1 }
            let common = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? Stamp(replica: 0, time: 0)
            var mask: UInt32 = 0
            var explicit: [(Register, Stamp)] = []
            for (r, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
                // A named field takes the default only while present (the mask names its code).
                if stamp == common, !r.isKeyed || present.contains(r), let bit = Register.all.firstIndex(of: r.family) {
                    mask |= 1 << UInt32(bit)
                } else {
                    explicit.append((r, stamp))
                }
            }
            var w = ByteWriter(capacity: stampLength + 4 + explicit.count * (registerStampLength + 8))
            w.u8(try checkedIndex(common)); w.u64(common.time); w.u32(mask)
            for (r, stamp) in explicit {
                try register(r, into: &w)
                w.u8(try checkedIndex(stamp)); w.u64(stamp.time)
            }
            out.field(Tag.stamps, w.bytes)
        }
        if !clock.siblings.isEmpty {
            var w = ByteWriter()
            for r in clock.siblings.keys.sorted() {
                guard let winner = stamps[r] else { throw .invalidItem("losing values without a winner") }
                let losers = Set(clock.siblings[r] ?? []).filter { $0 != winner }
                    .sorted { (index[$0.replica] ?? 0, $0.time) < (index[$1.replica] ?? 0, $1.time) }
                for stamp in losers {
                    try register(r, into: &w)
                    w.u8(try checkedIndex(stamp)); w.u64(stamp.time)
                }
            }
            if !w.bytes.isEmpty { out.field(Tag.siblings, w.bytes) }
        }
        if let deleted = clock.deleted, !deleted.isEmpty {
            var w = ByteWriter()
            for entry in deleted.sorted {
                w.u8(try checkedIndex(Stamp(replica: entry.replica, time: entry.time))); w.u64(entry.time)
            }
            out.field(Tag.deleted, w.bytes)
        }
        return out.publicBytes
    }

    // MARK: Reading

    /// Checks the clock fields found in an overview (`raw` is the whole list) without
    /// building anything: opening a vault checks every overview this way.
    static func validate(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges) throws(FormatError) {
        _ = try read(raw, ranges, build: false)
    }

    /// The clock of an overview list, or nil for an entry written before clocks.
    package static func decode(overview list: [UInt8]) throws(FormatError) -> ItemClock? {
        try list.withBytes { (raw) throws(FormatError) -> ItemClock? in
            var reader = FieldReader(raw, structure: "overview") { _ in true }
            var ranges = Ranges()
            while let (tag, range) = try reader.next() {
                if Tag.overview.contains(tag) { ranges.set(tag, range) }
            }
            return try read(raw, ranges, build: true)
        }
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

    private static func read(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges, build: Bool) throws(FormatError) -> ItemClock? {
        // A field's value ends inside an element: the field itself is whole (the list was
        // checked), so the value is "malformed", not "truncated" (SPEC.md §17.3).
        do {
            return try readElements(raw, ranges, build: build)
        } catch .truncated(let what) {
            throw .malformed("overview: \(what) is not a whole number of elements")
        }
    }

    private static func readElements(_ raw: UnsafeRawBufferPointer, _ ranges: Ranges, build: Bool) throws(FormatError) -> ItemClock? {
        if ranges.isEmpty { return nil }
        guard let versionsRange = ranges.versions else { throw .malformed("overview: clock fields without a version vector") }
        let versions = UnsafeRawBufferPointer(rebasing: raw[versionsRange])
        guard versions.count % entryLength == 0, versions.count / entryLength >= 1,
              versions.count / entryLength <= maxReplicas else {
            throw .malformed("overview: version vector of \(versions.count) bytes")
        }
        let n = versions.count / entryLength
        func replica(_ i: Int) -> UInt64 { UInt64(littleEndian: versions.loadUnaligned(fromByteOffset: i * entryLength, as: UInt64.self)) }
        func seen(_ i: Int) -> UInt64 { UInt64(littleEndian: versions.loadUnaligned(fromByteOffset: i * entryLength + 8, as: UInt64.self)) }
        for i in 0..<n {
            guard replica(i) != 0, seen(i) >= 1, i == 0 || replica(i - 1) < replica(i) else {
                throw .malformed("overview: version vector entry \(i) (replicas ascending and non-zero, times at least 1)")
            }
        }
        /// A stamp's replica index and time, checked against the vector.
        func stamp(_ indexByte: UInt8, _ time: UInt64, _ what: String) throws(FormatError) -> Stamp {
            let i = Int(indexByte)
            guard i < n, time >= 1, time <= seen(i) else { throw .malformed("overview: \(what) outside the version vector") }
            return Stamp(replica: replica(i), time: time)
        }
        var clock = build ? ItemClock(versions: VersionVector(Dictionary(uniqueKeysWithValues: (0..<n).map { (replica($0), seen($0)) })),
                                      stamps: [:]) : nil
        /// A register: its code, and its key for a named field.
        func register(_ reader: inout ByteReader, _ what: String) throws(FormatError) -> Register {
            let code = try reader.u8(what)
            guard Register.isKnownCode(code) else { throw .malformed("overview: \(what) for unknown register \(code)") }
            guard Register.isKeyed(code) else { return Register(code: code) }
            let key = try reader.u64(what)
            guard key != 0 else { throw .malformed("overview: \(what) with key 0") }
            return Register(code: code, key: key)
        }
        // The codes the mask gives the default stamp (a bit mask: opening checks every
        // overview, and a set would be one allocation each).
        var mask: UInt32 = 0
        func defaulted(_ code: UInt8) -> Bool {
            guard let bit = Register.all.firstIndex(where: { $0.code == code }) else { return false }
            return mask & (1 << UInt32(bit)) != 0
        }
        if let r = ranges.stamps {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[r]))
            let common = try stamp(try reader.u8("overview stamps"), try reader.u64("overview stamps"), "default stamp")
            mask = try reader.u32("overview stamps")
            guard mask >> UInt32(Register.all.count) == 0 else { throw .malformed("overview: stamp mask names unknown registers") }
            if clock != nil {
                for (bit, family) in Register.all.enumerated() where mask & (1 << UInt32(bit)) != 0 {
                    if family.isKeyed { clock?.defaultedCodes.insert(family.code) } else { clock?.stamps[family] = common }
                }
            }
            if !(clock?.defaultedCodes.isEmpty ?? true) { clock?.defaultStamp = common }
            var last: Register?
            while !reader.isAtEnd {
                let r = try register(&reader, "stamp")
                let s = try stamp(try reader.u8("overview stamps"), try reader.u64("overview stamps"), "stamp")
                guard r.isKeyed || !defaulted(r.code), last.map({ $0 < r }) ?? true else {
                    throw .malformed("overview: stamp for register \(r.code) (repeated or out of order)")
                }
                last = r
                clock?.stamps[r] = s
            }
            guard mask != 0 || last != nil else { throw .malformed("overview: stamps field stamps nothing") }
        }
        if let r = ranges.siblings {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[r]))
            guard !r.isEmpty else { throw .malformed("overview: empty siblings field") }
            var last: (Register, UInt8, UInt64)?
            while !reader.isAtEnd {
                let reg = try register(&reader, "sibling")
                let index = try reader.u8("overview siblings"), time = try reader.u64("overview siblings")
                let s = try stamp(index, time, "sibling stamp")
                if let last, !(last.0 < reg || (last.0 == reg && (last.1, last.2) < (index, time))) {
                    throw .malformed("overview: siblings repeated or out of order")
                }
                last = (reg, index, time)
                if var built = clock {
                    // The register's own value is stamped explicitly, or by the default for a named field.
                    let winner = built.stamps[reg] ?? (reg.isKeyed && defaulted(reg.code) ? built.defaultStamp : nil)
                    guard let winner, winner != s else {
                        throw .malformed("overview: sibling for register \(reg.code) without another value")
                    }
                    built.siblings[reg, default: []].append(s)
                    clock = built
                }
            }
        }
        if let r = ranges.deleted {
            var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[r]))
            guard r.count % stampLength == 0, !r.isEmpty else { throw .malformed("overview: deletion of \(r.count) bytes") }
            var last: UInt8?
            var deleted: [UInt64: UInt64] = [:]
            while !reader.isAtEnd {
                let index = try reader.u8("overview deletion")
                let s = try stamp(index, try reader.u64("overview deletion"), "deletion")
                guard last.map({ $0 < index }) ?? true else { throw .malformed("overview: deletion entries out of order") }
                last = index
                deleted[s.replica] = s.time
            }
            clock?.deleted = VersionVector(deleted)
        }
        return clock
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
        return (Register(code: code, key: key), Stamp(replica: replica, time: time), v)
    }
}

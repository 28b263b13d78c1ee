import CofferCrypto

/// The overview of a format-2 record (SPEC.md §7.2, §7.6, §17.3) to and from the list held
/// in memory. Besides the framing (``CompactFieldList``), format 2 leaves out what follows
/// from the item's version vector when it holds:
///
/// - `created` and `modified`, when equal to the **implied date**: the largest time of the
///   version vector, shifted right by 16 bits (its milliseconds);
/// - the stamps field, when every unkeyed register has the vector's largest stamp and no
///   named field has a stamp (an item written by one edit and never changed in part);
/// - in a tombstone, the deletion vector, which equals the version vector.
///
/// In memory these fields are always present, so the codecs above see one shape. A list
/// that writes out what it should leave out is "malformed": each item has one encoding.
enum CompactOverview {
    /// Tags a tombstone's overview may hold (SPEC.md §7.6): the dates and the clock.
    static let tombstoneTags: Set<UInt16> = [EntryCodec.OverviewTag.created, EntryCodec.OverviewTag.modified,
                                             ItemClockCodec.Tag.versions, ItemClockCodec.Tag.stamps,
                                             ItemClockCodec.Tag.siblings, ItemClockCodec.Tag.confirmations]

    /// The in-memory list of a format-2 overview, checked as SPEC.md §10 step 15 says.
    static func working(from compact: [UInt8], tombstone: Bool) throws(FormatError) -> [UInt8] {
        try compact.withBytes { (raw) throws(FormatError) in try working(from: raw, tombstone: tombstone) }
    }

    /// ``working(from:tombstone:)`` of bytes in place (an overview opened into a buffer on the stack).
    static func working(from compact: UnsafeRawBufferPointer, tombstone: Bool) throws(FormatError) -> [UInt8] {
        // Most overviews of a large vault have the usual shape, read in one pass
        // (``usualWorking(_:)``); any other, or one it does not vouch for, the full reading.
        if !tombstone, let list = usualWorking(compact) { return list }
        return try checkedWorking(from: Array(compact), tombstone: tombstone)
    }

    /// ``working(from:tombstone:)`` by the full reading: every shape, and the failure named.
    static func checkedWorking(from compact: [UInt8], tombstone: Bool) throws(FormatError) -> [UInt8] {
        // What the list leaves out, put in where it can be computed: a list whose version
        // vector cannot give it is refused by the checks below, in their order. The scan of
        // the format-2 bytes finds the same fields and values as one of the converted list.
        let scan = Scan(compact: compact)
        let implied = scan.versions.flatMap { Implied(versions: $0) }
        // Pass 1: the framing; then the in-memory list, what was left out put in as it is written.
        let list = try CompactFieldList.working(from: compact, schema: .overview) {
            guard let implied else { return [] }
            var inserted: [(tag: UInt16, value: [UInt8])] = []
            if !scan.has(EntryCodec.OverviewTag.created), let date = implied.date { inserted.append((EntryCodec.OverviewTag.created, date)) }
            if !scan.has(EntryCodec.OverviewTag.modified), let date = implied.date { inserted.append((EntryCodec.OverviewTag.modified, date)) }
            if !scan.has(ItemClockCodec.Tag.stamps) { inserted.append((ItemClockCodec.Tag.stamps, implied.stamps)) }
            if tombstone, !scan.has(ItemClockCodec.Tag.deleted) { inserted.append((ItemClockCodec.Tag.deleted, implied.deleted)) }
            return inserted
        }
        // Passes 2 to 4: field by field, the merge fields, the required fields.
        if tombstone { try validateTombstone(list) } else { try EntryCodec.validateOverview(list) }
        // Format 2's own rules of the whole list.
        guard let implied else { throw .malformed("overview: no version vector (format 2 requires one)") }
        if tombstone, scan.has(ItemClockCodec.Tag.deleted) { throw .malformed("overview: a tombstone's deletion vector is implied") }
        for tag in [EntryCodec.OverviewTag.created, EntryCodec.OverviewTag.modified] where scan.has(tag) {
            guard !scan.value(tag, equals: implied.date) else { throw .malformed("overview: date \(tag) equals the implied date and must be left out") }
        }
        if scan.value(ItemClockCodec.Tag.stamps, equals: implied.stamps) {
            throw .malformed("overview: the stamps field is the implied one and must be left out")
        }
        // A live item's clock of one version vector and nothing else (every item never
        // edited concurrently) has, after the implied stamps went in above, exactly the
        // fields its encoding gives: the vector as the reader checked it (replicas ascending,
        // 16 bytes each, as the encoder writes it) and the implied stamps (the encoding of a
        // clock whose unkeyed registers all carry the largest stamp, SPEC.md §7.6). Decoding
        // and encoding it again, the check below, was most of a listing's time.
        let onlyVersions = !tombstone && !scan.has(ItemClockCodec.Tag.stamps) && !scan.has(ItemClockCodec.Tag.siblings)
            && !scan.has(ItemClockCodec.Tag.deleted) && !scan.has(ItemClockCodec.Tag.confirmations) && !scan.has(ItemClockCodec.Tag.erased)
        if !onlyVersions { try checkCanonicalClock(list, tombstone: tombstone) }
        return list
    }

    /// The format-2 overview of an in-memory list. `present` are the registers that hold a
    /// value in either part (for a clock whose named fields took the default stamp).
    static func compact(from working: [UInt8], tombstone: Bool, present: Set<Register>) throws(FormatError) -> [UInt8] {
        guard let clock = try ItemClockCodec.decode(overview: working) else {
            throw .invalidItem("a format-2 record needs a clock")
        }
        var fields = try ItemClockCodec.encode(clock, present: present, style: .version2)
        guard let implied = Implied(clockFields: fields) else { throw .invalidItem("a format-2 record needs a clock") }
        // The list without its clock, then the clock in format 2's choice of stamps.
        var list = strip(working) { ItemClockCodec.Tag.overview.contains($0) }
        list += fields
        fields = []
        let scan = Scan(list)
        list = strip(list) { tag in
            switch tag {
            case EntryCodec.OverviewTag.created, EntryCodec.OverviewTag.modified: return scan.value(tag, equals: implied.date)
            case ItemClockCodec.Tag.stamps: return scan.value(tag, equals: implied.stamps)
            case ItemClockCodec.Tag.deleted:
                guard tombstone else { return false }
                return true
            default: return false
            }
        }
        if tombstone {
            guard clock.isDeleted, clock.deleted == clock.versions else { throw .invalidItem("a tombstone's deletion vector is its version vector") }
        }
        return try CompactFieldList.compact(from: .bytes(list), schema: .overview).publicBytes
    }

    /// The kind and the name key (SPEC.md §8.1) of a checked format-2 overview list, read
    /// from its framing without converting it (a rotation computes every record's tag).
    static func nameKey(_ compact: UnsafeRawBufferPointer) throws(FormatError) -> (ItemKind, [UInt8]) {
        var reader = ByteReader(compact)
        var kind: ItemKind?
        var fields: [UInt16: [UInt8]] = [:]
        while !reader.isAtEnd {
            let tag = UInt16(try reader.varint(limit: UInt64(UInt16.max), "overview field tag"))
            let length = Int(try reader.varint(limit: UInt64(UInt32.max), "overview field length"))
            let value = try reader.range(length, "overview field \(tag)")
            if tag == EntryCodec.OverviewTag.kind, value.count == 1 { kind = ItemKind(code: compact[value.lowerBound]) }
            if tag == 2 || tag == 3 || tag == 5 { fields[tag] = Array(compact[value]) }
            if tag > EntryCodec.OverviewTag.server { break }
        }
        // A checked list without a kind: its kind was erased, read as a generic password.
        let found = kind ?? .genericPassword
        return (found, fields[LookupTag.nameField(of: found)] ?? [])
    }

    /// The values format 2 leaves out, as an item's version vector gives them.
    struct Implied {
        /// `created` and `modified`: nil when the date would be after the year 9999.
        let date: [UInt8]?
        /// The stamps field: the largest stamp, then every unkeyed register's bit.
        let stamps: [UInt8]
        /// The number of entries of the version vector.
        private let replicas: Int

        /// A tombstone's deletion vector: every entry of the version vector.
        var deleted: [UInt8] {
            var d = ByteWriter(capacity: 2 * replicas)
            for i in 0..<replicas { d.varint(UInt64(i)); d.varint(0) }
            return d.bytes
        }

        /// From a version vector's field value (nil when it is not one).
        init?(versions value: ArraySlice<UInt8>) {
            guard let latest = value.withUnsafeBytes({ Self.latest(in: $0) }) else { return nil }
            let ms = latest.time >> HybridTime.counterBits
            if ms <= UInt64(EntryCodec.dateRange.upperBound) {
                var w = ByteWriter(capacity: 8)
                w.u64(ms)
                date = w.bytes
            } else {
                date = nil
            }
            var s: [UInt8] = []
            s.reserveCapacity(8)
            Self.appendStamps(index: latest.index) { s.append($0) }
            stamps = s
            replicas = value.count / 16
        }

        /// The largest entry of a version vector's field value, by time then replica: its
        /// index and its time; nil when the value is not a version vector's length. With
        /// `checked`, also nil unless its entries are as the clock's reading requires
        /// (replicas non-zero and strictly ascending, times at least 1).
        static func latest(in raw: UnsafeRawBufferPointer, checked: Bool = false) -> (index: Int, time: UInt64)? {
            guard raw.count % 16 == 0, !raw.isEmpty, raw.count / 16 <= ItemClockCodec.maxReplicas else { return nil }
            var best = (time: UInt64(0), replica: UInt64(0), index: 0)
            var previous: UInt64 = 0
            for i in 0..<(raw.count / 16) {
                let replica = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16, as: UInt64.self))
                let time = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
                if checked {
                    guard replica > previous, time >= 1 else { return nil }
                    previous = replica
                }
                if (time, replica) > (best.time, best.replica) { best = (time, replica, i) }
            }
            return (best.index, best.time)
        }

        /// The implied stamps field of a vector whose largest entry is at `index`: that
        /// stamp (its index, no counter), then the mask of every unkeyed register.
        static func appendStamps(index: Int, _ append: (UInt8) -> Void) {
            ByteWriter.appendVarint(UInt64(index), append)
            ByteWriter.appendVarint(0, append)
            ByteWriter.appendVarint(ItemClockCodec.unkeyedMask, append)
        }

        /// From the clock fields ``ItemClockCodec/encode(_:present:style:)`` wrote.
        init?(clockFields: [UInt8]) {
            let scan = Scan(clockFields)
            guard let versions = scan.versions else { return nil }
            self.init(versions: versions)
        }
    }

    /// Where the dates and the clock fields of a well-framed in-memory list are (the first of
    /// each): ranges into the list, no copies (a listing scans every overview of the vault).
    struct Scan {
        private let list: [UInt8]
        private var created: Range<Int>?, modified: Range<Int>?
        /// The clock fields 0x8010 to 0x8015, by `tag - 0x8010`.
        private var clock: (Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?)

        init(_ list: [UInt8]) {
            self.list = list
            clock = (nil, nil, nil, nil, nil, nil)
            list.withUnsafeBytes { raw in
                var offset = 0
                while raw.count - offset >= 6 {
                    let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                    let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
                    guard length <= raw.count - offset - 6 else { return }
                    let value = (offset + 6)..<(offset + 6 + length)
                    if range(tag) == nil { set(tag, value) }
                    offset += 6 + length
                }
            }
        }

        /// The same fields of a format-2 list (varint framing), whose framing was or will be
        /// checked: the scan stops where the framing is bad.
        init(compact list: [UInt8]) {
            self.list = list
            clock = (nil, nil, nil, nil, nil, nil)
            list.withUnsafeBytes { raw in
                var reader = ByteReader(raw)
                while !reader.isAtEnd {
                    guard let tag = try? reader.varint(limit: UInt64(UInt16.max), ""),
                          let length = try? reader.varint(limit: UInt64(UInt32.max), ""),
                          let value = try? reader.range(Int(length), "") else { return }
                    if range(UInt16(tag)) == nil { set(UInt16(tag), value) }
                }
            }
        }

        /// The range of `tag`'s first value; nil when absent or not one of the tags kept.
        private func range(_ tag: UInt16) -> Range<Int>? {
            switch tag {
            case EntryCodec.OverviewTag.created: return created
            case EntryCodec.OverviewTag.modified: return modified
            case ItemClockCodec.Tag.versions: return clock.0
            case ItemClockCodec.Tag.stamps: return clock.1
            case ItemClockCodec.Tag.siblings: return clock.2
            case ItemClockCodec.Tag.deleted: return clock.3
            case ItemClockCodec.Tag.confirmations: return clock.4
            case ItemClockCodec.Tag.erased: return clock.5
            default: return nil
            }
        }

        private mutating func set(_ tag: UInt16, _ value: Range<Int>) {
            switch tag {
            case EntryCodec.OverviewTag.created: created = value
            case EntryCodec.OverviewTag.modified: modified = value
            case ItemClockCodec.Tag.versions: clock.0 = value
            case ItemClockCodec.Tag.stamps: clock.1 = value
            case ItemClockCodec.Tag.siblings: clock.2 = value
            case ItemClockCodec.Tag.deleted: clock.3 = value
            case ItemClockCodec.Tag.confirmations: clock.4 = value
            case ItemClockCodec.Tag.erased: clock.5 = value
            default: break
            }
        }

        /// Whether the list has `tag`, one of the dates or the clock fields.
        func has(_ tag: UInt16) -> Bool { range(tag) != nil }
        /// The value of `tag` (a date or a clock field), nil when absent.
        func value(_ tag: UInt16) -> ArraySlice<UInt8>? { range(tag).map { list[$0] } }
        /// Whether `tag` is present with exactly `bytes` as its value.
        func value(_ tag: UInt16, equals bytes: [UInt8]?) -> Bool {
            guard let value = value(tag), let bytes else { return false }
            return value.elementsEqual(bytes)
        }
        var versions: ArraySlice<UInt8>? { value(ItemClockCodec.Tag.versions) }
    }

    /// `list` without the top-level fields whose tag `drop` names.
    private static func strip(_ list: [UInt8], _ drop: (UInt16) -> Bool) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(list.count)
        list.withUnsafeBytes { raw in
            var offset = 0
            while raw.count - offset >= 6 {
                let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
                let end = min(raw.count, offset + 6 + length)
                if !drop(tag) { out += raw[offset..<end] }
                offset = end
            }
        }
        return out
    }

    /// A tombstone's overview (SPEC.md §7.6): only the dates and the clock, each at most
    /// once and in order, dates in range; the clock valid and deleted.
    static func validateTombstone(_ list: [UInt8]) throws(FormatError) {
        try list.withBytes { (raw) throws(FormatError) in
            var reader = FieldReader(raw, structure: "tombstone overview") { _ in false }
            var ranges = ItemClockCodec.Ranges()
            while let (tag, r) = try reader.next() {
                // The deletion vector is put in from the version vector before this check.
                guard tombstoneTags.contains(tag) || tag == ItemClockCodec.Tag.deleted else {
                    throw .malformed("tombstone overview: field \(tag) (a tombstone keeps only its dates and its clock)")
                }
                if tag == EntryCodec.OverviewTag.created || tag == EntryCodec.OverviewTag.modified {
                    _ = try EntryCodec.date(reader, r, "tombstone overview: date")
                } else {
                    ranges.set(tag, r)
                }
            }
            try ItemClockCodec.validate(raw, ranges)
        }
        guard let clock = try ItemClockCodec.decode(overview: list), clock.isDeleted else {
            throw .malformed("tombstone overview: not deleted")
        }
        let scan = Scan(list)
        guard scan.has(EntryCodec.OverviewTag.created), scan.has(EntryCodec.OverviewTag.modified) else {
            throw .malformed("tombstone overview: missing dates")
        }
    }

    /// Format 2 writes each clock one way (SPEC.md §17.3): the clock decoded and encoded
    /// again gives the same fields. Format 2's stamps never depend on which registers hold
    /// a value, so the overview alone decides.
    static func checkCanonicalClock(_ list: [UInt8], tombstone: Bool) throws(FormatError) {
        guard let clock = try ItemClockCodec.decode(overview: list) else { return }
        // A deleted item is written as a tombstone row (SPEC.md §17.5 step 4): a live row whose
        // deletion vector dominates its version vector would be read as live by one reader and
        // as deleted by another.
        if !tombstone, clock.isDeleted { throw .malformed("overview: a live record whose deletion vector dominates its version vector") }
        let encoded = try ItemClockCodec.encode(clock, present: [], style: .version2)
        let fields = list.withUnsafeBytes { raw -> [UInt8] in
            var offset = 0, start: Int?
            while raw.count - offset >= 6 {
                let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
                let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
                if start == nil, ItemClockCodec.Tag.overview.contains(tag) { start = offset }
                offset += 6 + length
            }
            return start.map { Array(raw[$0..<min(offset, raw.count)]) } ?? []
        }
        // A tombstone's encoding has its deletion vector, put in above.
        guard encoded == fields else {
            throw .malformed("overview: the merge fields are not in their one encoding (SPEC.md §17.3)")
        }
    }
}

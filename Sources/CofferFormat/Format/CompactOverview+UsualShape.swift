import CofferCrypto

/// The usual overview of a large vault, read in one pass: a live item's attributes (tags 1
/// to 14, URLs and tags repeated), its version vector and nothing else of the clock (an item
/// never edited concurrently), the dates left out or written because they differ from the
/// implied one. A listing and a save check every overview of the vault (SPEC.md §10 step
/// 15); the general reading sizes, converts, scans and checks each one in separate passes.
extension CompactOverview {
    /// The in-memory list of an overview of the usual shape, exactly what
    /// ``checkedWorking(from:tombstone:)`` returns for it; nil for any other list, and for
    /// any list this pass does not vouch for (the full reading then decides, and names
    /// what is wrong). It vouches only for a list that ``EntryCodec/isPlainValidOverview(_:)``,
    /// the in-memory quick check, would pass: its rules are checked on the format-2 bytes as
    /// they are read (``UsualShape/init(_:)``; checking the list written, a second pass, was
    /// 1,665 of a listing's 13,600 instructions per record).
    static func usualWorking(_ compact: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let shape = UsualShape(compact) else { return nil }
        return shape.working(compact)
    }

    /// The kind and the name key's place (SPEC.md §8.1; nil: absent) of an overview that
    /// ``usualWorking(_:)`` vouches for, nil for any other: a rotation checks every overview
    /// it seals again and needs only its lookup tag, so it makes no list.
    static func usualNameKey(_ compact: UnsafeRawBufferPointer) -> (kind: ItemKind, name: Range<Int>?)? {
        guard let shape = UsualShape(compact) else { return nil }
        return (shape.kind, shape.name)
    }

    /// What the one pass over a usual overview's bytes finds (pass 1 of ``usualWorking(_:)``).
    struct UsualShape {
        let kind: ItemKind
        /// The field a lookup tag hashes (``LookupTag/nameField(of:)``); nil: absent.
        private(set) var name: Range<Int>?
        private(set) var created: Range<Int>?, modified: Range<Int>?
        let latest: (index: Int, time: UInt64)
        /// The implied date (SPEC.md §17.3): nil when the vector's time is past the dates' range.
        let date: UInt64?
        private(set) var fields = 0, valueBytes = 0

        /// Pass 1: the framing (shortest varints, values within the list), the tags, each
        /// attribute's value as the quick check wants it, the version vector as the clock's
        /// reading checks it (the stamps written from it are the implied ones of its largest
        /// entry: valid with it by construction), and the dates; nil when not vouched for.
        init?(_ compact: UnsafeRawBufferPointer) {
            let T = EntryCodec.OverviewTag.self
            var offset = 0
            var last: UInt16 = 0
            var kind: ItemKind?, versions: Range<Int>?
            while offset < compact.count {
                guard let tag = CompactOverview.varint(compact, &offset), tag <= UInt64(UInt16.max),
                      let length = CompactOverview.varint(compact, &offset), length <= UInt64(compact.count - offset) else { return nil }
                let t = UInt16(tag)
                guard t > last || (t == last && (t == T.url || t == T.tag)) else { return nil }
                let value = offset..<(offset + Int(length))
                switch t {
                case T.kind:
                    guard value.count == 1 else { return nil }
                    kind = ItemKind(code: compact[value.lowerBound])
                    guard kind != nil else { return nil }
                case T.port:
                    guard value.count == 2 else { return nil }
                case T.favorite:
                    guard value.count == 1, compact[value.lowerBound] == 1 else { return nil }
                case T.created: created = value
                case T.modified: modified = value
                case ItemClockCodec.Tag.versions: versions = value
                case T.label...T.tag:   // label, service, account, server, protocol, path, comment, url, tag: text
                    guard ASCIIBytes.all(UnsafeRawBufferPointer(rebasing: compact[value])) else { return nil }
                    // (The kind, tag 1, comes first when present: without one, nothing is vouched for.)
                    if let kind, t == LookupTag.nameField(of: kind) { name = value }
                default:
                    return nil
                }
                fields += 1
                valueBytes += value.count
                offset = value.upperBound
                last = t
            }
            guard let kind, let versions,
                  let latest = Implied.latest(in: UnsafeRawBufferPointer(rebasing: compact[versions]), checked: true) else { return nil }
            self.kind = kind
            self.latest = latest
            // The implied date; a date written out must differ from it (SPEC.md §17.3).
            let ms = latest.time >> HybridTime.counterBits
            date = ms <= UInt64(EntryCodec.dateRange.upperBound) ? ms : nil
            for written in [created, modified] {
                guard let written else {
                    guard date != nil else { return nil }
                    continue
                }
                guard written.count == 8 else { return nil }
                let value = UInt64(littleEndian: compact.loadUnaligned(fromByteOffset: written.lowerBound, as: UInt64.self))
                guard value != date, EntryCodec.dateRange.contains(Int64(bitPattern: value)) else { return nil }
            }
        }

        /// Pass 2: the in-memory list of `compact` (the bytes this shape was read from), what
        /// format 2 leaves out put in at its place in tag order.
        func working(_ compact: UnsafeRawBufferPointer) -> [UInt8]? {
            let T = EntryCodec.OverviewTag.self
            var stampLength = 0
            Implied.appendStamps(index: latest.index) { _ in stampLength += 1 }
            let size = valueBytes + 6 * fields + (created == nil ? 14 : 0) + (modified == nil ? 14 : 0) + 6 + stampLength
            let list = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                let out = UnsafeMutableRawBufferPointer(buffer)
                var at = 0
                func header(_ tag: UInt16, _ length: Int) {
                    out.storeBytes(of: tag.littleEndian, toByteOffset: at, as: UInt16.self)
                    out.storeBytes(of: UInt32(length).littleEndian, toByteOffset: at + 2, as: UInt32.self)
                    at += 6
                }
                func impliedDate(_ tag: UInt16) {
                    header(tag, 8)
                    out.storeBytes(of: (date ?? 0).littleEndian, toByteOffset: at, as: UInt64.self)
                    at += 8
                }
                var read = 0
                var pendingCreated = created == nil, pendingModified = modified == nil
                while read < compact.count, let tag = CompactOverview.varint(compact, &read), let length = CompactOverview.varint(compact, &read) {
                    let t = UInt16(tag), n = Int(length)
                    if pendingCreated, t > T.created { impliedDate(T.created); pendingCreated = false }
                    if pendingModified, t > T.modified { impliedDate(T.modified); pendingModified = false }
                    header(t, n)
                    UnsafeMutableRawBufferPointer(rebasing: out[at..<(at + n)]).copyMemory(from: UnsafeRawBufferPointer(rebasing: compact[read..<(read + n)]))
                    at += n
                    read += n
                    if t == ItemClockCodec.Tag.versions {
                        header(ItemClockCodec.Tag.stamps, stampLength)
                        Implied.appendStamps(index: latest.index) { out[at] = $0; at += 1 }
                    }
                }
                count = at
            }
            return list.count == size ? list : nil
        }
    }

    /// A varint of at most 5 bytes in its shortest form (``ByteReader/varint(limit:_:)``),
    /// advancing `offset`; nil for anything else, a longer one included (left to the
    /// full reading: no usual overview has one). Not the reader's own: through `try?` it
    /// cost this pass 1,000 instructions more per record (410 → 514 million for a listing
    /// of 100,000), and anything this one declines, the reader then decides.
    fileprivate static func varint(_ raw: UnsafeRawBufferPointer, _ offset: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while offset < raw.count, shift < 35 {
            let byte = raw[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return byte != 0 || shift == 0 ? value : nil }
            shift += 7
        }
        return nil
    }
}

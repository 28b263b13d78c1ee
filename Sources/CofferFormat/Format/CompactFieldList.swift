import CofferCrypto

/// The field lists of format 2 (SPEC.md §7.1): the same fields as format 1, each framed by
/// a varint tag and a varint length instead of a `u16` and a `u32`, so a short field costs
/// 2 bytes of framing instead of 6.
///
/// A decrypted list is held in memory in format 1's framing, whatever the file's version:
/// every codec above (``EntryCodec``, ``ItemParts``, ``ItemClockCodec``) reads one syntax.
/// This type converts the framing of a whole list, nested lists included, in one pass each
/// way; values are copied as they are (secret values from guarded memory to guarded memory).
/// The fields format 2 may leave out are ``CompactOverview``'s.
enum CompactFieldList {
    /// Which fields of a list hold nested lists (SPEC.md §7.2–7.4, §17.3).
    enum Schema {
        /// An overview: custom fields (tag 15) are pairs.
        case overview
        /// A secret part: fields (3), history entries (4) and attachments (5) are pairs,
        /// and losing values (0x8010) are conflict lists.
        case secret
        /// The fields of one register inside a conflict list: as `overview` or `secret`,
        /// without conflict lists (so nesting stays bounded).
        case registerFields(secret: Bool)
        /// A pair or a history entry: values only.
        case pair
        /// A losing value: its value field (tag 5) holds the register's fields.
        case conflict

        func nested(_ tag: UInt16, conflictCode: UInt8?) -> Schema? {
            switch self {
            case .overview, .registerFields(secret: false):
                return tag == EntryCodec.OverviewTag.field ? .pair : nil
            case .secret, .registerFields(secret: true):
                if [EntryCodec.SecretTag.field, EntryCodec.SecretTag.history, EntryCodec.SecretTag.attachment].contains(tag) { return .pair }
                if case .secret = self, tag == ItemClockCodec.Tag.conflict { return .conflict }
                return nil
            case .pair:
                return nil
            case .conflict:
                guard tag == ItemClockCodec.ConflictTag.value, let code = conflictCode, Register.isKnownCode(code) else { return nil }
                return .registerFields(secret: Register(code: code).isSecret)
            }
        }
    }

    /// How a value's bytes go into the output: copied from public bytes, or cut from a
    /// guarded buffer (never copied into ordinary memory).
    enum Source {
        case bytes([UInt8])
        case secret(SecureBytes)

        func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FormatError) -> R) throws(FormatError) -> R {
            switch self {
            case .bytes(let b): return try b.withBytes { (raw) throws(FormatError) in try body(raw) }
            case .secret(let s): return try s.withUnsafeBytes { (raw) throws(FormatError) in try body(raw) }
            }
        }

        func append(_ range: Range<Int>, to out: inout FieldList, from raw: UnsafeRawBufferPointer) {
            guard !range.isEmpty else { return }
            switch self {
            case .bytes: out.raw(Array(raw[range]))
            case .secret(let s): out.raw(SecretFragment(source: s, range: range))
            }
        }
    }

    /// The in-memory list of a format-2 list, in ordinary memory (an overview). The framing
    /// alone is checked here (SPEC.md §7.1, first pass): varints in their shortest form and
    /// within bounds ("malformed"), every length within its enclosing list ("truncated").
    /// `inserting` decides, once the framing is known good, fields to put in at the top level
    /// (in tag order, after fields of the same tag): what format 2 leaves out
    /// (``CompactOverview``), written in the same pass as the rest.
    static func working(from compact: [UInt8], schema: Schema,
                        inserting: () -> [(tag: UInt16, value: [UInt8])] = { [] }) throws(FormatError) -> [UInt8] {
        try compact.withBytes { (raw) throws(FormatError) -> [UInt8] in
            let structure = structureName(schema)
            let converted = try convert(raw, 0..<raw.count, schema: schema, structure: structure, into: nil, at: 0)
            let extra = inserting().sorted { $0.tag < $1.tag }
            let size = converted + extra.reduce(0) { $0 + 6 + $1.value.count }
            var failure: FormatError?
            let list = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                do throws(FormatError) {
                    _ = try convert(raw, 0..<raw.count, schema: schema, structure: structure, into: UnsafeMutableRawBufferPointer(buffer), at: 0,
                                    inserting: extra[...])
                    count = size
                } catch {
                    failure = error
                    count = 0
                }
            }
            if let failure { throw failure }
            return list
        }
    }

    /// The in-memory list of a format-2 list held in guarded memory (a secret part), written
    /// straight into a guarded buffer: no value passes through ordinary memory.
    static func working(from compact: SecureBytes, schema: Schema) throws(FormatError) -> SecureBytes {
        try compact.withUnsafeBytes { (raw) throws(FormatError) -> SecureBytes in
            let structure = structureName(schema)
            let size = try convert(raw, 0..<raw.count, schema: schema, structure: structure, into: nil, at: 0)
            var failure: FormatError?
            let list = try crypto { () throws(CofferError) in try SecureBytes(count: size) { (out: UnsafeMutableRawBufferPointer) in
                do throws(FormatError) {
                    _ = try convert(raw, 0..<raw.count, schema: schema, structure: structure, into: out, at: 0)
                } catch {
                    failure = error
                }
            } }
            if let failure { throw failure }
            return list
        }
    }

    /// The format-2 list of an in-memory list (which is well formed: this layer built it).
    static func compact(from source: Source, schema: Schema) throws(FormatError) -> FieldList {
        try source.withBytes { (raw) throws(FormatError) in try compact(raw, 0..<raw.count, schema: schema, source: source) }
    }

    private static func structureName(_ schema: Schema) -> String {
        if case .secret = schema { return "secret" }
        return "overview"
    }

    /// One walk over a format-2 list's framing (`range` of `raw`), checking it; returns the
    /// length of its in-memory list and, given `out`, writes that list at `offset`. Run once
    /// to size the output and once to fill it: one allocation per list, not two per field
    /// (a listing converts every overview of the vault).
    private static func convert(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, schema: Schema, structure: String,
                                into out: UnsafeMutableRawBufferPointer?, at offset: Int,
                                inserting extra: ArraySlice<(tag: UInt16, value: [UInt8])> = []) throws(FormatError) -> Int {
        var reader = ByteReader(UnsafeRawBufferPointer(rebasing: raw[range]))
        var written = 0
        var pending = extra
        /// An in-memory field header (`u16` tag, `u32` length) at `at` of `out`.
        func header(_ out: UnsafeMutableRawBufferPointer, at: Int, tag: UInt16, length: Int) {
            out.storeBytes(of: tag.littleEndian, toByteOffset: at, as: UInt16.self)
            out.storeBytes(of: UInt32(clamping: length).littleEndian, toByteOffset: at + 2, as: UInt32.self)
        }
        /// Writes an inserted field at the end of what is written.
        func put(_ field: (tag: UInt16, value: [UInt8])) {
            if let out {
                let at = offset + written
                header(out, at: at, tag: field.tag, length: field.value.count)
                field.value.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[(at + 6)..<(at + 6 + $0.count)]).copyMemory(from: $0) }
            }
            written += 6 + field.value.count
        }
        var conflictCode: UInt8?
        while !reader.isAtEnd {
            let tag = UInt16(try reader.varint(limit: UInt64(UInt16.max), "\(structure) field tag"))
            let length = Int(try reader.varint(limit: UInt64(UInt32.max), "\(structure) field length"))
            let value = try reader.range(length, "\(structure) field \(tag)")
            while let next = pending.first, next.tag < tag {
                put(next)
                pending = pending.dropFirst()
            }
            let absolute = (range.lowerBound + value.lowerBound)..<(range.lowerBound + value.upperBound)
            if case .conflict = schema, tag == ItemClockCodec.ConflictTag.register, length == 1 { conflictCode = raw[absolute.lowerBound] }
            let headerAt = offset + written
            let valueLength: Int
            if let inner = schema.nested(tag, conflictCode: conflictCode) {
                valueLength = try convert(raw, absolute, schema: inner, structure: structure, into: out, at: headerAt + 6)
            } else {
                valueLength = absolute.count
                if let out, !absolute.isEmpty {
                    UnsafeMutableRawBufferPointer(rebasing: out[(headerAt + 6)..<(headerAt + 6 + valueLength)])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[absolute]))
                }
            }
            if let out { header(out, at: headerAt, tag: tag, length: valueLength) }
            written += 6 + valueLength
        }
        for next in pending { put(next) }
        return written
    }

    private static func compact(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, schema: Schema, source: Source) throws(FormatError) -> FieldList {
        var reader = FieldReader(UnsafeRawBufferPointer(rebasing: raw[range]), structure: "list") { _ in true }
        var out = FieldList()
        var conflictCode: UInt8?
        while let (tag, value) = try reader.next() {
            let absolute = (range.lowerBound + value.lowerBound)..<(range.lowerBound + value.upperBound)
            if case .conflict = schema, tag == ItemClockCodec.ConflictTag.register, value.count == 1 { conflictCode = raw[absolute.lowerBound] }
            if let inner = schema.nested(tag, conflictCode: conflictCode) {
                let nested = try compact(raw, absolute, schema: inner, source: source)
                out.compactHeader(tag, nested.count)
                out.append(nested)
            } else {
                out.compactHeader(tag, value.count)
                source.append(absolute, to: &out, from: raw)
            }
        }
        return out
    }
}

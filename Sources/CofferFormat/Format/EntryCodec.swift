import CofferCrypto
import Foundation

/// Encodes item attributes (the overview) and item secrets as field lists (SPEC.md §7).
package enum EntryCodec {
    // Overview tags (SPEC.md §7.2).
    enum OverviewTag {
        static let kind: UInt16 = 1, label: UInt16 = 2, service: UInt16 = 3, account: UInt16 = 4
        static let server: UInt16 = 5, proto: UInt16 = 6, port: UInt16 = 7, path: UInt16 = 8
        static let comment: UInt16 = 9, url: UInt16 = 10, tag: UInt16 = 11, favorite: UInt16 = 12
        static let created: UInt16 = 13, modified: UInt16 = 14, field: UInt16 = 15
        /// Non-critical, so format-2 readers before it keep it as an unknown field; it
        /// therefore stays in the unknown-attributes register 0x7F (SPEC.md §17.2).
        static let expires: UInt16 = 17
        static let repeatable: Set<UInt16> = [url, tag, field]
    }

    // Secret tags (SPEC.md §7.3).
    enum SecretTag {
        static let password: UInt16 = 1, notes: UInt16 = 2, field: UInt16 = 3, history: UInt16 = 4, attachment: UInt16 = 5
        static let repeatable: Set<UInt16> = [field, history, attachment]
    }

    // Tags of the nested lists: a name/value pair, or a history entry.
    enum PairTag { static let name: UInt16 = 1, value: UInt16 = 2 }
    enum HistoryTag { static let password: UInt16 = 1, replaced: UInt16 = 2 }

    /// Tags above 0x7FFF that a reader does not know mean "must understand": refuse.
    static func isUnknownTagAllowed(_ tag: UInt16) -> Bool { tag < 0x8000 }

    /// Dates are milliseconds since 1970 from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z
    /// (SPEC.md §7.1). Within this range a value survives `Date` (a Double) exactly, so decoding
    /// then encoding reproduces it; outside it, it would not.
    static let dateRange: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    /// A date field's value, refused outside ``dateRange``.
    static func date(_ reader: FieldReader, _ range: Range<Int>, _ name: String) throws(FormatError) -> Int64 {
        let ms = try reader.i64(range, name)
        guard dateRange.contains(ms) else { throw .malformed("\(name) date \(ms) outside years 1 to 9999") }
        return ms
    }

    /// Refuses to write a date a reader would refuse.
    package static func checkDates(_ a: ItemAttributes, _ s: ItemSecrets) throws(FormatError) {
        let dates = [a.created, a.modified] + (a.expires.map { [$0] } ?? []) + s.passwordHistory.map(\.replaced)
        guard dates.allSatisfy({ dateRange.contains($0.millisecondsSince1970) }) else {
            throw .invalidItem("item dates must be between the years 1 and 9999")
        }
    }

    // MARK: Overview

    package static func encodeOverview(_ a: ItemAttributes) -> FieldList {
        let T = OverviewTag.self
        var fields: [(UInt16, FieldList)] = []
        func add(_ tag: UInt16, _ build: (inout FieldList) -> Void) {
            var f = FieldList(); build(&f); fields.append((tag, f))
        }
        add(T.kind) { $0.field(T.kind, u8: a.kind.code) }
        if let v = a.label { add(T.label) { $0.field(T.label, string: v) } }
        if let v = a.service { add(T.service) { $0.field(T.service, string: v) } }
        if let v = a.account { add(T.account) { $0.field(T.account, string: v) } }
        if let v = a.server { add(T.server) { $0.field(T.server, string: v) } }
        if let v = a.protocol { add(T.proto) { $0.field(T.proto, string: v) } }
        if let v = a.port { add(T.port) { $0.field(T.port, u16: v) } }
        if let v = a.path { add(T.path) { $0.field(T.path, string: v) } }
        if let v = a.comment { add(T.comment) { $0.field(T.comment, string: v) } }
        for url in a.urls { add(T.url) { $0.field(T.url, string: url) } }
        for tag in a.tags { add(T.tag) { $0.field(T.tag, string: tag) } }
        if a.isFavorite { add(T.favorite) { $0.field(T.favorite, u8: 1) } }
        add(T.created) { $0.field(T.created, i64: a.created.millisecondsSince1970) }
        add(T.modified) { $0.field(T.modified, i64: a.modified.millisecondsSince1970) }
        for f in a.fields {
            var pair = FieldList()
            pair.field(PairTag.name, string: f.name)
            pair.field(PairTag.value, string: f.value)
            add(T.field) { $0.field(T.field, nested: pair) }
        }
        if let v = a.expires { add(T.expires) { $0.field(T.expires, i64: v.millisecondsSince1970) } }
        for p in a.preservedFields { add(p.tag) { $0.field(p.tag, p.value) } }
        return assemble(fields)
    }

    static func decodeOverview(_ buffer: UnsafeRawBufferPointer) throws(FormatError) -> ItemAttributes {
        // Built when asked to, so never nil here.
        try readOverview(buffer, build: true)!
    }

    /// The checks of each field of an overview list, front to back, without those of the
    /// whole list (merge fields, required fields; SPEC.md §7.1): the first field that fails.
    static func checkFieldsOnly(_ list: [UInt8]) throws(FormatError) {
        _ = try list.withBytes { (raw) throws(FormatError) in try readOverview(raw, build: false, wholeList: false) }
    }

    /// The checks of each field of a register's value that a conflict field holds (SPEC.md
    /// §17.3): the checks its fields get in an overview or a secret part.
    static func checkRegisterValue(_ value: UnsafeRawBufferPointer, secret: Bool) throws(FormatError) {
        if secret { _ = try decodeSecrets(value) } else { _ = try readOverview(value, build: false, wholeList: false) }
    }

    package static func decodeOverview(_ list: [UInt8]) throws(FormatError) -> ItemAttributes {
        try list.withBytes { (raw) throws(FormatError) in try decodeOverview(raw) }
    }

    /// Every check of ``decodeOverview(_:)``, without building the attributes: opening a
    /// vault checks all overviews, and builds attributes only for the items it lists.
    static func validateOverview(_ list: [UInt8]) throws(FormatError) {
        // Most overviews take the quick path; one it does not vouch for gets the full
        // reading, which also names what is wrong.
        if list.withUnsafeBytes({ isPlainValidOverview($0) }) { return }
        _ = try list.withBytes { (raw) throws(FormatError) in try readOverview(raw, build: false) }
    }

    /// True only for a valid overview of the usual shape: tags 1 to 14 in order (URLs and
    /// tags may repeat), ASCII text, right value lengths, kind and both dates present.
    /// False proves nothing: `readOverview` then decides.
    static func isPlainValidOverview(_ raw: UnsafeRawBufferPointer) -> Bool {
        let T = OverviewTag.self
        var offset = 0
        var last: UInt16 = 0
        var sawKind = false, sawCreated = false, sawModified = false
        var clock = ItemClockCodec.Ranges()
        while offset < raw.count {
            guard raw.count - offset >= 6 else { return false }
            let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            let start = offset + 6
            guard length <= raw.count - start, tag > last || (tag == last && (tag == T.url || tag == T.tag)) else { return false }
            if ItemClockCodec.Tag.overview.contains(tag) {
                clock.set(tag, start..<(start + length))
                last = tag
                offset = start + length
                continue
            }
            guard tag >= T.kind, tag <= T.modified else { return false }
            let value = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
            switch tag {
            case T.kind:
                guard length == 1, ItemKind(code: value[0]) != nil else { return false }
                sawKind = true
            case T.port:
                guard length == 2 else { return false }
            case T.favorite:
                guard length == 1, value[0] == 1 else { return false }
            case T.created, T.modified:
                guard length == 8, dateRange.contains(Int64(littleEndian: value.loadUnaligned(as: Int64.self))) else { return false }
                if tag == T.created { sawCreated = true } else { sawModified = true }
            default:   // label, service, account, server, protocol, path, comment, url, tag: text
                guard ASCIIBytes.all(value) else { return false }
            }
            last = tag
            offset = start + length
        }
        guard sawKind && sawCreated && sawModified else { return false }
        return (try? ItemClockCodec.validate(raw, clock)) != nil
    }

    /// One pass for decoding and checking, so the two can never disagree.
    private static func readOverview(_ buffer: UnsafeRawBufferPointer, build: Bool, wholeList: Bool = true) throws(FormatError) -> ItemAttributes? {
        let T = OverviewTag.self
        // Unassigned tags above the last attribute may repeat; the clock's tags may not.
        var reader = FieldReader(buffer, structure: "overview") {
            T.repeatable.contains($0) || ($0 > T.field && $0 != T.expires && !ItemClockCodec.Tag.overview.contains($0))
        }
        var clock = ItemClockCodec.Ranges()
        var kind: ItemKind?
        var created: Int64?, modified: Int64?
        var a = ItemAttributes(kind: .genericPassword, created: Date(timeIntervalSince1970: 0))
        /// The string at `r`, checked; nil (after the check) when not building.
        func text(_ r: Range<Int>, _ name: String) throws(FormatError) -> String? {
            if build { return try reader.string(r, name) }
            try reader.checkString(r, name)
            return nil
        }
        while let (tag, r) = try reader.next() {
            switch tag {
            case T.kind:
                let code = try reader.u8(r, "kind")
                guard let k = ItemKind(code: code) else { throw .malformed("overview: unknown item kind \(code)") }
                kind = k
            case T.label: a.label = try text(r, "label")
            case T.service: a.service = try text(r, "service")
            case T.account: a.account = try text(r, "account")
            case T.server: a.server = try text(r, "server")
            case T.proto: a.protocol = try text(r, "protocol")
            case T.port: a.port = try reader.u16(r, "port")
            case T.path: a.path = try text(r, "path")
            case T.comment: a.comment = try text(r, "comment")
            case T.url: if let url = try text(r, "url") { a.urls.append(url) }
            case T.tag: if let tag = try text(r, "tag") { a.tags.append(tag) }
            case T.favorite:
                guard try reader.u8(r, "favorite") == 1 else { throw .malformed("overview: favorite must be 1 when present") }
                a.isFavorite = true
            case T.created: created = try date(reader, r, "overview: created")
            case T.modified: modified = try date(reader, r, "overview: modified")
            case T.field:
                let (name, value) = try decodePair(reader.nested(r, "field"), build: build) { (p, vr) throws(FormatError) -> String in
                    if build { return try p.string(vr, "value") }
                    try p.checkString(vr, "value")
                    return ""
                }
                if build { a.fields.append(CustomField(name: name, value: value)) }
            case T.expires:
                let ms = try date(reader, r, "overview: expires")
                if build { a.expires = Date(millisecondsSince1970: ms) }
            case ItemClockCodec.Tag.overview: clock.set(tag, r)
            default:
                guard isUnknownTagAllowed(tag) else { throw .malformed("overview: unknown critical field \(tag)") }
                if build { a.preservedFields.append(PreservedField(tag: tag, value: reader.bytes(r))) }
            }
        }
        guard wholeList else { return nil }
        try ItemClockCodec.validate(buffer, clock)
        // A live item whose kind a deletion erased (every kind value erased or replaced,
        // SPEC.md §17.5) reads as a generic password; any other missing kind is malformed.
        if kind == nil, try ItemClockCodec.winnerErased(.kind, buffer, clock) { kind = .genericPassword }
        guard let kind else { throw .malformed("overview: missing kind") }
        guard let created, let modified else { throw .malformed("overview: missing dates") }
        guard build else { return nil }
        a.kind = kind
        a.created = Date(millisecondsSince1970: created)
        a.modified = Date(millisecondsSince1970: modified)
        return a
    }

    // MARK: Secrets

    package static func encodeSecrets(_ s: ItemSecrets) -> FieldList {
        let T = SecretTag.self
        var fields: [(UInt16, FieldList)] = []
        func add(_ tag: UInt16, _ list: FieldList) { fields.append((tag, list)) }
        if let p = s.password { var f = FieldList(); f.field(T.password, secret: p); add(T.password, f) }
        if let n = s.notes { var f = FieldList(); f.field(T.notes, secret: n); add(T.notes, f) }
        for field in s.fields {
            var pair = FieldList()
            pair.field(PairTag.name, string: field.name)
            pair.field(PairTag.value, secret: field.value)
            var f = FieldList(); f.field(T.field, nested: pair); add(T.field, f)
        }
        for h in s.passwordHistory {
            var entry = FieldList()
            entry.field(HistoryTag.password, secret: h.password)
            entry.field(HistoryTag.replaced, i64: h.replaced.millisecondsSince1970)
            var f = FieldList(); f.field(T.history, nested: entry); add(T.history, f)
        }
        for att in s.attachments {
            var pair = FieldList()
            pair.field(PairTag.name, string: att.name)
            pair.field(PairTag.value, secret: att.data)
            var f = FieldList(); f.field(T.attachment, nested: pair); add(T.attachment, f)
        }
        for p in s.preservedFields { var f = FieldList(); f.field(p.tag, secret: p.value); add(p.tag, f) }
        return assemble(fields)
    }

    /// `version1`: the list of a version-1 record, which knows no history confirmations.
    package static func decodeSecrets(_ buffer: UnsafeRawBufferPointer, version1: Bool = false) throws(FormatError) -> ItemSecrets {
        let T = SecretTag.self
        var reader = FieldReader(buffer, structure: "secret") {
            T.repeatable.contains($0)
                || ($0 > T.attachment && $0 != ItemClockCodec.Tag.historyConfirmations && $0 != ItemClockCodec.Tag.historyCleared)
        }
        var s = ItemSecrets()
        var lastConflict: (UInt8, UInt64, UInt64, UInt64)?
        while let (tag, r) = try reader.next() {
            switch tag {
            case T.password: s.password = try reader.secure(r)
            case T.notes: s.notes = try reader.secure(r)
            case T.field:
                let (name, value) = try decodePair(reader.nested(r, "field")) { (p, vr) throws(FormatError) in try p.secure(vr) }
                s.fields.append(SecretField(name: name, value: value))
            case T.history:
                var nested = reader.nested(r, "history")
                var password: SecureBytes?, replaced: Int64?
                while let (t, vr) = try nested.next() {
                    switch t {
                    case HistoryTag.password: password = try nested.secure(vr)
                    case HistoryTag.replaced: replaced = try date(nested, vr, "secret history: replaced")
                    default: throw .malformed("secret history: unknown field \(t)")
                    }
                }
                guard let password, let replaced else { throw .malformed("secret history: missing field") }
                s.passwordHistory.append(PasswordHistoryEntry(password: password, replaced: Date(millisecondsSince1970: replaced)))
            case T.attachment:
                let (name, data) = try decodePair(reader.nested(r, "attachment")) { (p, vr) throws(FormatError) in try p.secure(vr) }
                s.attachments.append(Attachment(name: name, data: data))
            case ItemClockCodec.Tag.conflict:
                // A value that lost a concurrent edit: checked here, read through `ItemParts`.
                // Format 2's conflict fields have one order, as a writer puts them (SPEC.md §17.3):
                // by register (code, key), then replica, then time; else one list had two
                // encodings. Format 1 stated no order: its files open as they always did.
                let conflict = try ItemClockCodec.decodeConflictRange(reader.nested(r, "conflict"))
                let order = (conflict.register.code, conflict.register.key, conflict.stamp.replica, conflict.stamp.time)
                if !version1, let last = lastConflict, !(last < order) { throw .malformed("secret: conflict fields not in ascending order") }
                lastConflict = order
            case ItemClockCodec.Tag.historyConfirmations where !version1:
                // Merge metadata of the history entries (format 2): checked here, read through `ItemParts`.
                _ = try ItemClockCodec.decodeHistoryConfirmations(UnsafeRawBufferPointer(rebasing: buffer[r]),
                                                                  historyCount: s.passwordHistory.count)
            case ItemClockCodec.Tag.historyCleared where !version1:
                // The history was cleared up to this date (format 2): read through `ItemParts`.
                _ = try date(reader, r, "secret: history cleared")
            default:
                guard isUnknownTagAllowed(tag) else { throw .malformed("secret: unknown critical field \(tag)") }
                s.preservedFields.append(PreservedSecretField(tag: tag, value: try reader.secure(r)))
            }
        }
        return s
    }

    /// Orders fields by tag, keeping the order of equal tags, so preserved unknown
    /// fields land where a newer writer put them.
    private static func assemble(_ fields: [(UInt16, FieldList)]) -> FieldList {
        let ordered = fields.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }
        var out = FieldList()
        for (_, field) in ordered { out.append(field.1) }
        return out
    }

    /// Reads a nested (name, value) pair: exactly tag 1 then tag 2.
    private static func decodePair<V>(
        _ reader: FieldReader, build: Bool = true, value: (FieldReader, Range<Int>) throws(FormatError) -> V
    ) throws(FormatError) -> (String, V) {
        var reader = reader
        guard let (t1, nameRange) = try reader.next(), t1 == PairTag.name,
              let (t2, valueRange) = try reader.next(), t2 == PairTag.value else {
            throw .malformed("pair: expected name and value")
        }
        guard try reader.next() == nil else { throw .malformed("pair: unexpected field") }
        let name: String
        if build { name = try reader.string(nameRange, "name") } else { try reader.checkString(nameRange, "name"); name = "" }
        return (name, try value(reader, valueRange))
    }
}


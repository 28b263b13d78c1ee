import CofferCrypto
/// Where the searchable fields of an overview field list are (SPEC.md §7.2), found
/// without building attributes, so that a query or the unique-key index need not
/// decode every item of a large vault. Meant for lists that `validateOverview` passed;
/// anything unexpected gives nil, and the caller decodes instead.
package struct OverviewFields: Sendable {
    /// The kind's code; a checked list without one is a live item whose kind a deletion
    /// erased, read as a generic password (SPEC.md §17.5).
    package private(set) var kind: UInt8 = ItemKind.genericPassword.code
    package private(set) var isFavorite = false
    package private(set) var port: UInt16?
    // Offsets into the list, 32 bits each (a list that long is refused): a listing keeps one
    // of these per row, 64 bytes rather than the 200 that optional ranges and dates took.
    private var labelAt = Span.absent, serviceAt = Span.absent, accountAt = Span.absent
    private var serverAt = Span.absent, protocolAt = Span.absent, pathAt = Span.absent
    /// Every tag's text.
    package private(set) var tags: [Range<Int>] = []

    package var label: Range<Int>? { labelAt.range }
    package var service: Range<Int>? { serviceAt.range }
    package var account: Range<Int>? { accountAt.range }
    package var server: Range<Int>? { serverAt.range }
    package var `protocol`: Range<Int>? { protocolAt.range }
    package var path: Range<Int>? { pathAt.range }

    /// Where a text field's value is, or absent.
    private struct Span: Sendable {
        static let absent = Span(start: .max, end: .max)
        let start: UInt32, end: UInt32
        init(start: UInt32, end: UInt32) { self.start = start; self.end = end }
        init(_ range: Range<Int>) { self.init(start: UInt32(range.lowerBound), end: UInt32(range.upperBound)) }
        var range: Range<Int>? { start == .max ? nil : Int(start)..<Int(end) }
    }

    /// No field at all: what a listing row that holds a decoded item carries.
    package static let none = OverviewFields()

    private init() {}

    /// The dates of a checked list, milliseconds since 1970 (every checked overview has
    /// both), read apart: a listing row keeps its fields and has no use for them.
    package static func dates(in list: UnsafeRawBufferPointer) -> (created: Int64?, modified: Int64?) {
        let T = EntryCodec.OverviewTag.self
        var created: Int64?, modified: Int64?
        _ = forEachField(in: list) { tag, value in
            if (tag == T.created || tag == T.modified) && value.count == 8 {
                let ms = Int64(littleEndian: list.loadUnaligned(fromByteOffset: value.lowerBound, as: Int64.self))
                if tag == T.created { created = ms } else { modified = ms }
            }
            return true
        }
        return (created, modified)
    }

    package init?(_ list: UnsafeRawBufferPointer) {
        let T = EntryCodec.OverviewTag.self
        guard list.count < Int(UInt32.max) else { return nil }
        var fields = OverviewFields()
        let framed = Self.forEachField(in: list) { tag, value in
            switch tag {
            case T.kind: guard value.count == 1 else { return false }; fields.kind = list[value.lowerBound]
            case T.label: fields.labelAt = Span(value)
            case T.service: fields.serviceAt = Span(value)
            case T.account: fields.accountAt = Span(value)
            case T.server: fields.serverAt = Span(value)
            case T.proto: fields.protocolAt = Span(value)
            case T.port:
                guard value.count == 2 else { return false }
                fields.port = UInt16(list[value.lowerBound]) | UInt16(list[value.lowerBound + 1]) << 8
            case T.path: fields.pathAt = Span(value)
            case T.tag: fields.tags.append(value)
            case T.favorite: fields.isFavorite = true
            case T.created, T.modified: guard value.count == 8 else { return false }
            default: break
            }
            return true
        }
        guard framed else { return nil }
        self = fields
    }

    /// Calls `body` with each field's tag and where its value is, in order: the one walk of
    /// a list's framing here. False, having stopped, when a field runs past the end of
    /// `list` or `body` returns false.
    private static func forEachField(in list: UnsafeRawBufferPointer, _ body: (UInt16, Range<Int>) -> Bool) -> Bool {
        var offset = 0
        while offset < list.count {
            guard list.count - offset >= 6 else { return false }
            let tag = UInt16(littleEndian: list.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: list.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            let value = (offset + 6)..<(offset + 6 + length)
            guard value.upperBound <= list.count, body(tag, value) else { return false }
            offset = value.upperBound
        }
        return true
    }

    /// How the text at `range` compares with `string`: bytes alone decide unless they
    /// differ and either side is not ASCII (`String` compares canonical equivalents).
    package static func compare(_ range: Range<Int>, in list: UnsafeRawBufferPointer, with string: String) -> Bool? {
        let bytes = UnsafeRawBufferPointer(rebasing: list[range])
        let utf8 = string.utf8
        let equal = utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? utf8.elementsEqual(bytes)
        if equal { return true }
        let ascii = (utf8.withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? utf8.allSatisfy { $0 < 0x80 })
            && bytes.allSatisfy { $0 < 0x80 }
        return ascii ? false : nil
    }

    /// The text at `range` (checked UTF-8 already).
    package static func string(_ range: Range<Int>, in list: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: list[range]), as: UTF8.self)
    }
}

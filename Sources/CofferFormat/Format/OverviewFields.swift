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
        var offset = 0
        while list.count - offset >= 6 {
            let tag = UInt16(littleEndian: list.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: list.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            guard length <= list.count - offset - 6 else { break }
            if (tag == T.created || tag == T.modified) && length == 8 {
                let ms = Int64(littleEndian: list.loadUnaligned(fromByteOffset: offset + 6, as: Int64.self))
                if tag == T.created { created = ms } else { modified = ms }
            }
            offset += 6 + length
        }
        return (created, modified)
    }

    package init?(_ list: UnsafeRawBufferPointer) {
        let T = EntryCodec.OverviewTag.self
        guard list.count < Int(UInt32.max) else { return nil }
        var offset = 0
        while offset < list.count {
            guard list.count - offset >= 6 else { return nil }
            let tag = UInt16(littleEndian: list.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: list.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            let value = (offset + 6)..<(offset + 6 + length)
            guard value.upperBound <= list.count else { return nil }
            switch tag {
            case T.kind: guard length == 1 else { return nil }; kind = list[value.lowerBound]
            case T.label: labelAt = Span(value)
            case T.service: serviceAt = Span(value)
            case T.account: accountAt = Span(value)
            case T.server: serverAt = Span(value)
            case T.proto: protocolAt = Span(value)
            case T.port: guard length == 2 else { return nil }; port = UInt16(list[value.lowerBound]) | UInt16(list[value.lowerBound + 1]) << 8
            case T.path: pathAt = Span(value)
            case T.tag: tags.append(value)
            case T.favorite: isFavorite = true
            case T.created, T.modified: guard length == 8 else { return nil }
            default: break
            }
            offset = value.upperBound
        }
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

import CofferCrypto
/// Where the searchable fields of an overview field list are (SPEC.md §7.2), found
/// without building attributes, so that a query or the unique-key index need not
/// decode every item of a large vault. Meant for lists that `validateOverview` passed;
/// anything unexpected gives nil, and the caller decodes instead.
package struct OverviewFields: Sendable {
    /// The kind's code; a checked list without one is a live item whose kind a deletion
    /// erased, read as a generic password (SPEC.md §17.5).
    package var kind: UInt8 = ItemKind.genericPassword.code
    package var label: Range<Int>?
    package var service: Range<Int>?
    package var account: Range<Int>?
    package var server: Range<Int>?
    package var `protocol`: Range<Int>?
    package var port: UInt16?
    package var path: Range<Int>?
    package var isFavorite = false
    /// The dates, milliseconds since 1970 (every checked overview in memory has both).
    package var created: Int64?
    package var modified: Int64?
    /// Every tag's text.
    package var tags: [Range<Int>] = []

    package init?(_ list: UnsafeRawBufferPointer) {
        let T = EntryCodec.OverviewTag.self
        var offset = 0
        while offset < list.count {
            guard list.count - offset >= 6 else { return nil }
            let tag = UInt16(littleEndian: list.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: list.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            let value = (offset + 6)..<(offset + 6 + length)
            guard value.upperBound <= list.count else { return nil }
            switch tag {
            case T.kind: guard length == 1 else { return nil }; kind = list[value.lowerBound]
            case T.label: label = value
            case T.service: service = value
            case T.account: account = value
            case T.server: server = value
            case T.proto: `protocol` = value
            case T.port: guard length == 2 else { return nil }; port = UInt16(list[value.lowerBound]) | UInt16(list[value.lowerBound + 1]) << 8
            case T.path: path = value
            case T.tag: tags.append(value)
            case T.favorite: isFavorite = true
            case T.created, T.modified:
                guard length == 8 else { return nil }
                let ms = Int64(littleEndian: list.loadUnaligned(fromByteOffset: value.lowerBound, as: Int64.self))
                if tag == T.created { created = ms } else { modified = ms }
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

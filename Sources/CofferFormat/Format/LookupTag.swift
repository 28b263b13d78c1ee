import CofferCrypto

/// The lookup tag of a format-2 manifest row (SPEC.md §8.1): a keyed hash of the item's
/// **name key**, so that finding an item by name opens only the records whose tag matches.
///
/// The name key is the service of a generic password, the server of an internet password,
/// the label (title) of a secure note, the empty string when absent. It is folded by one
/// small rule a second implementation computes byte for byte: ASCII letters to lower
/// case; a name with any byte above 0x7F becomes the one byte 0xFF, so every name that is
/// not ASCII shares one tag per kind. A reader looking up a name therefore opens the
/// records of its folded tag and those of the non-ASCII tag, and checks each decrypted
/// name: tags only narrow the search.
///
/// ```swift
/// let tag = try LookupTag.tag(kind: .genericPassword, name: Array("GitHub.com".utf8), keys: keys)
/// // == LookupTag.tag(kind: .genericPassword, name: Array("github.com".utf8), keys: keys)
/// ```
package enum LookupTag {
    /// A tombstone's tag: 8 zero bytes (it has no name).
    package static let tombstone: UInt64 = 0
    /// What a name with a byte above 0x7F folds to.
    static let nonASCII: UInt8 = 0xFF

    /// SPEC.md §8.1: ASCII `A`–`Z` to `a`–`z`, other ASCII bytes kept; any byte ≥ 0x80
    /// makes the whole name the single byte 0xFF.
    package static func fold(_ name: some Collection<UInt8>) -> [UInt8] {
        Array(name).withUnsafeBytes { raw in
            [UInt8](unsafeUninitializedCapacity: foldedLength(raw)) { buffer, count in
                count = fold(raw, into: UnsafeMutableRawBufferPointer(buffer))
            }
        }
    }

    /// The length of ``fold(_:)``'s result.
    static func foldedLength(_ name: UnsafeRawBufferPointer) -> Int {
        ASCIIBytes.all(name) ? name.count : 1
    }

    /// ``fold(_:)`` written at the start of `out` (at least ``foldedLength(_:)`` bytes);
    /// returns the length written.
    static func fold(_ name: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) -> Int {
        guard ASCIIBytes.all(name) else {
            out[0] = nonASCII
            return 1
        }
        for index in 0..<name.count {
            let byte = name[index]
            out[index] = byte &- 0x41 < 26 ? byte | 0x20 : byte
        }
        return name.count
    }

    /// The first 8 bytes of BLAKE2b-256(key = lookup key, kind ‖ folded name), read as a
    /// little-endian `u64` (the row stores those 8 bytes).
    package static func tag(kind: ItemKind, name: some Collection<UInt8>, keys: EpochKeys) throws(FormatError) -> UInt64 {
        if let tag = name.withContiguousStorageIfAvailable({ (bytes) -> Result<UInt64, FormatError> in
            Result { () throws(FormatError) in try tag(kind: kind, nameBytes: UnsafeRawBufferPointer(bytes), keys: keys) }
        }) {
            return try tag.get()
        }
        return try Array(name).withBytes { (raw) throws(FormatError) in try tag(kind: kind, nameBytes: raw, keys: keys) }
    }

    /// ``tag(kind:name:keys:)`` of a name in place, folded into a buffer on the stack: a
    /// listing and a save check the tag of every record of the vault.
    static func tag(kind: ItemKind, nameBytes name: UnsafeRawBufferPointer, keys: EpochKeys) throws(FormatError) -> UInt64 {
        let digest = withUnsafeTemporaryAllocation(byteCount: 1 + foldedLength(name), alignment: 1) { input -> Result<Digest256, CofferError> in
            input[0] = kind.code
            _ = fold(name, into: UnsafeMutableRawBufferPointer(rebasing: input[1...]))
            return Result { () throws(CofferError) in try BLAKE2b.mac256(buffer: UnsafeRawBufferPointer(input), key: keys.lookupKey) }
        }
        return try crypto { () throws(CofferError) in try digest.get() }.prefix64
    }

    /// The tag of a checked in-memory overview list (its kind and name key).
    package static func tag(ofOverview list: [UInt8], keys: EpochKeys) throws(FormatError) -> UInt64 {
        try list.withBytes { (raw) throws(FormatError) -> UInt64 in
            let (kind, range) = try nameKeyRange(raw)
            return try tag(kind: kind, nameBytes: range.map { UnsafeRawBufferPointer(rebasing: raw[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0), keys: keys)
        }
    }

    /// The kind of a checked in-memory overview list, and where its name key is (nil: absent):
    /// one pass over the fields up to the name's (tags ascend), no other field read. A list
    /// without a kind is a live item whose kind a deletion erased: a generic password
    /// (SPEC.md §17.5, as ``OverviewFields`` reads it).
    private static func nameKeyRange(_ raw: UnsafeRawBufferPointer) throws(FormatError) -> (ItemKind, Range<Int>?) {
        let T = EntryCodec.OverviewTag.self
        var kind: ItemKind?
        var offset = 0
        while offset < raw.count {
            guard raw.count - offset >= 6 else { throw .malformed("overview: no kind for its lookup tag") }
            let tag = UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 2, as: UInt32.self)))
            let value = (offset + 6)..<(offset + 6 + length)
            guard value.upperBound <= raw.count else { throw .malformed("overview: no kind for its lookup tag") }
            offset = value.upperBound
            if tag == T.kind {
                guard length == 1, let code = ItemKind(code: raw[value.lowerBound]) else { throw .malformed("overview: no kind for its lookup tag") }
                kind = code
                continue
            }
            let found = kind ?? .genericPassword
            kind = found
            let nameTag = nameField(of: found)
            if tag == nameTag { return (found, value) }
            if tag > nameTag { return (found, nil) }
        }
        return (kind ?? .genericPassword, nil)
    }

    /// The overview field that holds the name key of an item of `kind`: its service, server
    /// or label (SPEC.md §8.1).
    static func nameField(of kind: ItemKind) -> UInt16 {
        switch kind {
        case .genericPassword: return EntryCodec.OverviewTag.service
        case .internetPassword: return EntryCodec.OverviewTag.server
        case .secureNote: return EntryCodec.OverviewTag.label
        }
    }

    /// The name key of attributes (what a lookup by that name computes the tag of).
    package static func nameKey(of attributes: ItemAttributes) -> [UInt8] {
        switch attributes.kind {
        case .genericPassword: return Array((attributes.service ?? "").utf8)
        case .internetPassword: return Array((attributes.server ?? "").utf8)
        case .secureNote: return Array((attributes.label ?? "").utf8)
        }
    }
}

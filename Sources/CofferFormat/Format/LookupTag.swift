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
        var out: [UInt8] = []
        out.reserveCapacity(name.count)
        for byte in name {
            guard byte < 0x80 else { return [nonASCII] }
            out.append(byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte)
        }
        return out
    }

    /// The first 8 bytes of BLAKE2b-256(key = lookup key, kind ‖ folded name), read as a
    /// little-endian `u64` (the row stores those 8 bytes).
    package static func tag(kind: ItemKind, name: some Collection<UInt8>, keys: EpochKeys) throws(FormatError) -> UInt64 {
        let digest = try crypto { () throws(CofferError) in try BLAKE2b.mac([kind.code] + fold(name), key: keys.lookupKey) }
        return digest.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The tag of a checked in-memory overview list (its kind and name key).
    package static func tag(ofOverview list: [UInt8], keys: EpochKeys) throws(FormatError) -> UInt64 {
        let (kind, name) = try nameKey(ofOverview: list)
        return try tag(kind: kind, name: name, keys: keys)
    }

    /// The kind and the name key's bytes of a checked in-memory overview list.
    package static func nameKey(ofOverview list: [UInt8]) throws(FormatError) -> (ItemKind, [UInt8]) {
        try list.withBytes { (raw) throws(FormatError) -> (ItemKind, [UInt8]) in
            guard let fields = OverviewFields(raw), let kind = ItemKind(code: fields.kind) else {
                throw .malformed("overview: no kind for its lookup tag")
            }
            let range: Range<Int>?
            switch kind {
            case .genericPassword: range = fields.service
            case .internetPassword: range = fields.server
            case .secureNote: range = fields.label
            }
            return (kind, range.map { Array(raw[$0]) } ?? [])
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

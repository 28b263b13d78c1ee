import CofferCrypto

/// The merge fields of a version-1 overview (SPEC.md §17.3, format 1: replica indices as
/// `u8`, times as `u64`) converted to and from the encoding a decrypted list holds in
/// memory (``ItemClockCodec``: varint indices, times counted back from the version vector).
/// Only the values of the stamps, siblings and deletion fields differ; every other field,
/// and the version vector itself, is copied as it is.
///
/// A version-1 record is converted when it is opened and back when it is sealed, so each
/// conversion is the exact inverse of the other and a record re-sealed unchanged gets
/// the same plaintext back.
enum V1ClockFields {
    /// A version-1 overview list in the in-memory encoding. The fields format 1 does not
    /// have (confirmations, erased values) are unknown critical fields there: "malformed".
    static func toWorking(_ list: [UInt8]) throws(FormatError) -> [UInt8] {
        try convert(list, toV1: false)
    }

    /// An in-memory overview list in the encoding of format 1, for sealing a version-1
    /// record. A clock format 1 cannot hold (more than 255 replicas, confirmations or
    /// erased values) throws ``FormatError/invalidItem(_:)``.
    static func toV1(_ list: [UInt8]) throws(FormatError) -> [UInt8] {
        try convert(list, toV1: true)
    }

    private static func convert(_ list: [UInt8], toV1: Bool) throws(FormatError) -> [UInt8] {
        // Where the version vector and the other clock fields are. A list that does not
        // walk (fields out of order, cut short) is left as it is: the checks of the list
        // itself then report its first failing field, as SPEC.md §7.1 orders them.
        var versions: Range<Int>?
        var fields: [(tag: UInt16, value: Range<Int>)] = []
        let walked: Bool = list.withUnsafeBytes { raw in
            var reader = FieldReader(raw, structure: "overview") { _ in true }
            do throws(FormatError) {
                while let (tag, value) = try reader.next() {
                    if tag == ItemClockCodec.Tag.versions { versions = value }
                    else if ItemClockCodec.Tag.overview.contains(tag) { fields.append((tag, value)) }
                }
                return true
            } catch {
                return false
            }
        }
        guard walked, !fields.isEmpty else { return list }
        do throws(FormatError) {
            return try list.withBytes { (raw) throws(FormatError) -> [UInt8] in
                var out = FieldList()
                var copiedUpTo = 0
                for (tag, value) in fields {
                    out.raw(Array(raw[copiedUpTo..<(value.lowerBound - 6)]))
                    copiedUpTo = value.upperBound
                    guard tag <= ItemClockCodec.Tag.deleted else {
                        if toV1 { throw .invalidItem("a version-1 record cannot hold confirmations or erased values") }
                        throw .malformed("overview: unknown critical field \(tag)")
                    }
                    guard let versions else { throw .malformed("overview: clock fields without a version vector") }
                    let table = Table(UnsafeRawBufferPointer(rebasing: raw[versions]))
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[value])
                    do throws(FormatError) {
                        out.field(tag, toV1 ? try table.toV1(tag, bytes) : try table.toWorking(tag, bytes))
                    } catch .truncated(let what) {
                        // The field itself is whole: a value that ends inside an element is
                        // "malformed", not "truncated" (SPEC.md A.17.3).
                        throw .malformed("overview: \(what) is not a whole number of elements")
                    }
                }
                out.raw(Array(raw[copiedUpTo...]))
                return out.publicBytes
            }
        } catch where !toV1 {
            // SPEC.md §7.1: the fields one by one first, the merge fields after the last.
            try EntryCodec.checkFieldsOnly(list)
            throw error
        }
    }

    /// The version vector of one overview, read as its field holds it.
    private struct Table {
        let versions: UnsafeRawBufferPointer
        var n: Int { versions.count / 16 }

        init(_ versions: UnsafeRawBufferPointer) { self.versions = versions }

        func seen(_ i: Int) throws(FormatError) -> UInt64 {
            guard versions.count % 16 == 0, i < n else { throw .malformed("overview: stamp names replica index \(i) of \(n)") }
            return UInt64(littleEndian: versions.loadUnaligned(fromByteOffset: i * 16 + 8, as: UInt64.self))
        }

        // Format 1 → in memory.

        func toWorking(_ tag: UInt16, _ value: UnsafeRawBufferPointer) throws(FormatError) -> [UInt8] {
            var reader = ByteReader(value)
            var w = ByteWriter(capacity: value.count)
            func stamp(_ what: String) throws(FormatError) {
                let i = Int(try reader.u8("overview \(what)"))
                let time = try reader.u64("overview \(what)")
                let seen = try self.seen(i)
                guard time >= 1, time <= seen else { throw .malformed("overview: \(what) outside the version vector") }
                w.varint(UInt64(i))
                w.varint(seen - time)
            }
            func register(_ what: String) throws(FormatError) {
                let code = try reader.u8("overview \(what)")
                guard Register.isKnownCode(code) else { throw .malformed("overview: \(what) for unknown register \(code)") }
                w.u8(code)
                if Register.isKeyed(code) { w.u64(try reader.u64("overview \(what)")) }
            }
            switch tag {
            case ItemClockCodec.Tag.stamps:
                try stamp("default stamp")
                let mask = try reader.u32("overview stamps")
                guard UInt64(mask) <= ItemClockCodec.maxMask else { throw .malformed("overview: stamp mask names unknown registers") }
                w.varint(UInt64(mask))
                while !reader.isAtEnd { try register("stamp"); try stamp("stamp") }
            case ItemClockCodec.Tag.siblings:
                while !reader.isAtEnd { try register("sibling"); try stamp("sibling stamp") }
            default:
                while !reader.isAtEnd { try stamp("deletion") }
            }
            return w.bytes
        }

        // In memory → format 1.

        func toV1(_ tag: UInt16, _ value: UnsafeRawBufferPointer) throws(FormatError) -> [UInt8] {
            var reader = ByteReader(value)
            var w = ByteWriter(capacity: value.count + 16)
            func stamp() throws(FormatError) {
                let i = Int(try reader.varint(limit: UInt64(ItemClockCodec.maxReplicas), "overview stamp"))
                let back = try reader.varint(limit: UInt64.max, "overview stamp")
                guard i <= Int(UInt8.max) else { throw .invalidItem("a version-1 record holds at most 255 replicas per item") }
                let seen = try self.seen(i)
                guard back < seen else { throw .invalidItem("a stamp outside the item's clock") }
                w.u8(UInt8(i))
                w.u64(seen - back)
            }
            func register() throws(FormatError) {
                let code = try reader.u8("overview register")
                w.u8(code)
                if Register.isKeyed(code) { w.u64(try reader.u64("overview register")) }
            }
            switch tag {
            case ItemClockCodec.Tag.stamps:
                try stamp()
                let mask = try reader.varint(limit: ItemClockCodec.maxMask, "overview stamp mask")
                w.u32(UInt32(mask))
                while !reader.isAtEnd { try register(); try stamp() }
            case ItemClockCodec.Tag.siblings:
                while !reader.isAtEnd { try register(); try stamp() }
            default:
                while !reader.isAtEnd { try stamp() }
            }
            return w.bytes
        }
    }
}

import CofferCrypto
/// The authenticated list of entries: ids, revisions and record digests, plus the
/// vault's generation counter (SPEC.md §8).
package struct Manifest: Sendable, Equatable {
    package var generation: UInt64
    var entries: [ManifestEntry]

    /// The number of entries listed.
    package var entryCount: Int { entries.count }

    /// Bytes of one manifest entry: id (16), revision (8), record digest (32).
    static let entryLength = FormatV1.entryIDLength + 8 + FormatV1.digestLength

    static func parse(_ buffer: UnsafeRawBufferPointer) throws(FormatError) -> Manifest {
        var reader = ByteReader(buffer)
        let generation = try reader.u64("manifest generation")
        let count = Int(try reader.u32("manifest entry count"))
        guard count <= FormatV1.maxEntries else { throw .malformed("manifest: \(count) entries is too many") }
        guard reader.remaining == count * entryLength else {
            throw .malformed("manifest: \(reader.remaining) bytes for \(count) entries")
        }
        var entries: [ManifestEntry] = []
        entries.reserveCapacity(count)
        var previous: ItemID?
        for index in 0..<count {
            let id = ItemID(buffer: UnsafeRawBufferPointer(rebasing: buffer[try reader.range(FormatV1.entryIDLength, "manifest entry \(index)")]))
            let revision = try reader.u64("manifest entry \(index)")
            let digest = Digest256(UnsafeRawBufferPointer(rebasing: buffer[try reader.range(FormatV1.digestLength, "manifest entry \(index)")]))
            // Strictly ascending ids: canonical, and no entry can be listed twice.
            if let previous, !(previous < id) { throw .malformed("manifest: entry ids not strictly ascending at \(index)") }
            guard revision >= 1 else { throw .malformed("manifest: entry \(index) has revision 0") }
            previous = id
            entries.append(ManifestEntry(id: id, revision: revision, recordDigest: digest))
        }
        return Manifest(generation: generation, entries: entries)
    }

    func encode(into writer: inout ByteWriter) {
        writer.u32(UInt32(12 + entries.count * Self.entryLength))
        writer.u64(generation)
        writer.u32(UInt32(entries.count))
        for entry in entries {
            writer.bytes(entry.id.bytes)
            writer.u64(entry.revision)
            writer.bytes(entry.recordDigest.bytes)
        }
    }
}

struct ManifestEntry: Sendable, Equatable {
    let id: ItemID
    let revision: UInt64
    let recordDigest: Digest256
}

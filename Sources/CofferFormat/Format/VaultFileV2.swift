import CofferCrypto

/// A whole format-2 vault file, parsed (SPEC.md §2).
///
/// `parse` checks structure, bounds and the header checksum without any key (SPEC.md §10
/// steps 1–9); `unlock` opens a key slot and checks the epoch id (step 10);
/// `authenticate` checks the header MAC, the key history and the manifest MAC (steps
/// 11–12); each record's parts are checked when they are opened (step 15). `encode`
/// writes a file from its parts.
package struct VaultFileV2: Sendable {
    package let header: VaultHeaderV2
    package let generation: UInt64
    package let records: [RecordV2]
    /// The file as read; MACs are checked over ranges of it.
    let bytes: [UInt8]
    /// `[0, headerEnd)` is preamble + header body (checksummed and MACed).
    let headerEnd: Int
    let headerMAC: [UInt8]
    /// `[0, manifestEnd)` is everything the manifest MAC covers.
    let manifestEnd: Int
    let manifestMAC: [UInt8]

    /// The version of the file these parts were read from: 2, or 1 for a version-1 file
    /// converted in memory (``converting(_:keys:entropy:)``), which has no bytes of its own.
    package let sourceVersion: UInt16

    /// The MAC of `[0, manifestEnd)` under the manifest key of `keys`, computed on another
    /// core while the rows were parsed (``parse(head:fileSize:macKeys:)``);
    /// ``authenticate(keys:)`` compares it where it would compute it, for those keys only.
    var manifestMACComputed: (keys: EpochKeys, mac: [UInt8])? = nil

    /// The manifest's fixed part: generation and entry count.
    static let manifestFixedLength = 12
    /// The largest manifest: 10,000,000 rows of the longest kind.
    static let maxManifestLength = manifestFixedLength + FormatV1.maxEntries * FormatV2.maxRowLength

    /// The longest file prefix ``parseSummary(_:)`` reads.
    package static let summaryPrefixLength = FormatV1.preambleLength + FormatV2.maxHeaderLength + 2 * FormatV1.digestLength + 4 + 12

    /// Steps 1–6 and the manifest length: shared by `parse` and `parseSummary`. The reader
    /// it returns stands just after the manifest length.
    private static func parseHead(_ raw: UnsafeRawBufferPointer)
        throws(FormatError) -> (header: VaultHeaderV2, headerEnd: Int, headerMAC: [UInt8], manifestLength: Int, reader: ByteReader) {
        let version = try VaultFile.readPreamble(raw)
        guard version == FormatV2.version else { throw .unsupportedVersion(version) }
        var (headerRange, headerMAC, reader) = try VaultFile.readHeaderFrame(raw, maxLength: FormatV2.maxHeaderLength)
        let headerEnd = headerRange.upperBound
        let header = try VaultHeaderV2.parse(UnsafeRawBufferPointer(rebasing: raw[headerRange]))
        let manifestLength = Int(try reader.u32("manifest length"))
        guard manifestLength >= manifestFixedLength, manifestLength <= maxManifestLength else {
            throw .malformed("manifest: length \(manifestLength) out of bounds")
        }
        return (header, headerEnd, headerMAC, manifestLength, reader)
    }

    /// The header, generation and entry count from the start of a file, for ``Vault/info(at:)``:
    /// nothing authenticated, no row read.
    package static func parseSummary(_ prefix: [UInt8]) throws(FormatError) -> (header: VaultHeaderV2, generation: UInt64, entryCount: Int) {
        try prefix.withBytes { (raw) throws(FormatError) -> (header: VaultHeaderV2, generation: UInt64, entryCount: Int) in
            let head = try parseHead(raw)
            var reader = head.reader
            let generation = try reader.u64("manifest generation")
            let count = Int(try reader.u32("manifest entry count"))
            guard count <= FormatV1.maxEntries else { throw .malformed("manifest: \(count) entries is too many") }
            return (head.header, generation, count)
        }
    }

    /// The manifest from its bytes (generation, count, rows, nothing after them): returns the
    /// generation and hands each row, checked, to `body` in order (a reader in windows makes
    /// its records from them without an array of rows). `reserve` gets how many rows there can be.
    private static func parseManifest(_ manifestBytes: UnsafeRawBufferPointer, reserve: (Int) -> Void,
                                      _ body: (RecordV2.Row) -> Void) throws(FormatError) -> UInt64 {
        var manifest = ByteReader(manifestBytes)
        let generation = try manifest.u64("manifest generation")
        let count = Int(try manifest.u32("manifest entry count"))
        guard count <= FormatV1.maxEntries else { throw .malformed("manifest: \(count) entries is too many") }
        // The count is a claim: room for no more rows than the manifest's bytes can hold.
        reserve(min(count, manifest.remaining / FormatV2.minRowLength))
        var previous: ItemID?
        for index in 0..<count {
            let row = try RecordV2.Row.parse(&manifest, index: index)
            if let previous, !(previous < row.id) {
                throw .malformed("manifest: entry ids not strictly ascending at \(index)")
            }
            previous = row.id
            body(row)
        }
        guard manifest.isAtEnd else { throw .malformed("manifest: \(manifest.remaining) bytes after the last row") }
        return generation
    }

    /// SPEC.md §10 steps 7–8 after the manifest length: the manifest (its rows) and its MAC.
    /// The reader is left after the MAC.
    /// Each row, checked, goes to `each` (``parseManifest(_:reserve:_:)``).
    private static func readManifest(_ raw: UnsafeRawBufferPointer, _ reader: inout ByteReader, length: Int,
                                     reserve: (Int) -> Void, _ each: (RecordV2.Row) -> Void)
        throws(FormatError) -> (generation: UInt64, end: Int, mac: [UInt8]) {
        let manifestRange = try reader.range(length, "manifest")
        let generation = try parseManifest(UnsafeRawBufferPointer(rebasing: raw[manifestRange]), reserve: reserve, each)
        let mac = try reader.bytes(FormatV1.digestLength, "manifest MAC")
        return (generation, manifestRange.upperBound, mac)
    }

    /// SPEC.md §10 step 9: the bytes after the manifest MAC (`present`) are exactly the
    /// records the rows describe: fewer is "truncated", more "malformed".
    private static func checkRecordBytes(needed: Int, present: Int) throws(FormatError) {
        guard present >= needed else { throw .truncated("entry records: \(present) of \(needed) bytes present") }
        guard present == needed else { throw .malformed("\(present - needed) bytes after the last entry record") }
    }

    /// A file checked from its start before the rest is read: a replica about to be merged
    /// (SPEC.md §17). Made from the first ``summaryPrefixLength`` bytes.
    package struct Start: Sendable {
        package let header: VaultHeaderV2
        let headerEnd: Int
        let headerMAC: [UInt8]
        /// Where the manifest MAC ends: the bytes ``checkManifest(_:fileSize:keys:)`` needs.
        package let manifestMACEnd: Int

        /// The start of a file of more than `prefix.count` bytes. Throws what ``parse(_:)``
        /// throws for the same bytes: the header and the manifest length lie within the prefix.
        package init(_ prefix: [UInt8]) throws(FormatError) {
            let head = try prefix.withBytes { (raw) throws(FormatError) in try VaultFileV2.parseHead(raw) }
            header = head.header
            headerEnd = head.headerEnd
            headerMAC = head.headerMAC
            manifestMACEnd = head.headerEnd + 2 * FormatV1.digestLength + 4 + head.manifestLength + FormatV1.digestLength
        }

        /// The header MAC with `keys` (SPEC.md §10 step 11): a file whose header was not
        /// written with this vault's key goes no further.
        package func authenticateHeader(_ prefix: [UInt8], keys: EpochKeys) throws(FormatError) {
            let headerOK = try prefix.withBytes { (raw) throws(FormatError) in
                ConstantTime.equals(try crypto { () throws(CofferError) in try BLAKE2b.mac(raw[0..<headerEnd], key: keys.headerKey) }, headerMAC)
            }
            guard headerOK else { throw .tampered(.header) }
        }

        /// The manifest MAC checked over the file's first ``manifestMACEnd`` bytes as `read`
        /// hands them over, in order, a window at a time (the store's `readWindows`): a
        /// manifest length forged after an authentic header costs one window of memory to
        /// refuse, not the up to ``VaultFileV2/maxManifestLength`` bytes it claims. A file
        /// shorter than ``manifestMACEnd`` (`fileSize`) is `truncated` before anything is read.
        /// On success the manifest is authentic and ``checkManifest(_:fileSize:keys:)`` may read it whole.
        package func authenticateManifest(fileSize: Int, keys: EpochKeys,
                                          reading read: (_ body: (UnsafeRawBufferPointer) -> Void) throws(CofferError) -> Void) throws(FormatError) {
            guard fileSize >= manifestMACEnd else { throw .truncated("manifest: \(fileSize) of \(manifestMACEnd) bytes present") }
            let manifestEnd = manifestMACEnd - FormatV1.digestLength
            var tag: [UInt8] = []
            var offset = 0
            let computed = try crypto { () throws(CofferError) in
                try BLAKE2b.mac(key: keys.manifestKey) { (update) throws(CofferError) in
                    // `read` calls `update` only while it runs, one window after another.
                    try withoutActuallyEscaping(update) { (update) throws(CofferError) in try read { window in
                        let start = offset
                        offset += window.count
                        if start < manifestEnd { update(UnsafeRawBufferPointer(rebasing: window[0..<min(window.count, manifestEnd - start)])) }
                        let from = max(start, manifestEnd), to = min(offset, manifestMACEnd)
                        if from < to { tag += window[(from - start)..<(to - start)] }
                    } }
                }
            }
            guard offset >= manifestMACEnd else { throw .truncated("manifest: \(offset) of \(manifestMACEnd) bytes present") }
            guard ConstantTime.equals(computed, tag) else { throw .tampered(.manifest) }
        }

        /// The manifest's rows (in `bytes`, the file's first ``manifestMACEnd`` bytes, after
        /// ``authenticateManifest(fileSize:keys:reading:)``) against the file's size: too small
        /// is `truncated`, too large `malformed`, as ``parse(_:)`` would say once it had read it
        /// all. The MAC is not checked again: the whole copy is authenticated when it is read.
        package func checkManifest(_ bytes: [UInt8], fileSize: Int) throws(FormatError) {
            guard bytes.count >= manifestMACEnd else { throw .truncated("manifest: \(bytes.count) of \(manifestMACEnd) bytes present") }
            let manifestStart = headerEnd + 2 * FormatV1.digestLength + 4
            let manifestEnd = manifestMACEnd - FormatV1.digestLength
            var needed = 0
            _ = try bytes.withBytes { (raw) throws(FormatError) in
                try VaultFileV2.parseManifest(UnsafeRawBufferPointer(rebasing: raw[manifestStart..<manifestEnd]), reserve: { _ in }) { row in
                    needed += row.overviewLength + row.secretLength
                }
            }
            try VaultFileV2.checkRecordBytes(needed: needed, present: fileSize - manifestMACEnd)
        }
    }

    package static func parse(_ bytes: [UInt8]) throws(FormatError) -> VaultFileV2 {
        try bytes.withBytes { (raw) throws(FormatError) -> VaultFileV2 in
            let head = try parseHead(raw)
            var reader = head.reader
            var rows: [RecordV2.Row] = []
            let (generation, manifestEnd, manifestMAC) = try readManifest(raw, &reader, length: head.manifestLength,
                                                                          reserve: { rows.reserveCapacity($0) }) { rows.append($0) }
            // The records: exactly the rows' lengths, one after another, to the end of the file.
            try checkRecordBytes(needed: rows.reduce(0) { $0 + $1.overviewLength + $1.secretLength }, present: reader.remaining)
            var records: [RecordV2] = []
            records.reserveCapacity(rows.count)
            for row in rows {
                let range = try reader.range(row.overviewLength + row.secretLength, "entry record")
                records.append(RecordV2(id: row.id, revision: row.revision, nonce: row.nonce, lookupTag: row.lookupTag,
                                        isTombstone: row.isTombstone, body: bytes[range], overviewLength: row.overviewLength))
            }
            return VaultFileV2(header: head.header, generation: generation, records: records, bytes: bytes,
                               headerEnd: head.headerEnd, headerMAC: head.headerMAC, manifestEnd: manifestEnd,
                               manifestMAC: manifestMAC, sourceVersion: FormatV2.version)
        }
    }

    /// A file read in windows: `head` is its start up to the end of the manifest MAC (or
    /// all of a shorter file), `fileSize` its whole size. Checks exactly what ``parse(_:)``
    /// checks (SPEC.md §10 steps 1–9: step 9 from the size, as the records' lengths are the
    /// rows'), and gives the same errors; the records are not read: each has its
    /// ``RecordV2/location`` and is read when it is used (``RecordV2/loaded(from:)``).
    ///
    /// With `macKeys` (the keys a slot gave from the file's start, SPEC.md §10 notes), the
    /// manifest MAC under them is computed on another core while the rows are parsed: the
    /// two are a large vault's opening work beyond the KDF (100,000 rows: 26 and 37 million
    /// instructions). Nothing is decided by it here: ``authenticate(keys:)`` checks it in
    /// its place (step 12, after the header MAC and the key history), and parsing errors
    /// come first as before.
    package static func parse(head: [UInt8], fileSize: Int, macKeys: EpochKeys? = nil) throws(FormatError) -> VaultFileV2 {
        try head.withBytes { (raw) throws(FormatError) -> VaultFileV2 in
            let parsed = try parseHead(raw)
            var reader = parsed.reader
            let macEnd = reader.offset + parsed.manifestLength
            let mac = macKeys.flatMap { keys in
                macEnd <= head.count && parsed.manifestLength >= Self.concurrentMACLength
                    ? ParallelWork.Background<[UInt8], CofferError> { () throws(CofferError) in try BLAKE2b.mac(head[0..<macEnd], key: keys.manifestKey) } : nil
            }
            // Joined on every path out (a parsing error leaves no thread reading the bytes).
            defer { _ = try? mac?.wait() }
            // Each row made a record not read yet as it is parsed (100,000 rows: no array of
            // rows beside the records), placed after the manifest MAC.
            let recordsStart = reader.offset + parsed.manifestLength + FormatV1.digestLength
            var records: [RecordV2] = []
            var offset = recordsStart
            let (generation, manifestEnd, manifestMAC) = try readManifest(raw, &reader, length: parsed.manifestLength,
                                                                          reserve: { records.reserveCapacity($0) }) { row in
                records.append(RecordV2(row: row, at: offset))
                offset += row.overviewLength + row.secretLength
            }
            try checkRecordBytes(needed: offset - recordsStart, present: fileSize - reader.offset)
            // The start as read, when it ends at the manifest MAC (as a reader in windows reads it): no copy.
            let start = reader.offset == head.count ? head : Array(head[0..<reader.offset])
            var file = VaultFileV2(header: parsed.header, generation: generation, records: records, bytes: start,
                                   headerEnd: parsed.headerEnd, headerMAC: parsed.headerMAC, manifestEnd: manifestEnd,
                                   manifestMAC: manifestMAC, sourceVersion: FormatV2.version)
            // (A failed computation leaves it to `authenticate`, which computes it and says why.)
            if let macKeys, manifestEnd == macEnd, let computed = try? mac?.wait() { file.manifestMACComputed = (macKeys, computed) }
            return file
        }
    }

    /// The smallest manifest whose MAC ``parse(head:fileSize:macKeys:)`` computes on another
    /// core (a thread costs more than the MAC of a few thousand rows).
    static let concurrentMACLength = 256 * 1024

    /// A version-1 file, authenticated with `keys`, as version-2 parts under the same key
    /// (SPEC.md §11.1: ``FormatUpgrade``): what a reader of both versions holds in memory, so
    /// that everything above reads one version. Every record's digest is checked on the way.
    /// The epoch start is a placeholder until the upgrading save stamps it.
    package static func converting(_ file: VaultFile, keys: VaultKeys, entropy: EntropySource) throws(FormatError) -> VaultFileV2 {
        try file.verify(keys: keys)
        let epoch = try EpochKeys(epochKey: keys.vaultKey)
        let start = Stamp(replica: 1, time: max(1, file.header.clock.maxTime))
        let header = try FormatUpgrade.header(file.header, epoch: epoch, start: start)
        var records: [RecordV2] = []
        records.reserveCapacity(file.records.count)
        for record in file.records {
            records.append(try FormatUpgrade.record(record, vaultID: file.header.vaultID, from: keys, to: epoch, entropy: entropy))
        }
        return VaultFileV2(header: header, generation: file.manifest.generation, records: records, bytes: [], headerEnd: 0,
                           headerMAC: [], manifestEnd: 0, manifestMAC: [], sourceVersion: FormatV1.version)
    }

    // MARK: Unlocking (SPEC.md §4.10, §10 step 10)

    /// What opened the vault: the slot's identity and type and the seeds its credential
    /// gave, which a cached unlock keeps (SPEC.md §13.1).
    package struct OpenedSlot: Sendable {
        package let identity: [UInt8]
        package let seeds: KeySlotV2.Seeds
    }

    package func unlock(with credential: VaultCredential) throws(FormatError) -> (keys: EpochKeys, slot: OpenedSlot) {
        try Self.unlock(header, with: credential)
    }

    /// Tries every slot of the credential's kind, cheapest KDF first (memory × passes,
    /// header order among equals); the key a slot opens must have the header's epoch id.
    package static func unlock(_ header: VaultHeaderV2, with credential: VaultCredential) throws(FormatError) -> (keys: EpochKeys, slot: OpenedSlot) {
        // A raw key is 32 bytes: one of another length opens no slot (SPEC.md §4.4).
        if case .rawKey(let raw) = credential, raw.count != FormatV1.keyLength { throw .wrongRawKey }
        let cost = { (slot: KeySlotV2) in slot.kdf.map { UInt64($0.memoryKiB) * UInt64($0.iterations) } ?? 0 }
        let candidates = header.slots.enumerated().filter { $0.element.kind == credential.slotKind }
            .sorted { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }.map(\.element)
        for slot in candidates {
            if let opened = try slot.open(with: credential, vaultID: header.vaultID, epochID: header.epochID) {
                return (try epochKeys(opened.key, header: header), OpenedSlot(identity: slot.identity, seeds: opened.seeds))
            }
        }
        throw credential.wrongKeyError
    }

    /// The keys from a cached unlock's seeds (SPEC.md §13.1), or nil when no slot of the
    /// header has that identity and type, or it does not open with them. No KDF runs.
    package func unlock(identity: [UInt8], seeds: KeySlotV2.Seeds) throws(FormatError) -> EpochKeys? {
        try Self.unlock(header, identity: identity, seeds: seeds)
    }

    /// ``unlock(identity:seeds:)`` from a header alone (a file's start, before the rest is read).
    package static func unlock(_ header: VaultHeaderV2, identity: [UInt8], seeds: KeySlotV2.Seeds) throws(FormatError) -> EpochKeys? {
        guard let slot = header.slots.first(where: { $0.identity == identity && $0.type == seeds.type }),
              let key = try slot.open(seeds: seeds, vaultID: header.vaultID, epochID: header.epochID) else { return nil }
        return try epochKeys(key, header: header)
    }

    /// The key's derived keys, after checking its commitment: a key whose epoch id is not the
    /// header's is refused as a header failure.
    private static func epochKeys(_ key: SecureBytes, header: VaultHeaderV2) throws(FormatError) -> EpochKeys {
        let keys = try EpochKeys(epochKey: key)
        guard ConstantTime.equals(keys.epochID, header.epochID) else { throw .tampered(.header) }
        return keys
    }

    // MARK: Authenticating (SPEC.md §10 steps 11–12)

    /// The header MAC, the key history (its AEAD and every key's epoch id), the manifest MAC.
    /// Returns the earlier epochs' keys.
    @discardableResult
    package func authenticate(keys: EpochKeys) throws(FormatError) -> [(epoch: KeyHistory.Epoch, keys: EpochKeys)] {
        // A converted version-1 file was authenticated as version 1.
        guard sourceVersion == FormatV2.version else { return [] }
        let headerOK = try bytes.withBytes { (raw) throws(FormatError) in
            ConstantTime.equals(try crypto { () throws(CofferError) in try BLAKE2b.mac(raw[0..<headerEnd], key: keys.headerKey) }, headerMAC)
        }
        guard headerOK else { throw .tampered(.header) }
        let earlier = try header.keyHistory?.open(with: keys, vaultID: header.vaultID) ?? []
        let manifestOK = try bytes.withBytes { (raw) throws(FormatError) in
            if let computed = manifestMACComputed, computed.keys === keys { return ConstantTime.equals(computed.mac, manifestMAC) }
            return ConstantTime.equals(try crypto { () throws(CofferError) in try BLAKE2b.mac(raw[0..<manifestEnd], key: keys.manifestKey) }, manifestMAC)
        }
        guard manifestOK else { throw .tampered(.manifest) }
        return earlier
    }

    // MARK: Writing

    /// Writes a file: preamble, header, checksum, header MAC, manifest, manifest MAC, records.
    package static func encode(header: VaultHeaderV2, generation: UInt64, records: [RecordV2], keys: EpochKeys) throws(FormatError) -> EncodedVaultFile {
        // Sorted by index, not by copying each record (128 bytes): 13 MB less for 100,000
        // entries; by their ids alone (reading a record's id through the array retained its
        // bytes at every comparison), and only when they are not in order already.
        let ids = records.withUnsafeBufferPointer { records in records.indices.map { RecordV2.id(at: records.baseAddress! + $0) } }
        let ordered = zip(ids, ids.dropFirst()).allSatisfy({ $0 < $1 }) ? Array(ids.indices) : ids.indices.sorted { ids[$0] < ids[$1] }
        for (a, b) in zip(ordered, ordered.dropFirst()) where ids[a] == ids[b] {
            throw .invalidArgument("two records share entry id \(ids[a].hex)")
        }
        // Fields read in place (a method or computed property on `records[index]` copied the
        // record, retaining its bytes: 3 retains a record, 6 ms of a 100,000-entry save on one core).
        try records.withUnsafeBufferPointer { (records) throws(FormatError) in
            for index in ordered where RecordV2.location(at: records.baseAddress! + index) != nil { try records[index].requireLoaded() }
        }
        let head = try encodeHead(header: header, generation: generation, records: records, order: ordered, keys: keys)
        return EncodedVaultFile(head: head, bodies: records.withUnsafeBufferPointer { records in
            ordered.map { RecordV2.body(at: records.baseAddress! + $0) }
        })
    }

    /// Everything of a format-2 file before its first record (preamble, header, checksum,
    /// header MAC, manifest and manifest MAC) for `records` written in `order` (ascending
    /// ids): a save that streams the records from their file (its rows in id order) needs
    /// only their rows, not their bytes.
    package static func encodeHead(header: VaultHeaderV2, generation: UInt64, records: [RecordV2], order: [Int]? = nil,
                                   keys: EpochKeys) throws(FormatError) -> [UInt8] {
        if order == nil {   // (``encode(header:generation:records:keys:)`` sorted them)
            for (a, b) in zip(records, records.dropFirst()) where !(a.id < b.id) {
                throw .invalidArgument("records out of id order at \(b.id.hex)")
            }
        }
        let ordered = order ?? Array(records.indices)
        guard ordered.count <= FormatV1.maxEntries else { throw .invalidArgument("more than \(FormatV1.maxEntries) entries") }
        guard header.slots.count >= 1, header.slots.count <= FormatV1.maxSlots else {
            throw .slotUnavailable("a vault has 1 to \(FormatV1.maxSlots) key slots")
        }
        guard ConstantTime.equals(header.epochID, keys.epochID) else { throw .invalidKey("the header names another epoch") }
        let body = header.encodeBody()
        guard body.count <= FormatV2.maxHeaderLength else { throw .invalidArgument("header exceeds 1 MiB") }
        var manifest = ByteWriter(capacity: manifestFixedLength + ordered.count * 56)
        manifest.u64(generation)
        manifest.u32(UInt32(ordered.count))
        records.withUnsafeBufferPointer { records in
            for index in ordered { RecordV2.row(at: records.baseAddress! + index).encode(into: &manifest) }
        }

        var writer = ByteWriter(capacity: FormatV1.preambleLength + body.count + 64 + 4 + manifest.bytes.count + 32)
        writer.bytes(FormatV1.magic)
        writer.u16(FormatV2.version)
        writer.u32(UInt32(body.count))
        writer.bytes(body)
        writer.bytes(try crypto { () throws(CofferError) in try BLAKE2b.hash(writer.bytes) })
        writer.bytes(try crypto { () throws(CofferError) in
            try BLAKE2b.mac(writer.bytes[0..<(FormatV1.preambleLength + body.count)], key: keys.headerKey)
        })
        writer.u32(UInt32(manifest.bytes.count))
        writer.bytes(manifest.bytes)
        writer.bytes(try crypto { () throws(CofferError) in try BLAKE2b.mac(writer.bytes, key: keys.manifestKey) })
        return writer.bytes
    }
}

import CofferCrypto
/// A whole vault file, parsed (SPEC.md §2).
///
/// `parse` checks structure, bounds and the header checksum without any key;
/// `unlock` opens a key slot; `verify` checks the header MAC, the manifest MAC and
/// every record against the manifest. `encode` writes a file from its parts.
package struct VaultFile: Sendable {
    package let header: VaultHeader
    package let manifest: Manifest
    package let records: [EntryRecord]
    /// The file as read; MACs are checked over ranges of it.
    let bytes: [UInt8]
    /// `[0, headerEnd)` is preamble + header body (checksummed and MACed).
    let headerEnd: Int
    let headerMAC: [UInt8]
    /// `[0, manifestEnd)` is everything the manifest MAC covers.
    let manifestEnd: Int
    let manifestMAC: [UInt8]

    /// Reads the magic and version only: enough to tell what a file is (SPEC.md §10 steps
    /// 1–2). Throws for anything but a version this library reads (1 or 2).
    package static func readPreamble(_ raw: UnsafeRawBufferPointer) throws(FormatError) -> UInt16 {
        let magic = FormatV1.magic
        let prefix = min(raw.count, magic.count)
        guard raw.prefix(prefix).elementsEqual(magic.prefix(prefix)) else { throw .notACofferFile }
        var reader = ByteReader(raw)
        try reader.skip(magic.count, in: "magic")
        let version = try reader.u16("format version")
        guard version == FormatV1.version || version == FormatV2.version else { throw .unsupportedVersion(version) }
        return version
    }

    /// The format version of a file's first bytes (1 or 2), or the error ``readPreamble(_:)`` gives.
    package static func formatVersion(_ bytes: [UInt8]) throws(FormatError) -> UInt16 {
        try bytes.withBytes { (raw) throws(FormatError) in try readPreamble(raw) }
    }

    /// Reads the magic and version of a format-1 file.
    static func checkPreamble(_ raw: UnsafeRawBufferPointer) throws(FormatError) {
        let version = try readPreamble(raw)
        guard version == FormatV1.version else { throw .unsupportedVersion(version) }
    }

    /// SPEC.md §10 steps 3–5, the same in both versions: the header length and its bound,
    /// the header body, checksum and MAC present, the checksum right. Returns where the
    /// body is, the MAC, and a reader standing after the MAC.
    static func readHeaderFrame(_ raw: UnsafeRawBufferPointer, maxLength: Int)
        throws(FormatError) -> (body: Range<Int>, mac: [UInt8], reader: ByteReader) {
        var reader = ByteReader(raw, offset: FormatV1.magic.count + 2)
        let headerLength = Int(try reader.u32("header length"))
        guard headerLength <= maxLength else { throw .malformed("header: length \(headerLength) exceeds \(maxLength) bytes") }
        let headerRange = try reader.range(headerLength, "header")
        let checksum = Digest256(UnsafeRawBufferPointer(rebasing: raw[try reader.range(FormatV1.digestLength, "header checksum")]))
        let headerMAC = try reader.bytes(FormatV1.digestLength, "header MAC")
        // The checksum catches corruption before any KDF runs; the MAC (checked after
        // unlocking) catches deliberate changes.
        let computed = try crypto { () throws(CofferError) in
            try BLAKE2b.digest256(buffer: UnsafeRawBufferPointer(rebasing: raw[0..<headerRange.upperBound]))
        }
        guard computed == checksum else { throw .tampered(.header) }
        return (headerRange, headerMAC, reader)
    }

    /// The longest file prefix ``parseSummary(_:)`` reads: preamble, the largest header,
    /// checksum, MAC, manifest length, generation and entry count.
    package static let summaryPrefixLength = FormatV1.preambleLength + FormatV1.maxHeaderLength + 2 * FormatV1.digestLength + 4 + 12

    /// Reads preamble, header (checksum checked) and manifest length: SPEC.md §10 steps
    /// up to the manifest, shared by `parse` and `parseSummary`. The reader it returns
    /// stands just after the manifest length.
    private static func parseHead(_ raw: UnsafeRawBufferPointer)
        throws(FormatError) -> (header: VaultHeader, headerEnd: Int, headerMAC: [UInt8], manifestLength: Int, reader: ByteReader) {
        try checkPreamble(raw)
        var (headerRange, headerMAC, reader) = try readHeaderFrame(raw, maxLength: FormatV1.maxHeaderLength)
        let headerEnd = headerRange.upperBound
        let header = try VaultHeader.parse(UnsafeRawBufferPointer(rebasing: raw[headerRange]))

        let manifestLength = Int(try reader.u32("manifest length"))
        guard manifestLength >= 12, manifestLength <= 12 + FormatV1.maxEntries * Manifest.entryLength else {
            throw .malformed("manifest: length \(manifestLength) out of bounds")
        }
        return (header, headerEnd, headerMAC, manifestLength, reader)
    }

    /// The header, generation and entry count from the start of a file (at most
    /// ``summaryPrefixLength`` bytes), for ``Vault/info(at:)``: nothing authenticated,
    /// nothing past the manifest's count read. `prefix` shorter than the file is fine;
    /// a file that ends early gives `truncated`, as `parse` would.
    package static func parseSummary(_ prefix: [UInt8]) throws(FormatError) -> (header: VaultHeader, generation: UInt64, entryCount: Int) {
        try prefix.withBytes { (raw) throws(FormatError) -> (header: VaultHeader, generation: UInt64, entryCount: Int) in
            let head = try parseHead(raw)
            var reader = head.reader
            let generation = try reader.u64("manifest generation")
            let count = Int(try reader.u32("manifest entry count"))
            guard count <= FormatV1.maxEntries else { throw .malformed("manifest: \(count) entries is too many") }
            guard head.manifestLength == 12 + count * Manifest.entryLength else {
                throw .malformed("manifest: \(head.manifestLength - 12) bytes for \(count) entries")
            }
            return (head.header, generation, count)
        }
    }

    package static func parse(_ bytes: [UInt8]) throws(FormatError) -> VaultFile {
        try bytes.withBytes { (raw) throws(FormatError) -> VaultFile in
            var (header, headerEnd, headerMAC, manifestLength, reader) = try parseHead(raw)
            let manifestRange = try reader.range(manifestLength, "manifest")
            let manifestEnd = manifestRange.upperBound
            let manifest = try Manifest.parse(UnsafeRawBufferPointer(rebasing: raw[manifestRange]))
            let manifestMAC = try reader.bytes(FormatV1.digestLength, "manifest MAC")

            // Records run to the end of the file; their number is checked against the
            // authenticated manifest in `verify`.
            var records: [EntryRecord] = []
            records.reserveCapacity(manifest.entries.count)
            while !reader.isAtEnd {
                let index = records.count
                guard index < manifest.entries.count else {
                    throw .malformed("\(reader.remaining) bytes after the last entry record")
                }
                let length = Int(try reader.u32("entry record \(index) length"))
                guard length >= EntryRecord.minLength, length <= EntryRecord.maxLength else {
                    throw .malformed("entry record \(index): length \(length) out of bounds")
                }
                let range = try reader.range(length, "entry record \(index)")
                // The manifest's digest is taken as a claim here and checked in `verify`.
                records.append(try EntryRecord(body: bytes[range], index: index, digest: manifest.entries[index].recordDigest))
            }
            return VaultFile(header: header, manifest: manifest, records: records, bytes: bytes,
                                  headerEnd: headerEnd, headerMAC: headerMAC, manifestEnd: manifestEnd, manifestMAC: manifestMAC)
        }
    }

    /// Tries every slot of the credential's kind, cheapest KDF first (memory × passes;
    /// header order among equals), so a cheap slot that opens spares the costly ones;
    /// returns the vault's keys and the slot key that opened it. Any slot that opens gives
    /// the same vault key.
    package func unlock(with key: VaultCredential) throws(FormatError) -> (keys: VaultKeys, slotKey: SlotKey) {
        try Self.unlock(header, with: key)
    }

    /// ``unlock(with:)`` from the header alone (``parseSummary(_:)``), before the rest of
    /// the file is read.
    package static func unlock(_ header: VaultHeader, with key: VaultCredential) throws(FormatError) -> (keys: VaultKeys, slotKey: SlotKey) {
        // A raw key is 32 bytes: one of another length opens no slot (SPEC.md §4.4).
        if case .rawKey(let raw) = key, raw.count != FormatV1.keyLength { throw .wrongRawKey }
        let cost = { (slot: KeySlotRecord) in slot.kdf.map { UInt64($0.memoryKiB) * UInt64($0.iterations) } ?? 0 }
        let candidates = header.slots.filter { $0.kind == key.slotKind }
        for slot in candidates.enumerated().sorted(by: { (cost($0.element), $0.offset) < (cost($1.element), $1.offset) }).map(\.element) {
            if let opened = try slot.unwrapReturningKEK(with: key, vaultID: header.vaultID) {
                return (try VaultKeys(vaultKey: opened.vaultKey), SlotKey(slotIdentity: slot.identity, slotKind: slot.kind, kek: opened.kek))
            }
        }
        throw key.wrongKeyError
    }

    /// The vault's keys from a cached slot key (SPEC.md §13.1), or nil when no slot of the
    /// header has its identity or that slot does not open with it (removed, replaced, or
    /// another vault). No KDF runs.
    package func unlock(with slotKey: SlotKey) throws(FormatError) -> VaultKeys? {
        guard let slot = header.slots.first(where: { $0.identity == slotKey.slotIdentity && $0.kind == slotKey.slotKind }),
              let vaultKey = try slot.unwrap(kek: slotKey.kek, vaultID: header.vaultID) else { return nil }
        return try VaultKeys(vaultKey: vaultKey)
    }

    /// `unlock(with: slotKey)` then ``authenticate(keys:)``; nil when the slot key does not
    /// open the header (nothing else is checked then), an error when the file fails a check.
    package func unlockAndAuthenticate(with slotKey: SlotKey) throws(FormatError) -> VaultKeys? {
        guard let keys = try unlock(with: slotKey) else { return nil }
        try authenticate(keys: keys)
        return keys
    }

    /// BLAKE2b-256 of every record body, in file order.
    func recordDigests(threads: Int = ParallelWork.cores) throws(FormatError) -> [Digest256] {
        // Through a buffer pointer, as in `VaultSnapshot.init`: no copy of each record.
        try records.withUnsafeBufferPointer { (records) throws(FormatError) -> [Digest256] in
            try ParallelWork.map(count: records.count, threads: threads) { (index) throws(FormatError) in
                try EntryRecord.computeDigest(records[index].body)
            }
        }
    }

    /// Checks everything SPEC.md §10 steps 11–14 name: the header MAC, the manifest MAC, and
    /// that the records are exactly the manifest's entries, in order, with matching
    /// revisions and digests. `digests` are ``recordDigests(threads:)``, when already computed.
    package func verify(keys: VaultKeys, digests: [Digest256]? = nil) throws(FormatError) {
        try authenticateMACs(keys: keys)
        try verifyRecordsMatchManifest(digests: digests)
    }

    /// What an open checks (SPEC.md §10): the header MAC, the manifest MAC, and that the
    /// records are the manifest's entries in order, with matching ids and revisions and
    /// none missing. Each record's digest is checked when the record is first used.
    package func authenticate(keys: VaultKeys) throws(FormatError) {
        try authenticateMACs(keys: keys)
        for (record, expected) in zip(records, manifest.entries) {
            guard record.id == expected.id, record.revision == expected.revision else {
                throw .tampered(.entry(expected.id.hex))
            }
        }
        guard records.count == manifest.entries.count else {
            throw .truncated("entry records: \(records.count) of \(manifest.entries.count) present")
        }
    }

    /// The header MAC, then the manifest MAC.
    private func authenticateMACs(keys: VaultKeys) throws(FormatError) {
        let headerOK = try bytes.withBytes { (raw) throws(FormatError) in
            ConstantTime.equals(try crypto { () throws(CofferError) in try BLAKE2b.mac(raw[0..<headerEnd], key: keys.headerKey) }, headerMAC)
        }
        guard headerOK else { throw .tampered(.header) }
        let manifestOK = try bytes.withBytes { (raw) throws(FormatError) in
            ConstantTime.equals(try crypto { () throws(CofferError) in try BLAKE2b.mac(raw[0..<manifestEnd], key: keys.manifestKey) }, manifestMAC)
        }
        guard manifestOK else { throw .tampered(.manifest) }
    }

    /// Records against the (already authenticated) manifest.
    func verifyRecordsMatchManifest(digests: [Digest256]? = nil) throws(FormatError) {
        let digests = if let digests { digests } else { try recordDigests() }
        for (index, (record, expected)) in zip(records, manifest.entries).enumerated() {
            guard record.id == expected.id, record.revision == expected.revision,
                  digests[index] == expected.recordDigest else {
                throw .tampered(.entry(expected.id.hex))
            }
        }
        guard records.count == manifest.entries.count else {
            throw .truncated("entry records: \(records.count) of \(manifest.entries.count) present")
        }
    }

    /// Writes a file: preamble, header, checksum, header MAC, manifest, manifest MAC, records.
    package static func encode(header: VaultHeader, generation: UInt64, records: [EntryRecord], keys: VaultKeys) throws(FormatError) -> [UInt8] {
        try encodeInPieces(header: header, generation: generation, records: records, keys: keys).bytes
    }

    /// The same file as ``encode(header:generation:records:keys:)``, its records left where
    /// they are: a save streams it to disk (``EncodedVaultFile/withChunks(_:)``).
    package static func encodeInPieces(header: VaultHeader, generation: UInt64, records: [EntryRecord],
                                       keys: VaultKeys) throws(FormatError) -> EncodedVaultFile {
        let ordered = records.sorted { $0.id < $1.id }
        for (a, b) in zip(ordered, ordered.dropFirst()) where a.id == b.id {
            throw .invalidArgument("two records share entry id \(a.id.hex)")
        }
        guard header.slots.count >= 1, header.slots.count <= FormatV1.maxSlots else {
            throw .slotUnavailable("a vault has 1 to \(FormatV1.maxSlots) key slots")
        }
        let body = header.encodeBody()
        guard body.count <= FormatV1.maxHeaderLength else { throw .invalidArgument("header exceeds 64 KiB") }
        var manifestEntries: [ManifestEntry] = []
        manifestEntries.reserveCapacity(ordered.count)
        var recordBytes = 0
        for record in ordered {
            manifestEntries.append(ManifestEntry(id: record.id, revision: record.revision, recordDigest: record.digest))
            recordBytes += 4 + record.body.count
        }
        let manifest = Manifest(generation: generation, entries: manifestEntries)

        var writer = ByteWriter(capacity: FormatV1.preambleLength + body.count + 64 + 48
                                + manifestEntries.count * Manifest.entryLength)
        writer.bytes(FormatV1.magic)
        writer.u16(FormatV1.version)
        writer.u32(UInt32(body.count))
        writer.bytes(body)
        writer.bytes(try crypto { () throws(CofferError) in try BLAKE2b.hash(writer.bytes) })
        writer.bytes(try crypto { () throws(CofferError) in
            try BLAKE2b.mac(writer.bytes[0..<(FormatV1.preambleLength + body.count)], key: keys.headerKey)
        })
        manifest.encode(into: &writer)
        writer.bytes(try crypto { () throws(CofferError) in try BLAKE2b.mac(writer.bytes, key: keys.manifestKey) })
        return EncodedVaultFile(head: writer.bytes, records: ordered, count: writer.bytes.count + recordBytes)
    }
}

import Foundation
import CofferCrypto

/// One entry of a format-2 file (SPEC.md §7, §8): its manifest row (id, nonce, lookup tag,
/// flags, revision and the two ciphertext lengths) and its record (the overview ciphertext
/// then the secret ciphertext, both sealed under the row's one nonce with different keys).
///
/// The row's nonce, covered by the manifest MAC, binds the record: a record from another
/// copy, or an earlier version of this one, was sealed under another nonce and fails its
/// AEAD. Records read from a file share the file's buffer (no copy per entry).
package struct RecordV2: Sendable {
    package let id: ItemID
    package let revision: UInt64
    package let nonce: Nonce
    /// The lookup tag (SPEC.md §8.1), the row's 8 bytes read little-endian; 0 for a tombstone.
    package let lookupTag: UInt64
    /// A deleted item's record (SPEC.md §7.6): clock and dates only, no secret part.
    package let isTombstone: Bool
    /// The overview ciphertext then the secret ciphertext, as on disk.
    package let body: ArraySlice<UInt8>
    let overviewLength: Int
    /// Where the record lies in its file while its bytes are not read yet (a file read in
    /// windows, ``VaultFileV2/parse(head:fileSize:)``): `body` is empty until ``loaded(from:)``.
    /// Nil for a record in memory. Nothing opens, seals or writes a record not read.
    package let location: Location?

    /// A record's place in its file: its first byte and its length (both ciphertexts).
    package struct Location: Sendable, Equatable {
        package let offset: Int
        package let length: Int

        package init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }
    }

    /// Whether the record's bytes are in memory (``location`` is nil).
    package var isLoaded: Bool { location == nil }

    /// This record with its bytes, read from ``location``; `bytes` must be exactly
    /// `location.length` long.
    package func loaded(from bytes: ArraySlice<UInt8>) throws(FormatError) -> RecordV2 {
        guard let location else { return self }
        guard bytes.count == location.length else {
            throw .truncated("entry record \(id.hex): \(bytes.count) of \(location.length) bytes read")
        }
        return RecordV2(id: id, revision: revision, nonce: nonce, lookupTag: lookupTag, isTombstone: isTombstone,
                        body: bytes, overviewLength: overviewLength)
    }

    /// This record without its bytes, which lie at `location` in its file (a listing lets
    /// them go once the overview is open; ``loaded(from:)`` puts them back).
    package func unloaded(to location: Location) -> RecordV2 {
        RecordV2(id: id, revision: revision, nonce: nonce, lookupTag: lookupTag, isTombstone: isTombstone,
                 overviewLength: overviewLength, location: location)
    }

    private init(id: ItemID, revision: UInt64, nonce: Nonce, lookupTag: UInt64, isTombstone: Bool, overviewLength: Int, location: Location) {
        self.id = id
        self.revision = revision
        self.nonce = nonce
        self.lookupTag = lookupTag
        self.isTombstone = isTombstone
        body = []
        self.overviewLength = overviewLength
        self.location = location
    }

    /// Throws unless the record's bytes are in memory: no record is opened or written unread.
    func requireLoaded() throws(FormatError) {
        guard isLoaded else { throw .invalidArgument("entry record \(id.hex) was not read from its file") }
    }

    /// The 24-byte nonce of a record, inline (a vault keeps one per record).
    package struct Nonce: Sendable, Hashable {
        private var a: UInt64 = 0, b: UInt64 = 0, c: UInt64 = 0

        init(_ raw: UnsafeRawBufferPointer) {
            precondition(raw.count == FormatV1.nonceLength, "a nonce is 24 bytes")
            a = raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            b = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            c = raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        }

        package var bytes: [UInt8] { withUnsafeBytes(of: self) { Array($0) } }
    }

    package var overviewCiphertext: ArraySlice<UInt8> { body[body.startIndex..<(body.startIndex + overviewLength)] }
    package var secretCiphertext: ArraySlice<UInt8> { body[(body.startIndex + overviewLength)...] }

    /// The flags byte: bit 0 marks a tombstone; the other bits are zero.
    static let tombstoneFlag: UInt8 = 1

    package enum Part: UInt8 { case overview = 1, secret = 2 }

    package init(id: ItemID, revision: UInt64, nonce: Nonce, lookupTag: UInt64, isTombstone: Bool,
                 body: ArraySlice<UInt8>, overviewLength: Int) {
        self.id = id
        self.revision = revision
        self.nonce = nonce
        self.lookupTag = lookupTag
        self.isTombstone = isTombstone
        self.body = body
        self.overviewLength = overviewLength
        location = nil
    }

    /// A record of a file read in windows, not read yet: its row, and where it lies.
    init(row: Row, at offset: Int) {
        id = row.id
        revision = row.revision
        nonce = row.nonce
        lookupTag = row.lookupTag
        isTombstone = row.isTombstone
        body = []
        overviewLength = row.overviewLength
        location = Location(offset: offset, length: row.overviewLength + row.secretLength)
    }

    // MARK: Rows

    /// One manifest row as SPEC.md §8 lays it out, checked as step 7 says (the record's
    /// bytes come later).
    struct Row: Equatable {
        let id: ItemID
        let nonce: Nonce
        let lookupTag: UInt64
        let isTombstone: Bool
        let revision: UInt64
        let overviewLength: Int
        let secretLength: Int

        /// A row of the manifest (SPEC.md §8): the usual one read at once (``usual(_:)``),
        /// any other field by field (``parseFields(_:index:)``), which decides every error.
        static func parse(_ reader: inout ByteReader, index: Int) throws(FormatError) -> Row {
            if let row = usual(&reader) { return row }
            return try parseFields(&reader, index: index)
        }

        /// The row at the reader when it is whole and every value of it valid with each varint
        /// in one or two bytes (revisions below 16,384, parts below 16 KiB: nearly every row),
        /// read in one pass with one bounds check; the reader is then after it. Nil for any
        /// other row, the reader left where it was: ``parseFields(_:index:)`` reads it and
        /// decides. A row this returns is exactly the one ``parseFields(_:index:)`` returns
        /// (a differential test checks both on random rows): it only vouches, it never refuses.
        /// At 100,000 rows the field-by-field reading was 480 instructions a row, a tenth of
        /// `coffer get`'s work beyond the KDF.
        static func usual(_ reader: inout ByteReader) -> Row? {
            let raw = reader.buffer, start = reader.offset
            // The fixed fields (SPEC.md §8): id, nonce, lookup tag, flags; then three varints.
            let nonceAt = start + FormatV1.entryIDLength, tagAt = nonceAt + FormatV1.nonceLength, flagsAt = tagAt + 8
            guard raw.count - flagsAt >= 1 + 3 else { return nil }
            let tag = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: tagAt, as: UInt64.self))
            let flags = raw[flagsAt]
            guard flags & ~tombstoneFlag == 0 else { return nil }
            let isTombstone = flags == tombstoneFlag
            guard !isTombstone || tag == LookupTag.tombstone else { return nil }
            var at = flagsAt + 1
            guard let revision = shortVarint(raw, &at), revision >= 1, revision <= FormatV2.maxRevision,
                  let overview = shortVarint(raw, &at), overview <= UInt64(FormatV2.maxOverviewPlaintext + FormatV1.tagLength),
                  isCiphertextLength(Int(overview)),
                  let secret = shortVarint(raw, &at), secret <= UInt64(FormatV2.maxSecretPlaintext + FormatV1.tagLength),
                  isTombstone ? secret == 0 : isCiphertextLength(Int(secret)) else { return nil }
            reader.move(to: at)
            return Row(id: ItemID(buffer: UnsafeRawBufferPointer(rebasing: raw[start..<nonceAt])),
                       nonce: Nonce(UnsafeRawBufferPointer(rebasing: raw[nonceAt..<tagAt])),
                       lookupTag: tag, isTombstone: isTombstone, revision: revision,
                       overviewLength: Int(overview), secretLength: Int(secret))
        }

        /// A varint of one or two bytes in its shortest form at `at` (then after it); nil for
        /// anything else (longer, not shortest, cut by the end).
        @inline(__always)
        private static func shortVarint(_ raw: UnsafeRawBufferPointer, _ at: inout Int) -> UInt64? {
            guard at < raw.count else { return nil }
            let first = raw[at]
            if first < 0x80 {
                at += 1
                return UInt64(first)
            }
            guard at + 1 < raw.count else { return nil }
            let second = raw[at + 1]
            guard second != 0, second < 0x80 else { return nil }
            at += 2
            return UInt64(first & 0x7F) | UInt64(second) << 7
        }

        /// A row read field by field, each value checked where it is read (SPEC.md §10, order
        /// within a step): the reading that decides every error.
        static func parseFields(_ reader: inout ByteReader, index: Int) throws(FormatError) -> Row {
            func name() -> String { "manifest row \(index)" }
            // Each value is checked where it is read (SPEC.md §10, order within a step).
            let idRange = try reader.range(FormatV1.entryIDLength, name())
            let nonceRange = try reader.range(FormatV1.nonceLength, name())
            let tag = try reader.u64(name())
            let flags = try reader.u8(name())
            guard flags & ~tombstoneFlag == 0 else { throw .malformed("\(name()): flags \(flags)") }
            let isTombstone = flags == tombstoneFlag
            guard !isTombstone || tag == LookupTag.tombstone else { throw .malformed("\(name()): a tombstone's lookup tag is 0") }
            let revision = try reader.varint(limit: FormatV2.maxRevision, name())
            guard revision >= 1 else { throw .malformed("\(name()): revision 0") }
            let overview = Int(try reader.varint(limit: UInt64(FormatV2.maxOverviewPlaintext + FormatV1.tagLength), name()))
            guard isCiphertextLength(overview) else { throw .malformed("\(name()): overview ciphertext of \(overview) bytes") }
            let secret = Int(try reader.varint(limit: UInt64(FormatV2.maxSecretPlaintext + FormatV1.tagLength), name()))
            guard isTombstone ? secret == 0 : isCiphertextLength(secret) else {
                throw .malformed("\(name()): secret ciphertext of \(secret) bytes (none for a tombstone)")
            }
            let raw = reader.buffer
            return Row(id: ItemID(buffer: UnsafeRawBufferPointer(rebasing: raw[idRange])),
                       nonce: Nonce(UnsafeRawBufferPointer(rebasing: raw[nonceRange])),
                       lookupTag: tag, isTombstone: isTombstone, revision: revision,
                       overviewLength: overview, secretLength: secret)
        }

        func encode(into writer: inout ByteWriter) {
            id.withRawBytes { writer.raw($0) }
            withUnsafeBytes(of: nonce) { writer.raw($0) }
            writer.u64(lookupTag)
            writer.u8(isTombstone ? tombstoneFlag : 0)
            writer.varint(revision)
            writer.varint(UInt64(overviewLength))
            writer.varint(UInt64(secretLength))
        }
    }

    /// A padded plaintext's length (SPEC.md §7.5) plus the 16-byte tag.
    static func isCiphertextLength(_ length: Int) -> Bool {
        length >= FormatV1.tagLength && Padme.isPaddedLength(length - FormatV1.tagLength)
    }

    /// The bytes (``body``) and the place (``location``) of the record at `record`, read
    /// where it is: through an array, `records[index].body` copied the whole record first
    /// (one more retain and release of its bytes per record, 2 ms of a 100,000-entry save).
    static func body(at record: UnsafePointer<RecordV2>) -> ArraySlice<UInt8> {
        record.pointer(to: \.body)!.pointee
    }

    package static func location(at record: UnsafePointer<RecordV2>) -> Location? {
        record.pointer(to: \.location)!.pointee
    }

    /// The id of the record at `record`, read where it is.
    package static func id(at record: UnsafePointer<RecordV2>) -> ItemID {
        record.pointer(to: \.id)!.pointee
    }

    /// Whether the record at `record` is a tombstone's, read where it is.
    package static func isTombstone(at record: UnsafePointer<RecordV2>) -> Bool {
        record.pointer(to: \.isTombstone)!.pointee
    }

    /// The secret ciphertext's length of the record at `record`, read or not: what its row
    /// says (``row``).
    static func secretLength(at record: UnsafePointer<RecordV2>) -> Int {
        (location(at: record)?.length ?? body(at: record).count) - record.pointer(to: \.overviewLength)!.pointee
    }

    /// The manifest row of the record at `record` (``row``), its fields read where the record
    /// is: a save writes every record's row, and reading ``row`` through an array copied each
    /// record.
    static func row(at record: UnsafePointer<RecordV2>) -> Row {
        Row(id: id(at: record), nonce: record.pointer(to: \.nonce)!.pointee, lookupTag: record.pointer(to: \.lookupTag)!.pointee,
            isTombstone: record.pointer(to: \.isTombstone)!.pointee, revision: record.pointer(to: \.revision)!.pointee,
            overviewLength: record.pointer(to: \.overviewLength)!.pointee, secretLength: secretLength(at: record))
    }

    /// The record's manifest row; its lengths are known whether or not its bytes are read.
    var row: Row { withUnsafePointer(to: self) { Self.row(at: $0) } }

    // MARK: Sealing

    /// Seals an in-memory overview list and secret list (in tag order) as a new record at
    /// `revision`. A tombstone has an overview of its dates and clock and no secrets.
    package static func seal(id: ItemID, revision: UInt64, overview: [UInt8], secrets: FieldList, tombstone: Bool = false,
                             vaultID: [UInt8], keys: EpochKeys, entropy: EntropySource) throws(FormatError) -> RecordV2 {
        try sealReturningOverview(id: id, revision: revision, overview: overview, secrets: secrets, tombstone: tombstone,
                                  vaultID: vaultID, keys: keys, entropy: entropy).record
    }

    /// ``seal(id:revision:overview:secrets:tombstone:vaultID:keys:entropy:)``, and the
    /// overview list as a reader of the record gets it back (its clock in format 2's one
    /// encoding), which is what a vault keeps of the record it wrote.
    package static func sealReturningOverview(id: ItemID, revision: UInt64, overview: [UInt8], secrets: FieldList, tombstone: Bool = false,
                                              vaultID: [UInt8], keys: EpochKeys, entropy: EntropySource) throws(FormatError) -> (record: RecordV2, overview: [UInt8]) {
        guard revision >= 1, revision <= FormatV2.maxRevision else { throw .invalidItem("revision \(revision) out of range") }
        let secretList = try secrets.secureBytes()
        guard !tombstone || secretList.count == 0 else { throw .invalidItem("a tombstone keeps no secrets") }
        let present = try ItemParts.registers(ofOverview: overview).union(
            secretList.withUnsafeBytes { (raw) throws(FormatError) in try ItemParts.registers(ofSecretList: raw) })
        let compactList = try CompactOverview.compact(from: overview, tombstone: tombstone, present: present)
        let readBack = try CompactOverview.working(from: compactList, tombstone: tombstone)
        let compactOverview = Padme.pad(compactList)
        guard compactOverview.count <= FormatV2.maxOverviewPlaintext else { throw .invalidItem("item attributes exceed 1 MiB") }
        let tag = tombstone ? LookupTag.tombstone : try LookupTag.tag(ofOverview: overview, keys: keys)
        let secretPlain: SecureBytes? = tombstone ? nil
            : try CompactFieldList.compact(from: .secret(secretList), schema: .secret).padmeSecureBytes()
        if let secretPlain, secretPlain.count > FormatV2.maxSecretPlaintext { throw .invalidItem("item secrets exceed 64 MiB") }
        let nonceBytes = try crypto { () throws(CofferError) in try entropy.bytes(FormatV1.nonceLength) }
        let nonce = nonceBytes.withUnsafeBytes { Nonce($0) }
        var body = try crypto { () throws(CofferError) in
            try compactOverview.withBytes { (p) throws(CofferError) in
                try XChaCha20Poly1305.seal(p, key: keys.overviewKey, nonce: nonceBytes,
                                           associatedData: associatedData(vaultID: vaultID, id: id, part: .overview))
            }
        }
        let overviewLength = body.count
        if let secretPlain {
            body += try crypto { () throws(CofferError) in
                try XChaCha20Poly1305.seal(secretPlain, key: keys.secretKey, nonce: nonceBytes,
                                           associatedData: associatedData(vaultID: vaultID, id: id, part: .secret))
            }
        }
        return (RecordV2(id: id, revision: revision, nonce: nonce, lookupTag: tag, isTombstone: tombstone,
                         body: body[...], overviewLength: overviewLength), readBack)
    }

    // MARK: Opening

    /// Decrypts and checks the overview (SPEC.md §10 step 15) and returns its in-memory list:
    /// the AEAD ("entry failure"), the padding, the list and its lookup tag ("malformed").
    package func openOverviewList(vaultID: [UInt8], keys: EpochKeys) throws(FormatError) -> [UInt8] {
        try withOpenedOverview(vaultID: vaultID, keys: keys) { (plain) throws(FormatError) in
            try checkedOverviewList(padded: plain, keys: keys)
        }
    }

    /// ``openOverviewList(vaultID:keys:)`` for a record not read into memory, from `bytes`:
    /// its bytes as read from its file (as many as its row says, or "truncated"). A listing
    /// opens every overview this way, on the core that opens it, and keeps no record's
    /// bytes: loading each record first, then letting its bytes go, copied every record twice.
    ///
    /// ```swift
    /// let list = try record.openOverviewList(readFrom: raw, vaultID: header.vaultID, keys: keys)
    /// ```
    package func openOverviewList(readFrom bytes: UnsafeRawBufferPointer, vaultID: [UInt8], keys: EpochKeys) throws(FormatError) -> [UInt8] {
        guard let location else { throw .invalidArgument("entry record \(id.hex) is in memory, not read from its file") }
        guard bytes.count == location.length, overviewLength <= bytes.count else {
            throw .truncated("entry record \(id.hex): \(bytes.count) of \(location.length) bytes read")
        }
        return try withOpenedOverview(UnsafeRawBufferPointer(rebasing: bytes[..<overviewLength]), vaultID: vaultID, keys: keys) {
            (plain) throws(FormatError) in try checkedOverviewList(padded: plain, keys: keys)
        }
    }

    /// Calls `body` with this record's overview decrypted (padded) into a buffer on the stack
    /// (an overview is a few hundred bytes): no array per record for a listing, a save's
    /// checks or a rotation, which keep only what they make of it. A failed AEAD is
    /// "entry failure" (`tampered`).
    private func withOpenedOverview<R>(vaultID: [UInt8], keys: EpochKeys,
                                       _ body: (UnsafeRawBufferPointer) throws(FormatError) -> R) throws(FormatError) -> R {
        try requireLoaded()
        let opened = overviewCiphertext.withUnsafeBytes { cipher -> Result<R, FormatError> in
            Result { () throws(FormatError) in try withOpenedOverview(cipher, vaultID: vaultID, keys: keys, body) }
        }
        return try opened.get()
    }

    /// The same, for the overview's ciphertext `cipher` (this record's, wherever it is).
    private func withOpenedOverview<R>(_ cipher: UnsafeRawBufferPointer, vaultID: [UInt8], keys: EpochKeys,
                                       _ body: (UnsafeRawBufferPointer) throws(FormatError) -> R) throws(FormatError) -> R {
        let opened = withUnsafeTemporaryAllocation(byteCount: max(0, cipher.count - XChaCha20Poly1305.tagLength), alignment: 1) { plain in
            Result { () throws(FormatError) in
                do throws(CofferError) {
                    try withNonce(associatedData: vaultID, part: .overview) { (nonceRaw, ad) throws(CofferError) in
                        try XChaCha20Poly1305.openPublic(cipher, into: plain, key: keys.overviewKey, nonce: nonceRaw, associatedData: ad)
                    }
                } catch .authenticationFailed {
                    throw .tampered(.entry(id.hex))
                } catch {
                    throw .crypto(error)
                }
                return try body(UnsafeRawBufferPointer(plain))
            }
        }
        return try opened.get()
    }

    /// The in-memory list of this record's decrypted (padded) overview, checked as SPEC.md
    /// §10 step 15 says: the padding, the list and its lookup tag under `keys`. Shared by
    /// ``openOverviewList(vaultID:keys:)`` and a rotation that checks what it seals again.
    private func checkedOverviewList(padded plain: UnsafeRawBufferPointer, keys: EpochKeys) throws(FormatError) -> [UInt8] {
        try checkedOverviewList(compact: try Self.unpaddedOverview(plain), keys: keys)
    }

    /// ``checkedOverviewList(padded:keys:)`` of the overview's list bytes, its padding checked.
    private func checkedOverviewList(compact: UnsafeRawBufferPointer, keys: EpochKeys) throws(FormatError) -> [UInt8] {
        let list = try CompactOverview.working(from: compact, tombstone: isTombstone)
        if !isTombstone, try LookupTag.tag(ofOverview: list, keys: keys) != lookupTag { throw wrongLookupTag }
        return list
    }

    /// A decrypted overview's list bytes: its padding checked and cut off.
    private static func unpaddedOverview(_ plain: UnsafeRawBufferPointer) throws(FormatError) -> UnsafeRawBufferPointer {
        do throws(CofferError) {
            return UnsafeRawBufferPointer(rebasing: plain[..<(try Padme.unpaddedLength(plain, structure: "entry overview"))])
        } catch {
            throw FormatError(reading: error)
        }
    }

    /// A live record whose row's lookup tag is not its name's (SPEC.md §8.1).
    private var wrongLookupTag: FormatError { .malformed("entry \(id.hex): its lookup tag does not match its name") }

    /// ``openOverviewList(vaultID:keys:)``'s checks, no list kept: what a save needs of each
    /// overview it carries unread (SPEC.md §10 step 15 before a record goes into a new file).
    /// A failed AEAD is "entry failure" (`tampered`).
    package func checkOverview(vaultID: [UInt8], keys: EpochKeys) throws(FormatError) {
        try withOpenedOverview(vaultID: vaultID, keys: keys) { (plain) throws(FormatError) in
            try checkOverview(padded: plain, keys: keys, usual: { (_, _) throws(FormatError) in }, other: { (_) throws(FormatError) in })
        }
    }

    /// The overview checked as ``checkedOverviewList(padded:keys:)`` checks it, for a caller
    /// that keeps no list: one of the usual shape is checked as it is read, its lookup tag
    /// hashed from the name in place (``CompactOverview/usualNameKey(_:)``), and `usual` gets
    /// its kind and name; any other (and a tombstone) gets the full reading, and `other` the
    /// list. No list is made and let go for the usual one (a rotation of 10,000 records:
    /// 1,700 instructions fewer a record).
    private func checkOverview<R>(padded plain: UnsafeRawBufferPointer, keys: EpochKeys,
                                  usual: (ItemKind, UnsafeRawBufferPointer) throws(FormatError) -> R,
                                  other: ([UInt8]) throws(FormatError) -> R) throws(FormatError) -> R {
        let compact = try Self.unpaddedOverview(plain)
        if !isTombstone, let (kind, name) = CompactOverview.usualNameKey(compact) {
            let nameBytes = name.map { UnsafeRawBufferPointer(rebasing: compact[$0]) } ?? UnsafeRawBufferPointer(start: nil, count: 0)
            guard try LookupTag.tag(kind: kind, nameBytes: nameBytes, keys: keys) == lookupTag else { throw wrongLookupTag }
            return try usual(kind, nameBytes)
        }
        return try other(try checkedOverviewList(compact: compact, keys: keys))
    }

    /// Decrypts the secret part into guarded memory and returns its in-memory list, checked
    /// as SPEC.md §10 step 15 says; with the item's (checked) overview list, also the rules
    /// that need both parts (``ItemParts/checkConsistency(with:)``). A tombstone has none.
    package func openSecretList(vaultID: [UInt8], keys: EpochKeys, overview: [UInt8]?) throws(FormatError) -> SecureBytes {
        try requireLoaded()
        guard !isTombstone else { return try crypto { () throws(CofferError) in try SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) in } } }
        let padded: SecureBytes
        do throws(CofferError) {
            padded = try XChaCha20Poly1305.open(secretCiphertext, key: keys.secretKey, nonce: nonce.bytes,
                                                associatedData: Self.associatedData(vaultID: vaultID, id: id, part: .secret))
        } catch .authenticationFailed {
            throw .tampered(.entry(id.hex))
        } catch {
            throw .crypto(error)
        }
        let compact: SecureBytes
        do throws(CofferError) {
            compact = try Padme.unpad(padded, structure: "entry \(id.hex) secret")
        } catch {
            throw FormatError(reading: error)
        }
        let list = try CompactFieldList.working(from: compact, schema: .secret)
        _ = try list.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
        if let overview, let clock = try ItemClockCodec.decode(overview: overview) {
            try ItemParts(overview: overview, secrets: list).checkConsistency(with: clock)
        }
        return list
    }

    // MARK: Rotation

    /// The same record under another epoch's keys (SPEC.md §11.2): both parts opened with
    /// `old`, their padded plaintexts sealed again under `new` and `nonce` (24 bytes), the
    /// lookup tag computed again with the new lookup key. The lists are not decoded: what
    /// the old key sealed is what the new key seals.
    ///
    /// With `checkingOverview`, the overview is also checked as ``openOverviewList(vaultID:keys:)``
    /// checks it (its list and its lookup tag under `old`): a rotation of records whose
    /// overviews were never opened checks each in the one decryption it makes anyway.
    package func resealed(vaultID: [UInt8], from old: EpochKeys, to new: EpochKeys, nonce newNonce: [UInt8],
                          scratch: SecureBytes? = nil, checkingOverview: Bool = false) throws(FormatError) -> RecordV2 {
        try requireLoaded()
        func aead<R>(_ body: () throws(CofferError) -> R) throws(FormatError) -> R {
            do throws(CofferError) { return try body() } catch .authenticationFailed { throw .tampered(.entry(id.hex)) } catch { throw FormatError(reading: error) }
        }
        // Both parts are sealed straight into the new record's buffer, of the old one's exact
        // size (the plaintexts keep their lengths), and the associated data is on the stack:
        // the arrays made per record and part were a tenth of a rotation's instructions.
        var tag = LookupTag.tombstone
        let overviewLength = self.overviewLength
        // Every byte of the buffer is written below: a tombstone has no secret part.
        guard !isTombstone || body.count == overviewLength else { throw .malformed("entry \(id.hex): a tombstone with a secret part") }
        let sealed = try newNonce.withBytes { (newNonceRaw) throws(FormatError) -> [UInt8] in
            try [UInt8](unsafeUninitializedCapacity: body.count) { (buffer, count) throws(FormatError) in
                let out = UnsafeMutableRawBufferPointer(buffer)
                // An overview is not secret (a listing opens it into ordinary memory too).
                tag = try withOpenedOverview(vaultID: vaultID, keys: old) { (plain) throws(FormatError) -> UInt64 in
                    var tag = LookupTag.tombstone
                    if checkingOverview {
                        // Checked under the old keys; the new tag from the name checked.
                        tag = try checkOverview(padded: plain, keys: old, usual: { (kind, name) throws(FormatError) in
                            try LookupTag.tag(kind: kind, nameBytes: name, keys: new)
                        }, other: { (list) throws(FormatError) in
                            isTombstone ? LookupTag.tombstone : try LookupTag.tag(ofOverview: list, keys: new)
                        })
                    } else if !isTombstone {
                        let length = try aead { () throws(CofferError) in try Padme.unpaddedLength(plain, structure: "entry \(id.hex) overview") }
                        let (kind, name) = try CompactOverview.nameKey(UnsafeRawBufferPointer(rebasing: plain[0..<length]))
                        tag = try LookupTag.tag(kind: kind, name: name, keys: new)
                    }
                    try aead { () throws(CofferError) in
                        try withNonce(associatedData: vaultID, part: .overview) { (_, ad) throws(CofferError) in
                            try XChaCha20Poly1305.seal(plain, into: UnsafeMutableRawBufferPointer(rebasing: out[..<overviewLength]),
                                                       key: new.overviewKey, nonce: newNonceRaw, associatedData: ad)
                        }
                    }
                    return tag
                }
                if !isTombstone {
                    let secretOut = UnsafeMutableRawBufferPointer(rebasing: out[overviewLength...])
                    try aead { () throws(CofferError) in
                        try withNonce(associatedData: vaultID, part: .secret) { (nonceRaw, ad) throws(CofferError) in
                            if let scratch, scratch.count >= secretCiphertext.count {
                                try XChaCha20Poly1305.open(secretCiphertext, key: old.secretKey, nonce: nonceRaw, associatedData: ad,
                                                           scratch: scratch) { (secret) throws(CofferError) in
                                    try XChaCha20Poly1305.seal(secret, into: secretOut, key: new.secretKey, nonce: newNonceRaw, associatedData: ad)
                                }
                            } else {
                                let secret = try XChaCha20Poly1305.open(secretCiphertext, key: old.secretKey, nonce: Array(nonceRaw),
                                                                        associatedData: Array(ad))
                                try secret.withUnsafeBytes { (raw) throws(CofferError) in
                                    try XChaCha20Poly1305.seal(raw, into: secretOut, key: new.secretKey, nonce: newNonceRaw, associatedData: ad)
                                }
                            }
                        }
                    }
                }
                count = buffer.count
            }
        }
        return RecordV2(id: id, revision: revision, nonce: newNonce.withUnsafeBytes { Nonce($0) }, lookupTag: tag,
                        isTombstone: isTombstone, body: sealed[...], overviewLength: overviewLength)
    }

    /// Checks the secret part's AEAD without decrypting it (``XChaCha20Poly1305/verify(_:key:nonce:associatedData:)``:
    /// no plaintext is made, so none is held or wiped): what format 1's record digest gave
    /// before a record is carried into a new file. A tombstone has nothing to check.
    package func verifySecret(vaultID: [UInt8], keys: EpochKeys) throws(FormatError) {
        try requireLoaded()
        guard !isTombstone else { return }
        do throws(CofferError) {
            try secretCiphertext.withBytes { (cipher) throws(CofferError) in
                try withNonce(associatedData: vaultID, part: .secret) { (nonceRaw, ad) throws(CofferError) in
                    try XChaCha20Poly1305.verify(cipher, key: keys.secretKey, nonce: nonceRaw, associatedData: ad)
                }
            }
        } catch .authenticationFailed {
            throw .tampered(.entry(id.hex))
        } catch {
            throw .crypto(error)
        }
    }

    /// ``verifySecret(vaultID:keys:)`` for many records, on all cores.
    package static func verifySecrets(_ records: [RecordV2], vaultID: [UInt8], keys: EpochKeys) throws(FormatError) {
        try records.withUnsafeBufferPointer { (records) throws(FormatError) in
            try ParallelWork.forEachRange(count: records.count) { (range) throws(FormatError) in
                for index in range { try records[index].verifySecret(vaultID: vaultID, keys: keys) }
            }
        }
    }

    /// A guarded buffer as long as the longest secret ciphertext of the records at `positions`
    /// of `records`, read or not (its length is in the row, ``row``): a tag's length more than
    /// its plaintext, so always long enough.
    static func scratch(forSecretsOf records: UnsafePointer<RecordV2>, at positions: ArraySlice<Int>) throws(FormatError) -> SecureBytes {
        var longest = 0
        for index in positions {
            let record = records + index
            guard !isTombstone(at: record) else { continue }
            longest = max(longest, secretLength(at: record))
        }
        do throws(CofferError) { return try SecureBytes(count: max(longest, 1)) { (_) throws(CofferError) in } } catch { throw .crypto(error) }
    }

    /// What names a record across copies: its nonce. Two records with one nonce are the
    /// same record (a writer draws a new nonce for every seal).
    package var identity: Nonce { nonce }

    /// Whether `other` is this record as written: the same row (nonce, lookup tag, flags,
    /// revision, both lengths), and the same bytes when both are in memory. A record read
    /// again may reuse what was checked of this one only then: a copy whose row keeps our
    /// nonce but changes another field (its lookup tag, say) is checked on its own, and
    /// refused when it fails (SPEC.md §10 step 15).
    package func isSameRecord(as other: RecordV2) -> Bool {
        guard nonce == other.nonce, id == other.id, lookupTag == other.lookupTag, isTombstone == other.isTombstone,
              revision == other.revision, overviewLength == other.overviewLength else { return false }
        let length = location?.length ?? body.count, otherLength = other.location?.length ?? other.body.count
        guard length == otherLength else { return false }
        guard isLoaded, other.isLoaded else { return true }
        return body.withUnsafeBytes { a in
            other.body.withUnsafeBytes { b in
                guard let pa = a.baseAddress, let pb = b.baseAddress else { return a.count == b.count }
                return memcmp(pa, pb, a.count) == 0
            }
        }
    }

    /// The item's secrets (its secret part opened, checked with `overview`, decoded).
    package func openSecrets(vaultID: [UInt8], keys: EpochKeys, overview: [UInt8]) throws(FormatError) -> ItemSecrets {
        let list = try openSecretList(vaultID: vaultID, keys: keys, overview: overview)
        return try list.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
    }

    /// `"coffer.v2.entry" 0x00 || vault id || entry id || part` (SPEC.md §6).
    package static func associatedData(vaultID: [UInt8], id: ItemID, part: Part) -> [UInt8] {
        FormatV2.entryADLabel + vaultID + id.bytes + [part.rawValue]
    }

    /// This record's nonce and the associated data of its `part` for a vault id
    /// (``associatedData(vaultID:id:part:)``), written on the stack: a listing or a save
    /// opens every record of the vault, and building both as arrays cost more than
    /// the overview's checks.
    func withNonce<R>(associatedData vaultID: [UInt8], part: Part,
                      _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(CofferError) -> R) throws(CofferError) -> R {
        let label = FormatV2.entryADLabel
        let length = label.count + vaultID.count + 16 + 1
        let result = withUnsafeBytes(of: nonce) { nonceRaw in
            withUnsafeTemporaryAllocation(byteCount: length, alignment: 8) { ad -> Result<R, CofferError> in
                ad.copyBytes(from: label)
                UnsafeMutableRawBufferPointer(rebasing: ad[label.count...]).copyBytes(from: vaultID)
                id.write(to: UnsafeMutableRawBufferPointer(rebasing: ad[(label.count + vaultID.count)...]))
                ad[length - 1] = part.rawValue
                return Result { () throws(CofferError) in try body(nonceRaw, UnsafeRawBufferPointer(ad)) }
            }
        }
        return try result.get()
    }
}

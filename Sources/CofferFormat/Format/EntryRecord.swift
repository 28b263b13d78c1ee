import CofferCrypto
/// One sealed entry on disk: its id, revision, and the overview and secret parts,
/// each sealed with XChaCha20-Poly1305 (SPEC.md §7).
///
/// Records read from a file share the file's buffer (no copy per entry).
package struct EntryRecord: Sendable {
    package let id: ItemID
    package let revision: UInt64
    /// The record body exactly as on disk, from the entry id to the end of the secret ciphertext.
    package let body: ArraySlice<UInt8>
    /// BLAKE2b-256 of `body`: computed when sealed; for a record read from a file, the
    /// manifest's claim, which ``checkDigest()`` checks before any of the record's data is
    /// used (SPEC.md §10, step 13): its secrets opened, its item returned, merged or saved.
    package let digest: Digest256
    /// The overview ciphertext's length: with it, every part's place in `body` follows from
    /// the fixed layout (SPEC.md §7), so a record keeps one number instead of four ranges
    /// (a large vault holds two records per item while it opens).
    private let overviewLength: UInt32

    /// Offsets of the parts in `body`, from its start.
    private static let overviewNonceOffset = FormatV1.entryIDLength + 8
    private static let overviewCiphertextOffset = overviewNonceOffset + FormatV1.nonceLength + 4
    private var overviewNonce: Range<Int> { offset(Self.overviewNonceOffset, FormatV1.nonceLength) }
    private var overviewCiphertext: Range<Int> { offset(Self.overviewCiphertextOffset, Int(overviewLength)) }
    private var secretNonce: Range<Int> { offset(Self.overviewCiphertextOffset + Int(overviewLength), FormatV1.nonceLength) }
    private var secretCiphertext: Range<Int> {
        let start = Self.overviewCiphertextOffset + Int(overviewLength) + FormatV1.nonceLength + 4
        return offset(start, body.count - start)
    }
    private func offset(_ start: Int, _ count: Int) -> Range<Int> {
        (body.startIndex + start)..<(body.startIndex + start + count)
    }

    /// Fixed bytes of a body besides the two ciphertexts.
    static let fixedLength = FormatV1.entryIDLength + 8 + 2 * (FormatV1.nonceLength + 4)
    /// The smallest valid ciphertext: one padding block plus the tag.
    static let minCiphertext = FormatV1.paddingBlock + FormatV1.tagLength

    /// The shortest and the longest valid record body (SPEC.md §9): the fixed fields with
    /// the smallest, or the largest, ciphertexts the bounds allow (16 more than a multiple
    /// of 64), so a length no valid record has is refused before anything is read.
    static let minLength = fixedLength + 2 * minCiphertext
    static let maxLength = fixedLength + largestCiphertext(FormatV1.maxOverviewCiphertext)
        + largestCiphertext(FormatV1.maxSecretCiphertext)

    /// The largest valid ciphertext length not above `bound`.
    private static func largestCiphertext(_ bound: Int) -> Int {
        bound - (bound - FormatV1.tagLength) % FormatV1.paddingBlock
    }

    enum Part: UInt8 { case overview = 1, secret = 2 }

    /// Parses a record body; `index` names it in errors. `digest` nil computes it.
    init(body: ArraySlice<UInt8>, index: Int, digest: Digest256? = nil) throws(FormatError) {
        // Built only for an error message: a large vault parses many records.
        func name() -> String { "entry record \(index)" }
        let start = body.startIndex
        typealias Parts = (id: ItemID, revision: UInt64, oNonce: Range<Int>, oCipher: Range<Int>, sNonce: Range<Int>, sCipher: Range<Int>)
        let parsed = try body.withBytes { (raw) throws(FormatError) -> Parts in
            var reader = ByteReader(raw)
            let id = ItemID(buffer: UnsafeRawBufferPointer(rebasing: raw[try reader.range(FormatV1.entryIDLength, name())]))
            let revision = try reader.u64(name())
            guard revision >= 1 else { throw .malformed("\(name()): revision 0") }
            let oNonce = try reader.range(FormatV1.nonceLength, name())
            let oLength = Int(try reader.u32(name()))
            try Self.checkCiphertextLength(oLength, max: FormatV1.maxOverviewCiphertext, "\(name()) overview")
            let oCipher = try reader.range(oLength, name())
            let sNonce = try reader.range(FormatV1.nonceLength, name())
            let sLength = Int(try reader.u32(name()))
            try Self.checkCiphertextLength(sLength, max: FormatV1.maxSecretCiphertext, "\(name()) secret")
            let sCipher = try reader.range(sLength, name())
            guard reader.isAtEnd else { throw .malformed("\(name()): \(reader.remaining) bytes after the secret part") }
            return (id, revision, oNonce, oCipher, sNonce, sCipher)
        }
        id = parsed.id
        revision = parsed.revision
        self.body = body
        if let digest { self.digest = digest } else { self.digest = try Self.computeDigest(body) }
        overviewLength = UInt32(parsed.oCipher.count)
        // The layout the computed ranges assume is the one just parsed.
        assert(overviewNonce == parsed.oNonce.shifted(by: start) && overviewCiphertext == parsed.oCipher.shifted(by: start)
               && secretNonce == parsed.sNonce.shifted(by: start) && secretCiphertext == parsed.sCipher.shifted(by: start))
    }

    private static func checkCiphertextLength(_ length: Int, max: Int, _ name: @autoclosure () -> String) throws(FormatError) {
        guard length >= minCiphertext, length <= max, (length - FormatV1.tagLength) % FormatV1.paddingBlock == 0 else {
            throw .malformed("\(name()): ciphertext length \(length) is invalid")
        }
    }

    /// Seals `attributes` and `secrets` as a new record at `revision`, without a clock (a
    /// record as written before merging existed; SPEC.md §17.6).
    package static func seal(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets,
                             vaultID: [UInt8], keys: VaultKeys, entropy: EntropySource) throws(FormatError) -> EntryRecord {
        try EntryCodec.checkDates(attributes, secrets)
        let overview = EntryCodec.encodeOverview(attributes).publicBytes
        return try seal(id: id, revision: revision, overview: overview, secrets: EntryCodec.encodeSecrets(secrets),
                        vaultID: vaultID, keys: keys, entropy: entropy)
    }

    /// Seals an encoded overview list and secret list (already in tag order) at `revision`.
    package static func seal(id: ItemID, revision: UInt64, overview: [UInt8], secrets secretList: FieldList,
                             vaultID: [UInt8], keys: VaultKeys, entropy: EntropySource) throws(FormatError) -> EntryRecord {
        let overview = try V1ClockFields.toV1(overview)
        let overviewPlain = try crypto { () throws(CofferError) in try Padding.pad(overview, blockSize: FormatV1.paddingBlock) }
        guard overviewPlain.count + FormatV1.tagLength <= FormatV1.maxOverviewCiphertext else {
            throw .invalidItem("item attributes exceed 1 MiB")
        }
        guard secretList.count + FormatV1.paddingBlock + FormatV1.tagLength <= FormatV1.maxSecretCiphertext else {
            throw .invalidItem("item secrets exceed 64 MiB")
        }
        let secretPlain = try secretList.paddedSecureBytes(blockSize: FormatV1.paddingBlock)
        let (oNonce, oCipher, sNonce, sCipher) = try crypto { () throws(CofferError) in
            let oNonce = try entropy.bytes(FormatV1.nonceLength)
            let sNonce = try entropy.bytes(FormatV1.nonceLength)
            let oCipher = try overviewPlain.withBytes { (p) throws(CofferError) in
                try XChaCha20Poly1305.seal(p, key: keys.overviewKey, nonce: oNonce,
                                           associatedData: associatedData(vaultID: vaultID, id: id, revision: revision, part: .overview))
            }
            let sCipher = try XChaCha20Poly1305.seal(secretPlain, key: keys.secretKey, nonce: sNonce,
                                                     associatedData: associatedData(vaultID: vaultID, id: id, revision: revision, part: .secret))
            return (oNonce, oCipher, sNonce, sCipher)
        }
        var writer = ByteWriter(capacity: fixedLength + oCipher.count + sCipher.count)
        writer.bytes(id.bytes)
        writer.u64(revision)
        writer.bytes(oNonce)
        writer.u32(UInt32(oCipher.count))
        writer.bytes(oCipher)
        writer.bytes(sNonce)
        writer.u32(UInt32(sCipher.count))
        writer.bytes(sCipher)
        return try EntryRecord(body: writer.bytes[...], index: 0)
    }

    /// Decrypts the overview. A failed tag means the record was altered.
    package func openOverview(vaultID: [UInt8], keys: VaultKeys) throws(FormatError) -> ItemAttributes {
        try EntryCodec.decodeOverview(openOverviewList(vaultID: vaultID, keys: keys))
    }

    /// Decrypts the overview and checks it as ``openOverview(vaultID:keys:)`` does, but
    /// returns its field list (unpadded) instead of building attributes from it.
    package func openOverviewList(vaultID: [UInt8], keys: VaultKeys) throws(FormatError) -> [UInt8] {
        var plain: [UInt8]
        do throws(CofferError) {
            plain = try body.withBytes { (raw) throws(CofferError) in
                let base = body.startIndex
                // The associated data on the stack: no allocation per overview of a large vault.
                return try withUnsafeTemporaryAllocation(byteCount: Self.associatedDataLength, alignment: 1) {
                    (ad) throws(CofferError) in
                    Self.writeAssociatedData(into: ad, vaultID: vaultID, id: id, revision: revision, part: .overview)
                    return try XChaCha20Poly1305.openPublic(
                        UnsafeRawBufferPointer(rebasing: raw[(overviewCiphertext.lowerBound - base)..<(overviewCiphertext.upperBound - base)]),
                        key: keys.overviewKey,
                        nonce: UnsafeRawBufferPointer(rebasing: raw[(overviewNonce.lowerBound - base)..<(overviewNonce.upperBound - base)]),
                        associatedData: UnsafeRawBufferPointer(ad))
                }
            }
        } catch .authenticationFailed {
            throw .tampered(.entry(id.hex))
        } catch {
            throw .crypto(error)
        }
        let length: Int
        do throws(CofferError) {
            // The entry is named only on failure: formatting its id costs more than decrypting it.
            length = try Padding.unpaddedLength(plain, blockSize: FormatV1.paddingBlock, structure: "")
        } catch where error.kind == .malformed {
            throw .malformed("entry \(id.hex) overview\(error.detail ?? "")")
        } catch {
            throw .crypto(error)
        }
        plain.removeSubrange(length...)
        plain = try V1ClockFields.toWorking(plain)
        try EntryCodec.validateOverview(plain)
        return plain
    }

    /// Decrypts the secret part into guarded memory.
    package func openSecrets(vaultID: [UInt8], keys: VaultKeys) throws(FormatError) -> ItemSecrets {
        let plain = try openSecretList(vaultID: vaultID, keys: keys, check: false)
        return try plain.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw, version1: true) }
    }

    /// Decrypts the secret part and returns its field list (unpadded, guarded), checked
    /// as ``openSecrets(vaultID:keys:)`` checks it unless `check` is false. The record's
    /// digest is checked first: no secret comes out of a record the manifest does not name.
    package func openSecretList(vaultID: [UInt8], keys: VaultKeys, check: Bool = true) throws(FormatError) -> SecureBytes {
        try checkDigest()
        let padded: SecureBytes
        do throws(CofferError) {
            padded = try XChaCha20Poly1305.open(body[secretCiphertext], key: keys.secretKey, nonce: Array(body[secretNonce]),
                                                associatedData: Self.associatedData(vaultID: vaultID, id: id, revision: revision, part: .secret))
        } catch .authenticationFailed {
            throw .tampered(.entry(id.hex))
        } catch {
            throw .crypto(error)
        }
        let plain: SecureBytes
        do throws(CofferError) {
            plain = try Padding.unpad(padded, blockSize: FormatV1.paddingBlock, structure: "entry \(id.hex) secret")
        } catch {
            throw FormatError(reading: error)
        }
        if check { _ = try plain.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw, version1: true) } }
        return plain
    }

    /// Checks that the body hashes to ``digest``, the authenticated manifest's entry for
    /// this record (SPEC.md §10, step 13): a record that differs throws
    /// ``FormatError/tampered(_:)`` naming the entry. About a microsecond a record.
    package func checkDigest() throws(FormatError) {
        guard try Self.computeDigest(body) == digest else { throw .tampered(.entry(id.hex)) }
    }

    /// ``checkDigest()`` for many records, on all cores.
    package static func checkDigests(_ records: [EntryRecord]) throws(FormatError) {
        try records.withUnsafeBufferPointer { (records) throws(FormatError) in
            _ = try ParallelWork.map(count: records.count) { (index) throws(FormatError) in try records[index].checkDigest() }
        }
    }

    /// BLAKE2b-256 of a body, as listed in the manifest.
    static func computeDigest(_ body: ArraySlice<UInt8>) throws(FormatError) -> Digest256 {
        try crypto { () throws(CofferError) in try body.withBytes { (raw) throws(CofferError) in try BLAKE2b.digest256(buffer: raw) } }
    }

    /// `"coffer.v1.entry" 0x00 || vault id || entry id || revision (u64 LE) || part` (SPEC.md §6):
    /// laid out once, in ``writeAssociatedData(into:vaultID:id:revision:part:)``.
    static let associatedDataLength = FormatV1.entryADLabel.count + FormatV1.vaultIDLength + FormatV1.entryIDLength + 8 + 1

    /// The associated data written into `out` (exactly ``associatedDataLength`` bytes),
    /// for callers that keep it off the heap.
    static func writeAssociatedData(into out: UnsafeMutableRawBufferPointer, vaultID: [UInt8], id: ItemID, revision: UInt64, part: Part) {
        let label = FormatV1.entryADLabel
        precondition(vaultID.count == FormatV1.vaultIDLength && out.count == associatedDataLength, "AD layout")
        out.copyBytes(from: label)
        UnsafeMutableRawBufferPointer(rebasing: out[label.count...]).copyBytes(from: vaultID)
        let offset = label.count + vaultID.count
        id.write(to: UnsafeMutableRawBufferPointer(rebasing: out[offset...]))
        out.storeBytes(of: revision.littleEndian, toByteOffset: offset + FormatV1.entryIDLength, as: UInt64.self)
        out[offset + FormatV1.entryIDLength + 8] = part.rawValue
    }

    static func associatedData(vaultID: [UInt8], id: ItemID, revision: UInt64, part: Part) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: associatedDataLength) { buffer, count in
            writeAssociatedData(into: UnsafeMutableRawBufferPointer(buffer), vaultID: vaultID, id: id, revision: revision, part: part)
            count = associatedDataLength
        }
    }
}

private extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}

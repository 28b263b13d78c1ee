import Foundation
import Testing
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

/// Hostile input: every flipped byte and every truncation of a small vault gives a
/// typed error; the TLV codec round-trips and keeps unknown fields; every declared
/// length is bounded (SPEC.md §9, §10).
@Suite("Format: tampering and bounds")
struct FormatTamperTests {
    /// A password vault (8 KiB, 1 iteration) with three items.
    static func smallVault() throws -> (bytes: [UInt8], key: VaultCredential, entries: [VectorEntry]) {
        let key = VaultCredential.password(try SecureBytes(copying: "tamper"))
        let b = try FormatVaultBuilder(entropy: formatTestEntropy("tamper"),
                                       slots: [(key, Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1))])
        try b.put(try b.newID(), revision: 2,
                  ItemAttributes(kind: .genericPassword, label: "A", service: "a.example", account: "alice", tags: ["x"],
                                 created: vectorDate(1_700_000_000_000), modified: vectorDate(1_700_000_000_001)),
                  ItemSecrets(password: try SecureBytes(copying: "one")))
        try b.put(try b.newID(), revision: 1,
                  ItemAttributes(kind: .internetPassword, server: "b.example", port: 443, created: vectorDate(1_700_000_000_000)),
                  ItemSecrets(password: try SecureBytes(copying: "two"), notes: try SecureBytes(copying: "note")))
        try b.put(try b.newID(), revision: 7,
                  ItemAttributes(kind: .secureNote, label: "C", created: vectorDate(1_700_000_000_000)),
                  ItemSecrets(notes: try SecureBytes(copying: String(repeating: "n", count: 70))))
        b.generation = 3
        return (try b.bytes(), key, b.expectedEntries)
    }

    /// The outcome classes a change inside each region may give.
    /// Both versions share these regions (SPEC.md §2, A.2): preamble, header, checksum and
    /// header MAC, manifest length, manifest, manifest MAC, records.
    static func allowedClasses(at offset: Int, in bytes: [UInt8]) throws -> Set<VectorExpectation> {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let headerEnd = FormatV1.preambleLength + u32(10)
        let manifestStart = headerEnd + 64 + 4
        let manifestEnd = manifestStart + u32(headerEnd + 64)
        switch offset {
        case 0..<8: return [.notACofferFile]
        case 8..<10: return [.unsupportedVersion]
        case 10..<14: return [.malformed, .truncated, .headerFailure]
        case 14..<(headerEnd + 64): return [.headerFailure]
        case (headerEnd + 64)..<manifestStart: return [.malformed, .truncated, .manifestFailure]
        // Format 2's rows hold varints: a flipped length byte can make a row run past the
        // manifest's end, which reads as truncated (SPEC.md §10.1), as a count too large does.
        case manifestStart..<manifestEnd: return bytes[8] >= 2 ? [.malformed, .truncated, .manifestFailure] : [.malformed, .manifestFailure]
        case manifestEnd..<(manifestEnd + 32): return [.manifestFailure]
        default: return [.entryFailure, .malformed, .truncated]
        }
    }

    @Test("Flipping any byte (xor 0x01 and 0xff) gives a typed error of that region's class, never other data")
    func flipEveryByte() throws {
        let (bytes, key, entries) = try Self.smallVault()
        #expect(try FormatReader.open(bytes, key: key).entries == entries)
        #expect(bytes.count > 1000)
        for offset in bytes.indices {
            let allowed = try Self.allowedClasses(at: offset, in: bytes)
            for mask: UInt8 in [0x01, 0xFF] {
                var changed = bytes
                changed[offset] ^= mask
                let (outcome, error, opened) = FormatReader.outcome(changed, key: key)
                if let opened {
                    Issue.record("byte \(offset) ^ \(mask) opened; same entries: \(opened.entries == entries)")
                    continue
                }
                guard let outcome else {
                    Issue.record("byte \(offset) ^ \(mask): \(String(describing: error)) is not a reading error")
                    continue
                }
                #expect(allowed.contains(outcome), "byte \(offset) ^ \(mask): \(String(describing: error))")
            }
        }
    }

    @Test("Truncating at any offset gives truncated")
    func truncateEverywhere() throws {
        let (bytes, key, _) = try Self.smallVault()
        for length in 0..<bytes.count {
            let (outcome, error, _) = FormatReader.outcome(Array(bytes.prefix(length)), key: key)
            #expect(outcome == .truncated, "cut at \(length): \(error.map { "\($0)" } ?? "opened")")
        }
    }

    @Test("Bytes after the last record are malformed")
    func trailingBytes() throws {
        let (bytes, key, _) = try Self.smallVault()
        for extra: [UInt8] in [[0], [0xFF], [0xF0, 0, 0, 0], Array(repeating: 0, count: 300)] {
            let (outcome, error, _) = FormatReader.outcome(bytes + extra, key: key)
            #expect(outcome == .malformed, "\(extra.count) extra bytes: \(error.map { "\($0)" } ?? "opened")")
        }
    }

    // MARK: TLV codec

    @Test("Random attributes and secrets: encode then decode is the identity, and decode then encode too")
    func fieldRoundTrip() throws {
        var rng = SeededRandom(seed: 0xC0FFEE)
        for _ in 0..<300 {
            let attributes = Self.randomAttributes(&rng)
            let overview = EntryCodec.encodeOverview(attributes).publicBytes
            let decoded = try overview.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(raw) } }
            #expect(decoded == attributes)
            #expect(EntryCodec.encodeOverview(decoded).publicBytes == overview)

            let secrets = try Self.randomSecrets(&rng)
            let encoded = EntryCodec.encodeSecrets(secrets).publicBytes
            let back = try encoded.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeSecrets(raw) } }
            #expect(back == secrets)
            #expect(EntryCodec.encodeSecrets(back).publicBytes == encoded)

            // Padding round-trips too, and the padded length is the next multiple of 64.
            let padded = try Padding.pad(overview, blockSize: 64)
            #expect(padded.count == (overview.count / 64 + 1) * 64)
            #expect(try Padding.unpaddedLength(padded, blockSize: 64, structure: "test") == overview.count)
        }
    }

    @Test("Unknown non-critical tags are kept in place; critical ones are refused")
    func unknownTags() throws {
        let overview = field(0x0000, Array("zero".utf8)) + field(1, [3]) + field(2, Array("T".utf8))
            + field(13, i64(1_000)) + field(14, i64(2_000))
            + field(15, field(1, Array("n".utf8)) + field(2, Array("v".utf8)))
            + field(0x0010, [1]) + field(0x0010, [2]) + field(0x7FFF, [])
        let a = try decodeOverview(overview)
        #expect(a.preservedFields.map(\.tag) == [0x0000, 0x0010, 0x0010, 0x7FFF])
        #expect(a.label == "T" && a.kind == .secureNote && a.fields == [CustomField(name: "n", value: "v")])
        #expect(EntryCodec.encodeOverview(a).publicBytes == overview)

        let secret = field(0x0000, [9]) + field(1, Array("pw".utf8)) + field(0x0006, [1, 2]) + field(0x0006, [3]) + field(0x7FFF, [4])
        let s = try secret.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeSecrets(raw) } }
        #expect(s.preservedFields.map(\.tag) == [0x0000, 0x0006, 0x0006, 0x7FFF])
        #expect(EntryCodec.encodeSecrets(s).publicBytes == secret)

        let base = field(1, [1]) + field(13, i64(0)) + field(14, i64(0))
        #expect(throws: CofferError.self) { try decodeOverview(base + field(0x8000, [])) }
        #expect(throws: CofferError.self) { try decodeOverview(base + field(0xFFFF, [1])) }
        #expect(throws: CofferError.self) {
            try (field(1, [1]) + field(0x8001, [])).withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeSecrets(raw) } }
        }
        #expect(try Self.errorClass { () throws(CofferError) in try decodeOverview(base + field(0x8000, [])) } == .malformed)
    }

    @Test("Non-canonical or invalid field lists are malformed; short ones truncated")
    func invalidFieldLists() throws {
        let kind = field(1, [1]), dates = field(13, i64(0)) + field(14, i64(0))
        let cases: [(String, [UInt8], VectorExpectation)] = [
            ("tags out of order", field(3, Array("s".utf8)) + kind + dates, .malformed),
            ("non-repeatable tag twice", kind + field(2, [0x41]) + field(2, [0x42]) + dates, .malformed),
            ("missing kind", dates, .malformed),
            ("missing dates", kind, .malformed),
            ("unknown kind", field(1, [9]) + dates, .malformed),
            ("favorite 0", kind + field(12, [0]) + dates, .malformed),
            ("port of 3 bytes", kind + field(7, [1, 2, 3]) + dates, .malformed),
            ("invalid UTF-8", kind + field(2, [0xFF]) + dates, .malformed),
            ("date after 9999", kind + field(13, i64(253_402_300_800_000)) + field(14, i64(0)), .malformed),
            ("date before year 1", kind + field(13, i64(-62_135_596_800_001)) + field(14, i64(0)), .malformed),
            ("pair with a third field", kind + dates + field(15, field(1, []) + field(2, []) + field(3, [])), .malformed),
            ("pair without a value", kind + dates + field(15, field(1, [])), .malformed),
            ("length past the end", kind + dates + [2, 0, 0xFF, 0xFF, 0xFF, 0xFF], .truncated),
            ("half a tag", kind + dates + [2], .truncated),
        ]
        for (what, bytes, expected) in cases {
            #expect(try Self.errorClass { () throws(CofferError) in try decodeOverview(bytes) } == expected, "\(what)")
        }
        #expect(try Self.errorClass { () throws(FormatError) in
            try (field(4, field(1, Array("x".utf8)) + field(2, i64(0)) + field(3, []))).withBytes { (raw) throws(FormatError) in
                _ = try EntryCodec.decodeSecrets(raw)
            }
        } == .malformed, "history entry with an unknown field")
    }

    @Test("Sealing refuses dates a reader would refuse")
    func sealRefusesFarDates() throws {
        let b = try FormatVaultBuilder(entropy: formatTestEntropy("dates"),
                                       slots: [(.rawKey(try SecureBytes(copying: [UInt8](repeating: 7, count: 32))), testKDF)])
        let far = ItemAttributes(kind: .secureNote, label: "far", created: Date(timeIntervalSince1970: 1e15))
        let farID = try b.newID()
        #expect(throws: CofferError.invalidItem) {
            try formatCall { () throws(FormatError) in
                try EntryRecord.seal(id: farID, revision: 1, attributes: far, secrets: ItemSecrets(),
                                     vaultID: b.vaultID, keys: b.keys, entropy: b.entropy)
            }
        }
        let edge = ItemAttributes(kind: .secureNote, label: "edge", created: vectorDate(EntryCodec.dateRange.lowerBound),
                                  modified: vectorDate(EntryCodec.dateRange.upperBound))
        let id = try b.newID()
        try b.put(id, revision: 1, edge, ItemSecrets())
        let record = try #require(b.records[id])
        #expect(try record.openOverview(vaultID: b.vaultID, keys: b.keys) == edge)
    }

    // MARK: Bounds

    @Test("Declared lengths beyond the end of the file are truncated; lengths beyond the bounds malformed")
    func declaredLengths() throws {
        let (bytes, key, _) = try Self.smallVault()
        let raw = try RawVaultFile(splitting: bytes)
        let headerEnd = FormatV1.preambleLength + raw.headerBody.count
        let manifestLengthAt = headerEnd + 64
        let firstRecordAt = manifestLengthAt + 4 + raw.manifest.count + 32

        func with(_ value: UInt32, at offset: Int) -> [UInt8] {
            var out = bytes
            VectorCatalog.putU32(&out, at: offset, value)
            return out
        }
        let cases: [(String, [UInt8], VectorExpectation)] = [
            ("header length 60000", with(60_000, at: 10), .truncated),
            ("header length 65536 in a short file", with(65_536, at: 10), .truncated),
            ("header length 65537", with(65_537, at: 10), .malformed),
            ("header length 0xFFFFFFFF", with(.max, at: 10), .malformed),
            ("manifest length of 10,000,000 entries", with(UInt32(12 + 10_000_000 * 56), at: manifestLengthAt), .truncated),
            ("manifest length above the bound", with(UInt32(12 + 10_000_001 * 56), at: manifestLengthAt), .malformed),
            ("manifest length 11", with(11, at: manifestLengthAt), .malformed),
            ("record length 64 MiB", with(64 << 20, at: firstRecordAt), .truncated),
            ("record length above the bound", with(UInt32.max, at: firstRecordAt), .malformed),
            ("record length below the minimum", with(239, at: firstRecordAt), .malformed),
        ]
        for (what, file, expected) in cases {
            let (outcome, error, _) = FormatReader.outcome(file, key: key)
            #expect(outcome == expected, "\(what): \(error.map { "\($0)" } ?? "opened")")
        }

        // Structures parsed on their own.
        var manifest = ByteWriter()
        manifest.u64(1)
        manifest.u32(10_000_001)
        #expect(try Self.errorClass { () throws(CofferError) in try manifest.bytes.withBytes { (r) throws(CofferError) in try formatCall { () throws(FormatError) in _ = try Manifest.parse(r) } } } == .malformed)
        var declared = ByteWriter()
        declared.u64(1)
        declared.u32(1_000)
        #expect(try Self.errorClass { () throws(CofferError) in try declared.bytes.withBytes { (r) throws(CofferError) in try formatCall { () throws(FormatError) in _ = try Manifest.parse(r) } } } == .malformed)
    }

    @Test("Header bounds: slot and extension counts and lengths")
    func headerBounds() throws {
        let id = [UInt8](repeating: 0xAA, count: 16)
        let rawSlot: [UInt8] = [4, 88, 0] + [UInt8](repeating: 1, count: 88)
        func header(_ slots: [[UInt8]], _ tail: [UInt8] = [0, 0]) -> [UInt8] { id + [UInt8(slots.count)] + slots.joined() + tail }
        let cases: [(String, [UInt8], VectorExpectation)] = [
            ("0 slots", header([]), .malformed),
            ("33 slots", header(Array(repeating: rawSlot, count: 33)), .malformed),
            ("slot body 4097 bytes", header([[0x7F, 0x01, 0x10] + [UInt8](repeating: 0, count: 4097)]), .malformed),
            ("slot body longer than the header", header([[0x7F, 0x00, 0x10]]), .truncated),
            ("raw-key slot of 87 bytes", header([[4, 87, 0] + [UInt8](repeating: 1, count: 87)]), .malformed),
            ("65 extensions", header([rawSlot], [65, 0]), .malformed),
            ("extension of 16385 bytes", header([rawSlot], [1, 0, 1, 0, 0x01, 0x40, 0, 0]), .malformed),
            ("critical extension", header([rawSlot], [1, 0, 0, 0x80, 0, 0, 0, 0]), .malformed),
            ("bytes after the extensions", header([rawSlot], [0, 0, 0]), .malformed),
            ("no extension count", header([rawSlot], []), .truncated),
        ]
        for (what, body, expected) in cases {
            #expect(try Self.errorClass { () throws(CofferError) in _ = try body.withBytes { (r) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeader.parse(r) } } } == expected, "\(what)")
        }
        // A header that uses every bound at its limit still parses.
        let full = header(Array(repeating: rawSlot, count: 32), [0, 0])
        #expect(try full.withBytes { (r) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeader.parse(r) } }.slots.count == 32)
    }

    @Test("KDF parameters are bounded on read, before any KDF runs")
    func kdfBounds() throws {
        func slot(_ m: UInt32, _ t: UInt32, _ p: UInt32) -> [UInt8] {
            var w = ByteWriter()
            w.u8(1)
            w.u32(m)
            w.u32(t)
            w.u32(p)
            w.bytes([UInt8](repeating: 0, count: 16 + 24 + 48))
            return w.bytes
        }
        let refused: [(UInt32, UInt32, UInt32)] = [
            (4 * 1024 * 1024 + 1, 1, 1), (.max, 1, 1), (7, 1, 1), (0, 1, 1), (64, 0, 1), (64, 65, 1), (64, 1, 0), (64, 1, 65), (8, 1, 2),
        ]
        for (m, t, p) in refused {
            #expect(throws: FormatError.self) { try KeySlotRecord(type: 1, body: slot(m, t, p), index: 0) }
            #expect(try Self.errorClass { () throws(FormatError) in _ = try KeySlotRecord(type: 1, body: slot(m, t, p), index: 0) } == .kdfOutOfBounds, "m=\(m) t=\(t) p=\(p)")
        }
        let accepted: [(UInt32, UInt32, UInt32)] = [(8, 1, 1), (4 * 1024 * 1024, 64, 64), (16, 1, 2), (512, 64, 64)]
        for (m, t, p) in accepted {
            let parsed = try KeySlotRecord(type: 2, body: slot(m, t, p), index: 0)
            #expect(parsed.kdf == Argon2idParameters(memoryKiB: m, iterations: t, lanes: p))
        }

        // Through a whole file: the checksum is recomputed, so only the bound is wrong.
        let (bytes, key, _) = try Self.smallVault()
        var raw = try RawVaultFile(splitting: bytes)
        VectorCatalog.putU32(&raw.headerBody, at: VectorCatalog.HeaderOffset.memory, 4 * 1024 * 1024 + 1)
        raw.checksum = .compute
        #expect(FormatReader.outcome(try raw.assemble(keys: nil), key: key).0 == .kdfOutOfBounds)
    }

    @Test("Headers with unknown slots and extensions re-encode byte for byte")
    func headerRoundTrip() throws {
        let header = VaultHeader(
            vaultID: Array(0..<16),
            slots: [try KeySlotRecord(type: 4, body: [UInt8](repeating: 3, count: 88), index: 0),
                    try KeySlotRecord(type: 0xFE, body: [], index: 1),
                    try KeySlotRecord(type: 0x10, body: [UInt8](repeating: 9, count: 4096), index: 2)],
            extensions: [HeaderExtension(type: 0x7FFF, value: [1, 2, 3]), HeaderExtension(type: 0x0001, value: [])])
        let body = header.encodeBody()
        let parsed = try body.withBytes { (r) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeader.parse(r) } }
        #expect(parsed == header)
        #expect(parsed.encodeBody() == body)
        #expect(parsed.slots.map(\.kind) == [.rawKey, .unknown(0xFE), .unknown(0x10)])
    }

    // MARK: Helpers

    private func field(_ tag: UInt16, _ value: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.u16(tag)
        w.u32(UInt32(value.count))
        w.bytes(value)
        return w.bytes
    }

    private func i64(_ v: Int64) -> [UInt8] {
        var w = ByteWriter()
        w.u64(UInt64(bitPattern: v))
        return w.bytes
    }

    private func decodeOverview(_ bytes: [UInt8]) throws(CofferError) -> ItemAttributes {
        try bytes.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(raw) } }
    }

    /// The class of the CofferError `body` throws; nil if it does not throw.
    /// ``errorClass(_:)`` of a format-layer call, through the one conversion to ``CofferError``.
    static func errorClass<T>(_ body: () throws(FormatError) -> T) throws -> VectorExpectation? {
        try errorClass { () throws(CofferError) in try formatCall(body) }
    }

    static func errorClass<T>(_ body: () throws(CofferError) -> T) throws -> VectorExpectation? {
        do {
            _ = try body()
            return nil
        } catch {
            guard let outcome = VectorExpectation(error: error) else {
                throw VectorFileError(description: "\(error) is not a reading error")
            }
            return outcome
        }
    }

    static let alphabet: [String] = ["a", "Z", "0", " ", "-", "é", "e\u{301}", "ß", "日", "🔑", "👩‍💻", "\u{0}", "\n", "\"", "ключ"]

    static func randomString(_ rng: inout SeededRandom, max: Int = 12) -> String {
        (0..<Int.random(in: 0...max, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined()
    }

    static func maybe(_ rng: inout SeededRandom) -> String? {
        Bool.random(using: &rng) ? randomString(&rng) : nil
    }

    static func randomDate(_ rng: inout SeededRandom) -> Date {
        vectorDate(Int64.random(in: EntryCodec.dateRange, using: &rng))
    }

    static func randomAttributes(_ rng: inout SeededRandom) -> ItemAttributes {
        var a = ItemAttributes(
            kind: ItemKind.allCases.randomElement(using: &rng)!, label: maybe(&rng), service: maybe(&rng), account: maybe(&rng),
            server: maybe(&rng), protocol: maybe(&rng), port: Bool.random(using: &rng) ? UInt16.random(in: 0...UInt16.max, using: &rng) : nil,
            path: maybe(&rng), comment: maybe(&rng),
            urls: (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomString(&rng) },
            tags: (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomString(&rng) },
            isFavorite: Bool.random(using: &rng),
            fields: (0..<Int.random(in: 0...3, using: &rng)).map { _ in CustomField(name: randomString(&rng), value: randomString(&rng, max: 40)) },
            created: randomDate(&rng), modified: randomDate(&rng))
        // Unknown tags: above 15 (after the known ones), in tag order as a reader would find them.
        let tags = (0..<Int.random(in: 0...3, using: &rng)).map { _ in UInt16.random(in: 16...0x7FFF, using: &rng) }.sorted()
        a.preservedFields = tags.map { PreservedField(tag: $0, value: (0..<Int.random(in: 0...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }) }
        return a
    }

    static func randomBytes(_ rng: inout SeededRandom, max: Int = 40) throws -> SecureBytes {
        try SecureBytes(copying: (0..<Int.random(in: 0...max, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }

    static func randomSecrets(_ rng: inout SeededRandom) throws -> ItemSecrets {
        var s = ItemSecrets(
            password: Bool.random(using: &rng) ? try randomBytes(&rng) : nil,
            notes: Bool.random(using: &rng) ? try randomBytes(&rng, max: 200) : nil,
            fields: try (0..<Int.random(in: 0...3, using: &rng)).map { _ in SecretField(name: randomString(&rng), value: try randomBytes(&rng)) },
            passwordHistory: try (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                PasswordHistoryEntry(password: try randomBytes(&rng), replaced: randomDate(&rng))
            },
            attachments: try (0..<Int.random(in: 0...2, using: &rng)).map { _ in Attachment(name: randomString(&rng), data: try randomBytes(&rng, max: 300)) })
        let tags = (0..<Int.random(in: 0...2, using: &rng)).map { _ in UInt16.random(in: 6...0x7FFF, using: &rng) }.sorted()
        s.preservedFields = try tags.map { PreservedSecretField(tag: $0, value: try randomBytes(&rng)) }
        return s
    }
}

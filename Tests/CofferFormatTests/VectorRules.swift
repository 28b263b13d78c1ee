import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

// The vectors of SPEC.md §15 that pin one reader rule each (issue 19): every one is built
// so that a reader without that rule gives another outcome (usually success, a MAC
// failure, an entry failure or "truncated").

extension VectorCatalog {
    /// A field (SPEC.md §7.1): `u16` tag, `u32` length, value.
    static func field(_ tag: UInt16, _ value: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.u16(tag)
        w.u32(UInt32(value.count))
        w.bytes(value)
        return w.bytes
    }

    static func i64(_ v: Int64) -> [UInt8] { var w = ByteWriter(); w.u64(UInt64(bitPattern: v)); return w.bytes }
    static func u64(_ v: UInt64) -> [UInt8] { var w = ByteWriter(); w.u64(v); return w.bytes }
    static func u32(_ v: UInt32) -> [UInt8] { var w = ByteWriter(); w.u32(v); return w.bytes }

    /// Vectors for the rules of SPEC.md §3, §4, §7, §8, §9 and §17.4 that the others leave open.
    static func ruleVectors(items: FormatVaultBuilder, itemsBytes: [UInt8]) throws -> [VectorFile] {
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], _ comment: String) {
            out.append(VectorFile(name: name + ".vec", expect: expect, password: password, keyFile: nil, rawKey: nil,
                                  generation: nil, comment: comment, entries: nil, bytes: bytes))
        }
        let raw = try RawVaultFile(splitting: itemsBytes)
        let slot0 = Array(raw.headerBody[17..<(17 + 3 + KeySlotRecord.argon2BodyLength)])
        let vaultID = Array(raw.headerBody[0..<16])
        func header(slots: [[UInt8]], extensions: [[UInt8]], extensionCount: Int? = nil) -> [UInt8] {
            var h = vaultID + [UInt8(slots.count)]
            for slot in slots { h += slot }
            var w = ByteWriter()
            w.u16(UInt16(extensionCount ?? extensions.count))
            h += w.bytes
            for e in extensions { h += e }
            return h
        }
        func ext(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
            var w = ByteWriter()
            w.u16(type)
            w.u32(UInt32(value.count))
            w.bytes(value)
            return w.bytes
        }

        // ---- header body (§3, §4, §9, §17.4), checksum recomputed ----
        add("malformed-too-many-slots", .malformed, try headerEdited(raw) { h in h[HeaderOffset.slotCount] = 33 },
            "success-items with a slot count of 33 (the bound is 32), checksum recomputed")
        var unknownSlot: [UInt8] = [0x7F, 0x01, 0x10]   // type 0x7f, length 4097
        unknownSlot += [UInt8](repeating: 0xAA, count: 4097)
        add("malformed-slot-too-long", .malformed,
            try headerEdited(raw) { h in h = header(slots: [unknownSlot, slot0], extensions: []) },
            "success-items with an unknown slot of 4097 bytes (the bound is 4096) before its password slot, checksum recomputed")
        add("kdf-lanes-above-64", .kdfOutOfBounds,
            try headerEdited(raw) { h in
                putU32(&h, at: HeaderOffset.memory, 1024)
                putU32(&h, at: HeaderOffset.lanes, 65)
            }, "success-items with lanes 65 and memory 1024 KiB in its password slot, checksum recomputed: refused before any KDF runs")
        add("truncated-slot-past-header", .truncated,
            try headerEdited(raw) { h in h[HeaderOffset.slot0Length] = 200 },
            "success-items with its password slot's length 200, past the end of the header body, checksum recomputed")
        add("malformed-header-trailing-byte", .malformed, try headerEdited(raw) { h in h.append(0) },
            "success-items with one byte after the last extension inside the header body, checksum recomputed")
        add("malformed-too-many-extensions", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [], extensionCount: 65) },
            "success-items with an extension count of 65 (the bound is 64), checksum recomputed")
        add("malformed-extension-too-long", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x0042, [UInt8](repeating: 0x55, count: 16_385))]) },
            "success-items with a non-critical extension of 16385 bytes (the bound is 16384), checksum recomputed")
        let clock = u64(1) + u64(1)
        add("malformed-extension-repeated", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x8010, clock), ext(0x8010, clock)]) },
            "success-items with the vault clock extension 0x8010 twice, checksum recomputed")
        add("malformed-vault-clock", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x8010, u64(1) + u64(0))]) },
            "success-items with a vault clock whose one time is 0, checksum recomputed")
        let removed = [UInt8](repeating: 1, count: 16) + u64(2) + [UInt8](repeating: 2, count: 16) + u64(1)
        add("malformed-removed-slots-order", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x8011, removed)]) },
            "success-items with removed slots (extension 0x8011) not in ascending order of time, checksum recomputed")
        let removedOnce = [UInt8](repeating: 1, count: 16) + u64(2)
        add("malformed-removed-slots-repeated", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x8011, removedOnce + removedOnce)]) },
            "success-items with one removed slot (extension 0x8011) listed twice (strictly ascending), checksum recomputed")
        add("malformed-removed-slots-empty", .malformed,
            try headerEdited(raw) { h in h = header(slots: [slot0], extensions: [ext(0x8011, [])]) },
            "success-items with an empty removed-slots extension 0x8011 (n ≥ 1), checksum recomputed")

        // ---- manifest (§8, §9, §10 step 7), MAC recomputed ----
        var m = raw
        m.manifest = Array(raw.manifest.prefix(11))
        m.manifestMAC = .compute
        add("malformed-manifest-too-short", .malformed, try m.assemble(keys: items.keys),
            "success-items with a manifest of 11 bytes (the least is 12), manifest MAC recomputed")
        m = raw
        m.manifestLength = UInt32(12 + 56 * 10_000_001)
        add("malformed-manifest-too-long", .malformed, try m.assemble(keys: nil),
            "success-items with a manifest length of 560000068 (12 + 56 × 10000001): refused before anything is read or allocated")
        m = raw
        var listed = RawManifest(raw.manifest)
        listed.entries[1].id = listed.entries[0].id
        m.manifest = listed.bytes
        m.manifestMAC = .compute
        add("malformed-manifest-duplicate-id", .malformed, try m.assemble(keys: items.keys),
            "success-items with the second manifest entry's id equal to the first's, manifest MAC recomputed")
        m = raw
        listed = RawManifest(raw.manifest)
        listed.entries[1].revision = 0
        m.manifest = listed.bytes
        m.manifestMAC = .compute
        add("malformed-manifest-revision-zero", .malformed, try m.assemble(keys: items.keys),
            "success-items with revision 0 in the second manifest entry, manifest MAC recomputed")
        let headerEnd = FormatV1.preambleLength + raw.headerBody.count + 64
        add("truncated-in-manifest-mac", .truncated, Array(itemsBytes.prefix(headerEnd + 4 + raw.manifest.count + 10)),
            "success-items cut inside the manifest MAC")
        m = raw
        m.manifest.append(0)
        add("truncated-manifest-wrong-length", .truncated, Array(try m.assemble(keys: nil).prefix(headerEnd + 4 + 30)),
            "a manifest one byte longer than its entries, cut inside the manifest: its bytes are missing before its length is checked")

        // ---- records (§7, §9, §10 step 9) ----
        let starts = recordOffsets(itemsBytes)
        add("malformed-record-too-short", .malformed, patched(itemsBytes, at: starts[2], u32(239)),
            "success-items with the last record's length 239 (the least is 240)")
        add("malformed-record-too-long", .malformed, patched(itemsBytes, at: starts[2], u32(68_157_425)),
            "success-items with the last record's length 68157425, one more than the largest valid record: refused before anything is read")
        add("truncated-record-longest", .truncated, patched(itemsBytes, at: starts[2], u32(68_157_424)),
            "success-items with the last record's length 68157424, the largest valid record: within bounds, but its bytes are missing")
        func recordEdited(_ edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
            var r = raw
            edit(&r.records[1])
            // The manifest lists the same ids and revisions, with the new body's digest.
            var listed = RawManifest(raw.manifest)
            listed.entries[1].digest = try BLAKE2b.hash(r.records[1])
            r.manifest = listed.bytes
            r.manifestMAC = .compute
            return try r.assemble(keys: items.keys)
        }
        var zero = raw
        zero.records[1].replaceSubrange(16..<24, with: u64(0))
        add("malformed-record-revision-zero", .malformed, try zero.assemble(keys: nil),
            "success-items with revision 0 in the second record body (the manifest, unchanged, lists revision 1)")
        add("malformed-secret-ciphertext-length", .malformed,
            try recordEdited { body in
                var record = RawRecord(body)
                record.secretCiphertext.append(0)
                body = record.bytes
            }, "success-items with a secret ciphertext of one byte more (not 16 more than a multiple of 64), manifest recomputed")
        add("malformed-record-trailing-byte", .malformed, try recordEdited { body in body.append(0) },
            "success-items with one byte after the second record's secret ciphertext, inside its length, manifest recomputed")
        add("truncated-secret-past-record", .truncated,
            try recordEdited { body in
                let record = RawRecord(body)
                let at = 16 + 8 + 24 + 4 + record.overviewCiphertext.count + 24
                body.replaceSubrange(at..<(at + 4), with: u32(UInt32(record.secretCiphertext.count + 64)))
            }, "success-items with the second record's secret ciphertext length 64 more than the bytes its record holds, manifest recomputed")
        let overviewLengthAt = starts[2] + 4 + 16 + 8 + 24
        add("malformed-overview-ciphertext-too-long", .malformed, patched(itemsBytes, at: overviewLengthAt, u32(1_048_592)),
            "success-items with the last record's overview ciphertext length 1048592 (16 more than a multiple of 64, over 1 MiB)")
        let lastRecord = RawRecord(raw.records[2])
        let secretLengthAt = overviewLengthAt + 4 + lastRecord.overviewCiphertext.count + 24
        add("malformed-secret-ciphertext-too-long", .malformed, patched(itemsBytes, at: secretLengthAt, u32(67_108_880)),
            "success-items with the last record's secret ciphertext length 67108880 (16 more than a multiple of 64, over 64 MiB)")

        // ---- overview and secret lists (§7), correctly sealed and MACed ----
        let kind = field(1, [1]), service = field(3, Array("example.com".utf8))
        let dates = field(13, i64(t0)) + field(14, i64(t0))
        let emptySecrets = try Padding.pad([UInt8](), blockSize: 64)
        let lists: [(String, VectorExpectation, [UInt8], [UInt8], String)] = [
            ("malformed-overview-kind", .malformed, try Padding.pad(field(1, [4]) + service + dates, blockSize: 64), emptySecrets,
             "an overview whose kind is 4 (kinds are 1 to 3)"),
            ("malformed-overview-kind-width", .malformed, try Padding.pad(field(1, [1, 0]) + service + dates, blockSize: 64), emptySecrets,
             "an overview whose kind is 2 bytes long (a u8 is exactly 1 byte)"),
            ("malformed-overview-favorite", .malformed, try Padding.pad(kind + service + field(12, [2]) + dates, blockSize: 64), emptySecrets,
             "an overview whose favorite field holds 2 (only 1 is allowed)"),
            ("malformed-overview-missing-kind", .malformed, try Padding.pad(service + dates, blockSize: 64), emptySecrets,
             "an overview without a kind field"),
            ("malformed-overview-missing-modified", .malformed, try Padding.pad(kind + service + field(13, i64(t0)), blockSize: 64), emptySecrets,
             "an overview without a modified date"),
            ("malformed-overview-repeated-label", .malformed,
             try Padding.pad(kind + field(2, Array("a".utf8)) + field(2, Array("b".utf8)) + service + dates, blockSize: 64), emptySecrets,
             "an overview with two label fields (tag 2 is not repeatable)"),
            ("malformed-overview-repeated-tag-zero", .malformed,
             try Padding.pad(field(0, [1]) + field(0, [2]) + kind + service + dates, blockSize: 64), emptySecrets,
             "an overview with the unassigned tag 0 twice (tag 0 is not repeatable)"),
            ("malformed-overview-port-width", .malformed,
             try Padding.pad(field(1, [2]) + field(5, Array("example.com".utf8)) + field(7, [0xBB, 0x01, 0x00]) + dates, blockSize: 64),
             emptySecrets, "an overview whose port is 3 bytes long (a u16 is exactly 2 bytes)"),
            ("malformed-overview-date-before-year-1", .malformed,
             try Padding.pad(kind + service + field(13, i64(-62_135_596_800_001)) + field(14, i64(t0)), blockSize: 64), emptySecrets,
             "an overview whose creation date is 1 ms before the year 1"),
            ("malformed-overview-pair-extra", .malformed,
             try Padding.pad(kind + service + dates + field(15, field(1, Array("n".utf8)) + field(2, Array("v".utf8)) + field(3, [0])),
                             blockSize: 64), emptySecrets,
             "an overview whose custom field (a pair) holds a third field, tag 3"),
            ("malformed-overview-pair-missing-value", .malformed,
             try Padding.pad(kind + service + dates + field(15, field(1, Array("n".utf8))), blockSize: 64), emptySecrets,
             "an overview whose custom field (a pair) has a name and no value"),
            ("truncated-overview-field-header", .truncated, try Padding.pad(kind + service + dates + [0x10, 0x00, 0x01], blockSize: 64),
             emptySecrets, "an overview list that ends 3 bytes into a field's 6-byte tag and length"),
            ("truncated-overview-field-value", .truncated,
             try Padding.pad(kind + service + dates + Array(field(0x10, [1, 2, 3, 4]).dropLast(2)), blockSize: 64), emptySecrets,
             "an overview list whose last field's length runs 2 bytes past the end of the list"),
            ("malformed-overview-order-then-cut", .malformed,
             try Padding.pad(service + kind + dates + [0x10, 0x00, 0x01], blockSize: 64), emptySecrets,
             "an overview with tag 3 before tag 1 and a list that ends inside a field header (fields are checked one by one: the order fails first)"),
            ("malformed-overview-padding-too-long", .malformed, kind + service + dates + [0x80] + [UInt8](repeating: 0, count: 64 + 64 - (kind + service + dates).count - 1),
             emptySecrets, "an overview padded with 0x80 and then 75 zero bytes (the 0x80 is not in the last 64 bytes)"),
            ("malformed-secret-critical-tag", .malformed, try Padding.pad(kind + service + dates, blockSize: 64),
             try Padding.pad(field(1, Array("pw".utf8)) + field(0x8001, [1]), blockSize: 64),
             "a secret part with the unknown critical tag 0x8001"),
            ("malformed-secret-repeated-password", .malformed, try Padding.pad(kind + service + dates, blockSize: 64),
             try Padding.pad(field(1, Array("a".utf8)) + field(1, Array("b".utf8)), blockSize: 64),
             "a secret part with two password fields (tag 1 is not repeatable)"),
            ("malformed-secret-history", .malformed, try Padding.pad(kind + service + dates, blockSize: 64),
             try Padding.pad(field(4, field(1, Array("old".utf8))), blockSize: 64),
             "a secret part whose history entry has a password and no replaced date"),
            ("malformed-secret-field-name-not-utf8", .malformed, try Padding.pad(kind + service + dates, blockSize: 64),
             try Padding.pad(field(3, field(1, [0xC3, 0x28]) + field(2, Array("v".utf8))), blockSize: 64),
             "a secret part whose secret field's name is not UTF-8"),
            ("malformed-secret-padding", .malformed, try Padding.pad(kind + service + dates, blockSize: 64),
             field(1, Array("pw".utf8)) + [UInt8](repeating: 0, count: 64 - 8),
             "a secret part padded with zeros and no 0x80 marker"),
            ("truncated-secret-field-header", .truncated, try Padding.pad(kind + service + dates, blockSize: 64),
             try Padding.pad(field(1, Array("pw".utf8)) + [0x02, 0x00, 0x05, 0x00], blockSize: 64),
             "a secret list that ends 4 bytes into a field's 6-byte tag and length"),
        ]
        // Merge fields (§17.3) on an item of one replica (id 1, time 5) whose default stamp
        // covers its kind and service (mask bits 0 and 2): valid as `clocked(...)` builds it,
        // each vector breaks one rule.
        func clocked(versions: [(UInt64, UInt64)], stampIndex: UInt8 = 0, stampTime: UInt64 = 5,
                     mask: UInt32 = 0b101) throws -> [UInt8] {
            let vector = versions.flatMap { u64($0.0) + u64($0.1) }
            let list = kind + service + dates + field(0x8010, vector) + field(0x8011, [stampIndex] + u64(stampTime) + u32(mask))
            return try Padding.pad(list, blockSize: 64)
        }
        let versions15 = field(0x8010, u64(1) + u64(5))
        let control = try clocked(versions: [(1, 5)])
        _ = try EntryCodec.decodeOverview(V1ClockFields.toWorking(Array(control.prefix(control.lastIndex(of: 0x80) ?? 0))))
        guard try ItemClockCodec.decode(overview: V1ClockFields.toWorking(Array(control.prefix(control.lastIndex(of: 0x80) ?? 0)))) != nil else {
            throw VectorFileError(description: "the merge-field control overview has no clock")
        }
        let clockLists: [(String, [UInt8], String)] = [
            ("malformed-overview-versions-order", try clocked(versions: [(2, 5), (1, 5)]),
             "an overview whose version vector (merge field 0x8010) lists replica 2 before replica 1"),
            ("malformed-overview-stamp-time", try clocked(versions: [(1, 5)], stampTime: 6),
             "an overview whose default stamp has time 6, above its replica's 5 in the version vector"),
            ("malformed-overview-stamp-index", try clocked(versions: [(1, 5)], stampIndex: 1),
             "an overview whose default stamp names replica index 1 of a one-replica version vector"),
            ("malformed-overview-stamp-mask", try clocked(versions: [(1, 5)], mask: 0b101 | 1 << 19),
             "an overview whose stamp mask sets bit 19, past the 19 registers of §17.2"),
            ("malformed-overview-stamps-without-versions",
             try Padding.pad(kind + service + dates + field(0x8011, [0] + u64(5) + u32(0b101)), blockSize: 64),
             "an overview with a stamps field (0x8011) and no version vector (0x8010 is required with any merge field)"),
            ("malformed-overview-stamps-partial",
             try Padding.pad(kind + service + dates + versions15 + field(0x8011, [0] + u64(5) + u32(0b101) + [3]), blockSize: 64),
             "an overview whose stamps field ends one byte into an explicit stamp (not a whole number of elements)"),
            ("malformed-overview-stamp-unknown-register",
             try Padding.pad(kind + service + dates + versions15 + field(0x8011, [0] + u64(5) + u32(0b101) + [13, 0] + u64(5)),
                             blockSize: 64),
             "an overview with an explicit stamp for register code 13 (a date, not a register of §17.2)"),
            ("malformed-overview-stamp-default-and-explicit",
             try Padding.pad(kind + service + dates + versions15 + field(0x8011, [0] + u64(4) + u32(0b101) + [3, 0] + u64(5)),
                             blockSize: 64),
             "an overview whose service (unkeyed, its mask bit set) has an explicit stamp too (only keyed registers may override the default)"),
            ("malformed-overview-deletion-time",
             try Padding.pad(kind + service + dates + versions15 + field(0x8011, [0] + u64(5) + u32(0b101)) + field(0x8013, [0] + u64(6)),
                             blockSize: 64),
             "an overview whose deletion vector (0x8013) has time 6, above its replica's 5 in the version vector"),
            ("malformed-overview-value-without-stamp", try clocked(versions: [(1, 5)], mask: 0b001),
             "an overview whose stamp mask stamps the kind and not the service, which has a value (a register with a value has a stamp)"),
            ("malformed-overview-tag-zero-without-stamp",
             try Padding.pad(field(0, [7]) + kind + service + dates + versions15 + field(0x8011, [0] + u64(5) + u32(0b101)), blockSize: 64),
             "an overview with a field of tag 0 (the unknown-attributes register 0x7F) and merge fields that stamp only the kind and service"),
            ("malformed-overview-sibling-without-value",
             try Padding.pad(kind + service + dates + field(0x8010, u64(1) + u64(5) + u64(2) + u64(6))
                             + field(0x8011, [1] + u64(6) + u32(0b101)) + field(0x8012, [1, 0] + u64(5)), blockSize: 64),
             "an overview whose kind has a sibling (0x8012) and a secret part without its conflict field (one conflict per sibling)"),
        ]
        for (name, overview, comment) in clockLists {
            add(name, .malformed, try withParts(overview: overview, secrets: emptySecrets, name: name), comment + ", correctly sealed and MACed")
        }
        for (name, expect, overview, secrets, comment) in lists {
            add(name, expect, try withParts(overview: overview, secrets: secrets, name: name), comment + ", correctly sealed and MACed")
        }
        return out
    }

    /// A password vault whose one record has these plaintexts (padded, or deliberately not).
    static func withParts(overview: [UInt8], secrets: [UInt8], name: String) throws -> [UInt8] {
        let b = try FormatVaultBuilder(entropy: entropy(name), slots: [(try passwordKey(), tinyKDF)])
        let raw = try RawRecord(id: try b.newID(), revision: 1, overviewPlaintext: overview, secretPlaintext: secrets,
                                vaultID: b.vaultID, keys: b.keys, entropy: b.entropy)
        b.insert(try EntryRecord(body: raw.bytes[...], index: 0))
        return try b.bytes()
    }
}

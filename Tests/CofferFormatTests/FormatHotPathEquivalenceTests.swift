import Foundation
import Testing
@testable import CofferFormat
import CofferStore
import CofferVault
import CofferTestSupport

/// The allocation-free forms used when a large vault is opened must compute exactly what
/// the plain forms (checked against SPEC.md's vectors) compute.
@Suite("Format: hot paths agree with the plain forms")
struct FormatHotPathEquivalenceTests {
    @Test("Entry associated data written in place equals the array form (SPEC.md §6)")
    func associatedDataInPlace() throws {
        for round in 0..<200 {
            let vaultID = try SecureRandom.bytes(FormatV1.vaultIDLength)
            let id = ItemID(validated: try SecureRandom.bytes(FormatV1.entryIDLength))
            let revision = round < 3 ? [1, UInt64.max, 0x0102_0304_0506_0708][round] : UInt64.random(in: 1...UInt64.max)
            for part in [EntryRecord.Part.overview, .secret] {
                let expected = EntryRecord.associatedData(vaultID: vaultID, id: id, revision: revision, part: part)
                var written = [UInt8](repeating: 0xAA, count: EntryRecord.associatedDataLength)
                written.withUnsafeMutableBytes {
                    EntryRecord.writeAssociatedData(into: $0, vaultID: vaultID, id: id, revision: revision, part: part)
                }
                #expect(written == expected)
            }
        }
    }

    @Test("Inline digests: same bytes as BLAKE2b-256, equal exactly when the bytes are")
    func inlineDigests() throws {
        for length in [0, 1, 63, 64, 65, 128, 1000, 4096] {
            let data = try SecureRandom.bytes(length)
            let inline = try data.withBytes { (raw) throws(CofferError) in try BLAKE2b.digest256(buffer: raw) }
            let plain = try BLAKE2b.hash(data, outputLength: 32)
            #expect(inline.bytes == plain)
            #expect(plain.withUnsafeBytes { Digest256($0) } == inline)
            for position in [0, 7, 8, 15, 16, 31] {
                var changed = plain
                changed[position] ^= 0x80
                #expect(changed.withUnsafeBytes { Digest256($0) } != inline)
            }
        }
    }

    @Test("A prefix read returns the first bytes and the whole size")
    func prefixRead() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("f").path
            let data = try SecureRandom.bytes(200_000)
            try Data(data).write(to: URL(fileURLWithPath: path))
            let store = VaultFileStore(path: path)
            for limit in [0, 1, 65_536, 199_999, 200_000, 300_000] {
                let read = try store.readPrefix(limit)
                #expect(read.bytes == Array(data.prefix(limit)))
                #expect(read.identity.size == Int64(data.count))
            }
            #expect(try store.read().bytes == data)
        }
    }

    @Test("Secret files: a FIFO is refused at once, never waited on; empty and oversized key files are refused")
    func secretFileKinds() throws {
        try withTemporaryDirectory { dir in
            let fifo = dir.appendingPathComponent("pipe").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // Without O_NONBLOCK this open would block until a writer came.
            #expect(throws: CofferError.notARegularFile) { try KeyFile(contentsOf: fifo) }
            #expect(throws: StoreError.notARegularFile("\(fifo) is not a regular file", path: fifo)) {
                try SecretFile.contents(of: fifo, limit: 1 << 20, kind: "import file", name: fifo)
            }
            let empty = dir.appendingPathComponent("empty.key").path
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            #expect(throws: CofferError.invalidKey) { try KeyFile(contentsOf: empty) }
            let generated = dir.appendingPathComponent("new.key").path
            _ = try KeyFile.generate(at: generated)
            #expect(try Data(contentsOf: URL(fileURLWithPath: generated)).count == 64)
            #expect(throws: CofferError.fileExists(generated)) { try KeyFile.generate(at: generated) }
        }
    }

    /// ``CompactOverview/working(from:tombstone:)`` skips re-encoding a clock of one version
    /// vector and nothing else (its encoding is what was read): on every such overview of
    /// items written through the vault (edited, tagged, of every kind, one and several
    /// writers), the full check passes too.
    @Test("Overviews whose clock is a version vector alone pass the full canonical-clock check")
    func versionsOnlyClocksAreCanonical() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            try vault.transaction { tx in
                for index in 0..<40 {
                    var attributes: ItemAttributes = index % 3 == 0 ? .secureNote(title: "n\(index)")
                        : index % 3 == 1 ? .internetPassword(server: "h\(index).example", account: "me", protocol: "https", port: 8443, path: "/x")
                        : .genericPassword(service: "s\(index)", account: "a\(index)")
                    if index % 4 == 0 { attributes.tags = ["t", "u/v"] }
                    if index % 5 == 0 { attributes.label = "label \(index)" }
                    _ = try tx.add(attributes, secrets: ItemSecrets(password: try secure("p\(index)")))
                }
            }
            for item in try vault.items().prefix(10) { try vault.update(item.id, attributes: nil, secrets: ItemSecrets(password: try secure("new"))) }
            let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            var fastPath = 0
            for record in codec.records where !record.isTombstone {
                let list = try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
                try CompactOverview.checkCanonicalClock(list, tombstone: false)
                if !ItemClockCodec.hasSiblings(list) { fastPath += 1 }
            }
            #expect(fastPath >= 40)
        }
    }

    /// ``CompactOverview/usualWorking(_:)`` reads the usual overview in one pass. On random
    /// overviews near the usual shape (and with bytes changed, cut or added), whatever it
    /// vouches for is exactly what the full reading returns, and passes the quick check
    /// (``EntryCodec/isPlainValidOverview(_:)``); it never vouches for a list the full
    /// reading refuses.
    @Test("The one-pass reading of a usual overview agrees with the full reading, and vouches for no refused list")
    func usualOverviewsAgree() throws {
        var random = SeededRandom(seed: 2911)
        var vouched = 0, refusedByBoth = 0, fullOnly = 0
        let tagKeys = try EpochKeys(epochKey: try SecureBytes(copying: [UInt8](repeating: 7, count: 32)))
        for round in 0..<20_000 {
            var compact = Self.nearlyUsualOverview(random)
            if round % 2 == 1, !compact.isEmpty {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: compact[Int.random(in: 0..<compact.count, using: &random)] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
                case 1: compact.removeLast(Int.random(in: 1...min(3, compact.count), using: &random))
                default: compact.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...compact.count, using: &random))
                }
            }
            let quick = compact.withUnsafeBytes { CompactOverview.usualWorking($0) }
            let full = Result { () throws(FormatError) in try CompactOverview.checkedWorking(from: compact, tombstone: false) }
            switch (quick, full) {
            case (let quick?, .success(let list)):
                #expect(quick == list, "the two readings differ on \(compact)")
                // What it vouches for passes the in-memory quick check, whose rules it applies as it reads.
                #expect(quick.withUnsafeBytes { EntryCodec.isPlainValidOverview($0) }, "vouched for \(compact)")
                // And the name a rotation hashes in place is the one the list's lookup tag hashes.
                let named = try #require(compact.withUnsafeBytes { CompactOverview.usualNameKey($0) })
                let inPlace = try compact.withUnsafeBytes { (raw) throws(FormatError) in
                    try LookupTag.tag(kind: named.kind, nameBytes: named.name.map { UnsafeRawBufferPointer(rebasing: raw[$0]) }
                                          ?? UnsafeRawBufferPointer(start: nil, count: 0), keys: tagKeys)
                }
                #expect(inPlace == (try LookupTag.tag(ofOverview: list, keys: tagKeys)), "the name of \(compact)")
                vouched += 1
            case (_?, .failure(let error)):
                Issue.record("vouched for a list the full reading refuses (\(error)): \(compact)")
            case (nil, .success):
                #expect(compact.withUnsafeBytes { CompactOverview.usualNameKey($0) } == nil)
                fullOnly += 1
            case (nil, .failure): refusedByBoth += 1
            }
            // What readers call: the one-pass reading first, then the full one.
            let read = Result { () throws(FormatError) in try CompactOverview.working(from: compact, tombstone: false) }
            #expect((try? read.get()) == (try? full.get()))
        }
        // The generator reaches every outcome, most of the unchanged overviews being usual.
        #expect(vouched > 3_000 && refusedByBoth > 5_000 && fullOnly > 500, "vouched \(vouched), refused \(refusedByBoth), full only \(fullOnly)")
    }

    /// ``ByteReader/varint(limit:_:)`` reads one- and two-byte varints at once: on short
    /// random byte strings and limits around their values, it returns what SPEC.md §1's
    /// rule gives (the value and the bytes it took, or the error), as written out here.
    @Test("Varints read at once agree with the rule of SPEC.md §1")
    func varintsAtOnce() throws {
        var random = SeededRandom(seed: 1_901)
        /// The rule: little-endian groups of 7 bits, at most 10 bytes (the last holding bit 63 only),
        /// shortest form, then the limit.
        func reference(_ bytes: [UInt8], limit: UInt64) -> Result<(UInt64, Int), FormatError> {
            var value: UInt64 = 0
            for (index, byte) in bytes.enumerated() {
                if index == 9, byte > 1 { return .failure(.malformed("v: varint too long")) }
                value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
                if byte & 0x80 == 0 {
                    if byte == 0, index > 0 { return .failure(.malformed("v: varint not in its shortest form")) }
                    return value <= limit ? .success((value, index + 1)) : .failure(.malformed("v: \(value) is over \(limit)"))
                }
            }
            return .failure(.truncated("v"))
        }
        for _ in 0..<50_000 {
            let count = Int.random(in: 0...4, using: &random)
            let bytes = (0..<count).map { _ in
                [UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...2, using: &random), 0x80, 0x7F].randomElement(using: &random) ?? 0
            }
            let limit = [UInt64.max, 0, 1, 127, 128, 255, 16_383, 16_384, UInt64.random(in: 0...20_000, using: &random)].randomElement(using: &random) ?? .max
            let read = bytes.withUnsafeBytes { raw -> Result<(UInt64, Int), FormatError> in
                var reader = ByteReader(raw)
                return Result { () throws(FormatError) in (try reader.varint(limit: limit, "v"), reader.offset) }
            }
            switch (read, reference(bytes, limit: limit)) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(bytes), limit \(limit)")
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(bytes), limit \(limit)")
            default: Issue.record("\(bytes), limit \(limit): \(read) against the rule's \(reference(bytes, limit: limit))")
            }
        }
    }

    /// ``RecordV2/Row/usual(_:)`` reads the usual manifest row at once. On rows near the usual
    /// shape (flags, tags, revisions and lengths around every bound, varints of one to three
    /// bytes and not in their shortest form, rows cut short), a manifest row read through it
    /// is exactly the row, the error and the reader's place that reading field by field gives;
    /// and it returns a row only where field by field returns the same row.
    @Test("The usual manifest row read at once agrees with the reading field by field")
    func usualRowsAtOnce() throws {
        var random = SeededRandom(seed: 2_911)
        var vouched = 0
        for round in 0..<40_000 {
            var row = try SecureRandom.bytes(40)   // id and nonce
            let flags: UInt8 = [0, 0, 0, 0, 0, 1, 1, 2, 0x80].randomElement(using: &random) ?? 0
            let tag: UInt64 = flags == 1 && Int.random(in: 0..<4, using: &random) > 0 ? 0
                : [0, 1, UInt64.random(in: 0...UInt64.max, using: &random), UInt64.random(in: 0...UInt64.max, using: &random)].randomElement(using: &random) ?? 0
            withUnsafeBytes(of: tag.littleEndian) { row += $0 }
            row.append(flags)
            func varint(_ value: UInt64) {
                if Int.random(in: 0..<25, using: &random) == 0 {
                    row += [UInt8(truncatingIfNeeded: value) | 0x80, UInt8(truncatingIfNeeded: value >> 7) | 0x80, 0x00]   // not shortest
                } else {
                    ByteWriter.appendVarint(value) { row.append($0) }
                }
            }
            // The usual lengths (padded lengths plus the tag, SPEC.md §7.5) more often than the others.
            let lengths: [UInt64] = [0, 15, 16, 17, 32, 34, 160, 176, 144, 120, 160, 176, 144, 120, 16_383, 16_384, 16_400,
                                     1_048_592, 1_048_593, UInt64.random(in: 0...20_000, using: &random)]
            varint([0, 1, 1, 1, 2, 127, 128, 16_383, 16_384, 4_294_967_295, 4_294_967_296].randomElement(using: &random) ?? 1)
            varint(lengths.randomElement(using: &random) ?? 160)
            varint(flags == 1 && Bool.random(using: &random) ? 0 : lengths.randomElement(using: &random) ?? 144)
            if round % 7 == 0 { row = Array(row.prefix(Int.random(in: 0...row.count, using: &random))) }
            let tail = Int.random(in: 0...3, using: &random)
            row += (0..<tail).map { _ in UInt8.random(in: 0...255, using: &random) }
            row.withUnsafeBytes { raw in
                var fields = ByteReader(raw), atOnce = ByteReader(raw), quick = ByteReader(raw)
                let expected = Result { () throws(FormatError) in try RecordV2.Row.parseFields(&fields, index: 3) }
                let got = Result { () throws(FormatError) in try RecordV2.Row.parse(&atOnce, index: 3) }
                switch (got, expected) {
                case (.success(let a), .success(let b)): #expect(a == b && atOnce.offset == fields.offset, "\(row)")
                case (.failure(let a), .failure(let b)): #expect(a == b, "\(row)")
                default: Issue.record("\(row): \(got) against \(expected)")
                }
                if let row = RecordV2.Row.usual(&quick) {
                    vouched += 1
                    #expect(expected == .success(row) && quick.offset == fields.offset, "vouched for \(row)")
                } else {
                    #expect(quick.offset == 0, "a row it does not vouch for leaves the reader where it was")
                }
            }
        }
        #expect(vouched > 2_000, "the usual shape was drawn \(vouched) times")
    }

    /// A format-2 overview of the usual shape, or close to it: fields left out, repeated,
    /// out of order, of the wrong length, not ASCII; dates equal to the implied one or out
    /// of range; a version vector unsorted, empty or of a bad length; fields of other shapes
    /// (custom fields, stamps, an unknown field).
    static func nearlyUsualOverview(_ random: SeededRandom) -> [UInt8] {
        var g = random
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &g) < p }
        var out: [UInt8] = []
        func varint(_ value: UInt64) { ByteWriter.appendVarint(value) { out.append($0) } }
        func field(_ tag: UInt16, _ value: [UInt8]) { varint(UInt64(tag)); varint(UInt64(value.count)); out += value }
        func text() -> [UInt8] {
            let bytes = (0..<Int.random(in: 0...24, using: &g)).map { _ in UInt8.random(in: 0x20...0x7E, using: &g) }
            return chance(0.03) ? bytes + [0xC3, 0xA9] : bytes
        }
        func u64(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        var entries: [(replica: UInt64, time: UInt64)] = (0..<(chance(0.02) ? 0 : Int.random(in: 1...3, using: &g))).map { _ in
            (chance(0.02) ? 0 : UInt64.random(in: 1...6, using: &g),
             chance(0.02) ? 0 : (UInt64.random(in: 1_600_000_000_000...1_900_000_000_000, using: &g) << 16) | UInt64.random(in: 0...3, using: &g))
        }
        if !chance(0.05) { entries.sort { $0.replica < $1.replica } }
        let implied = (entries.map { ($0.time, $0.replica) }.max { $0 < $1 }?.0 ?? 0) >> 16
        func date() -> [UInt8] {
            if chance(0.3) { return u64(implied) }
            if chance(0.05) { return chance(0.5) ? u64(UInt64(bitPattern: 253_402_300_800_000)) : [1, 2, 3] }
            return u64(implied &- UInt64.random(in: 1...1_000_000, using: &g))
        }
        var fields: [(UInt16, [UInt8])] = []
        if !chance(0.03) { fields.append((1, [chance(0.03) ? 7 : UInt8.random(in: 1...3, using: &g)])) }
        for tag: UInt16 in [2, 3, 4, 5, 6, 8, 9] where chance(0.5) { fields.append((tag, text())) }
        if chance(0.3) { fields.append((7, chance(0.05) ? [1] : [0x01, 0xBB])) }
        for tag: UInt16 in [10, 11] { for _ in 0..<Int.random(in: 0...3, using: &g) { fields.append((tag, text())) } }
        if chance(0.2) { fields.append((12, [chance(0.05) ? 0 : 1])) }
        if chance(0.3) { fields.append((13, date())) }
        if chance(0.3) { fields.append((14, date())) }
        if chance(0.03) { fields.append((15, [1, 1, 0x61, 2, 1, 0x62])) }
        if chance(0.03) { fields.append((0x20, text())) }
        var versions = entries.flatMap { u64($0.replica) + u64($0.time) }
        if chance(0.02), !versions.isEmpty { versions.removeLast() }
        if !chance(0.02) { fields.append((ItemClockCodec.Tag.versions, versions)) }
        if chance(0.03) { fields.append((ItemClockCodec.Tag.stamps, [0, 0, 1])) }
        if !chance(0.04) { fields.sort { $0.0 < $1.0 } }
        for (tag, value) in fields { field(tag, value) }
        return out
    }
}

import Foundation
import Testing
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

/// The codecs of format 2 one by one (SPEC.md §2–§9, §13.1, §17.3): known answers,
/// round trips over varied inputs, and hostile bytes that must give typed errors.
@Suite("Format 2 codecs")
struct FormatV2Tests {
    static let kdf = VectorCatalog.tinyKDF

    func formatError(_ body: () throws(FormatError) -> Void) -> FormatError? {
        do { try body(); return nil } catch { return error }
    }

    // MARK: Varints (SPEC.md §1)

    @Test("Varints: known encodings, shortest form only, bounds, cut short")
    func varints() throws {
        let cases: [(UInt64, [UInt8])] = [(0, [0]), (1, [1]), (127, [0x7F]), (128, [0x80, 0x01]), (300, [0xAC, 0x02]),
                                          (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]), (UInt64(UInt32.max), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F])]
        for (value, bytes) in cases {
            var w = ByteWriter()
            w.varint(value)
            #expect(w.bytes == bytes)
            #expect(ByteWriter.varintLength(value) == bytes.count)
            let read = try bytes.withBytes { (raw) throws(FormatError) in var r = ByteReader(raw); return try r.varint(limit: .max, "v") }
            #expect(read == value)
        }
        func read(_ bytes: [UInt8], limit: UInt64 = .max) -> FormatError? {
            formatError { () throws(FormatError) in
                _ = try bytes.withBytes { (raw) throws(FormatError) in var r = ByteReader(raw); return try r.varint(limit: limit, "v") }
            }
        }
        #expect(read([0x80, 0x00]) == .malformed("v: varint not in its shortest form"))
        #expect(read([0x81, 0x80, 0x00]) == .malformed("v: varint not in its shortest form"))
        #expect(read([0x80]) == .truncated("v"))
        #expect(read([]) == .truncated("v"))
        #expect(read([0x80, 0x02], limit: 255) == .malformed("v: 256 is over 255"))
        #expect(read([UInt8](repeating: 0xFF, count: 12)) == .malformed("v: varint too long"))
    }

    @Test("Varints: every value round-trips", arguments: [1, 2, 3])
    func varintRoundTrip(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        for _ in 0..<2000 {
            let value = UInt64.random(in: 0...UInt64.max, using: &random) >> UInt64.random(in: 0...63, using: &random)
            var w = ByteWriter()
            w.varint(value)
            let back = try w.bytes.withBytes { (raw) throws(FormatError) in var r = ByteReader(raw); return try r.varint(limit: .max, "v") }
            #expect(back == value)
        }
    }

    // MARK: Padding (SPEC.md §7.5)

    @Test("PADMÉ: known padded lengths and the minimum of 16")
    func padmeLengths() {
        let cases: [(Int, Int)] = [(1, 16), (16, 16), (17, 18), (31, 32), (32, 32), (33, 36), (63, 64), (65, 72), (100, 104),
                                   (127, 128), (129, 144), (151, 160), (255, 256), (257, 272), (1000, 1024), (1025, 1088),
                                   (70_000, 71_680), (1 << 20, 1 << 20)]
        for (m, padded) in cases { #expect(Padme.paddedLength(m) == padded, "PADMÉ(\(m))") }
    }

    @Test("PADMÉ: every padded length is its own, overhead under 12 %, and each list has one padding")
    func padmeProperties() throws {
        for m in 1...5000 {
            let p = Padme.paddedLength(m)
            #expect(p >= m && Padme.isPaddedLength(p))
            if m > 256 { #expect(Double(p - m) / Double(m) < 0.12) }
        }
        for n in [0, 1, 14, 15, 16, 30, 31, 100, 300] {
            let list = [UInt8](repeating: 0x41, count: n)
            let padded = Padme.pad(list)
            #expect(try padded.withBytes { (raw) throws(CofferError) in try Padme.unpaddedLength(raw, structure: "t") } == n)
            // Longer or shorter than the list's own padded length: refused.
            var longer = padded
            longer += [UInt8](repeating: 0, count: Padme.paddedLength(padded.count + 1) - padded.count)
            if longer.count != padded.count {
                #expect(throws: CofferError.malformed) { try longer.withBytes { (raw) throws(CofferError) in try Padme.unpaddedLength(raw, structure: "t") } }
            }
        }
        #expect(throws: CofferError.malformed) { try [UInt8](repeating: 0, count: 16).withBytes { (raw) throws(CofferError) in try Padme.unpaddedLength(raw, structure: "t") } }
    }

    // MARK: Compact lists (SPEC.md §7.1)

    @Test("Compact lists: in-memory lists of every kind survive the round trip, secrets in guarded memory")
    func compactRoundTrip() throws {
        for (attributes, secrets) in [try VectorCatalog.github(), try VectorCatalog.mail(), try VectorCatalog.wifi(), try VectorCatalog.small()] {
            let overview = EntryCodec.encodeOverview(attributes).publicBytes
            let compact = try CompactFieldList.compact(from: .bytes(overview), schema: .overview).publicBytes
            #expect(compact.count < overview.count)
            #expect(try CompactFieldList.working(from: compact, schema: .overview) == overview)
            let secretList = try EntryCodec.encodeSecrets(secrets).secureBytes()
            let compactSecrets = try CompactFieldList.compact(from: .secret(secretList), schema: .secret).secureBytes()
            let back = try CompactFieldList.working(from: compactSecrets, schema: .secret)
            #expect(back == secretList)
        }
    }

    @Test("Compact lists: random bytes give a list or a typed error, never a crash")
    func compactHostile() throws {
        var random = SeededRandom(seed: 29)
        for length in 0..<400 {
            let bytes = (0..<(length % 60)).map { _ in UInt8.random(in: 0...255, using: &random) }
            for tombstone in [false, true] {
                let error = formatError { () throws(FormatError) in _ = try CompactOverview.working(from: bytes, tombstone: tombstone) }
                switch error {
                case nil, .malformed?, .truncated?: break
                default: Issue.record("unexpected \(String(describing: error))")
                }
            }
            // The list converted in ordinary memory and in guarded memory: the same bytes or the same error.
            let inGuarded = Result { () throws(FormatError) in
                try CompactFieldList.working(from: try crypto { () throws(CofferError) in try SecureBytes(copying: bytes) }, schema: .secret)
            }
            let inPlain = Result { () throws(FormatError) in try CompactFieldList.working(from: bytes, schema: .secret) }
            switch (inGuarded, inPlain) {
            case (.success(let guarded), .success(let plain)): guarded.withUnsafeBytes { #expect(Array($0) == plain) }
            case (.failure(let a), .failure(let b)): #expect(a == b)
            default: Issue.record("the two conversions disagree on \(bytes)")
            }
        }
    }

    // MARK: Overviews with implied fields (SPEC.md §7.6)

    @Test("Dates and stamps that follow from the version vector are left out, and restored")
    func impliedFields() throws {
        let (a, s) = try VectorCatalog.small()
        let stamp = FormatVaultBuilderV2.stamp(a.modified.millisecondsSince1970)
        let clock = try FormatVaultBuilderV2.clock(stamp, a, s)
        let list = EntryCodec.encodeOverview(a).publicBytes + (try ItemClockCodec.encode(clock, present: [], style: .version2))
        let compact = try CompactOverview.compact(from: list, tombstone: false, present: [])
        let scan = CompactOverview.Scan(try CompactFieldList.working(from: compact, schema: .overview))
        #expect(!scan.has(13) && !scan.has(14) && !scan.has(ItemClockCodec.Tag.stamps))
        #expect(try CompactOverview.working(from: compact, tombstone: false) == list)
        #expect(try ItemClockCodec.decode(overview: list) == clock)
        // Created earlier than the edit: written out; modified still implied.
        var older = a
        older.created = vectorDate(a.modified.millisecondsSince1970 - 1)
        let list2 = EntryCodec.encodeOverview(older).publicBytes + (try ItemClockCodec.encode(clock, present: [], style: .version2))
        let compact2 = try CompactOverview.compact(from: list2, tombstone: false, present: [])
        let scan2 = CompactOverview.Scan(try CompactFieldList.working(from: compact2, schema: .overview))
        #expect(scan2.has(13) && !scan2.has(14))
        #expect(try CompactOverview.working(from: compact2, tombstone: false) == list2)
    }

    // MARK: Merge fields held in format 2's encoding (SPEC.md §17.3)

    @Test("Clocks survive the encoding with many replicas, confirmations and erased values")
    func clockRoundTrip() throws {
        var random = SeededRandom(seed: 5)
        for round in 0..<200 {
            let n = round == 0 ? 300 : Int.random(in: 1...6, using: &random)
            var times: [UInt64: UInt64] = [:]
            for r in 1...n { times[UInt64(r) * 7] = UInt64.random(in: 1...1_000_000, using: &random) }
            let versions = VersionVector(times)
            let entries = versions.sorted
            func anyStamp() -> Stamp {
                let e = entries.randomElement(using: &random)!
                return Stamp(replica: e.replica, time: UInt64.random(in: 1...e.time, using: &random))
            }
            var stamps: [Register: Stamp] = [:]
            for register in Register.all where !register.isKeyed && Bool.random(using: &random) { stamps[register] = anyStamp() }
            stamps[.kind] = anyStamp()
            stamps[Register.keyed(0x83, name: Array("pin".utf8), occurrence: 0)] = anyStamp()
            var clock = ItemClock(versions: versions, stamps: stamps)
            if Bool.random(using: &random) { clock.deleted = VersionVector([entries[0].replica: entries[0].time]) }
            if let winner = stamps[.kind] {
                let loser = anyStamp()
                // The newest value not erased wins (SPEC.md §17.5): an erased sibling may be newer.
                if loser < winner || (loser > winner && clock.deleted != nil) {
                    clock.siblings[.kind] = [loser]
                    let erased = loser > winner || Bool.random(using: &random)
                    if erased { clock.erased = [ValueID(register: .kind, stamp: loser)] }
                    let full = versions.sorted
                    var confirmation = VersionVector([loser.replica: loser.time])
                    if full.count > 1 { confirmation.include(Stamp(replica: full[0].replica, time: 1)) }
                    // Kept reduced by the deletion vector; an erased value has none.
                    confirmation = confirmation.above(clock.deleted)
                    if !erased, !confirmation.isEmpty, confirmation != clock.defaultConfirmation, versions.dominates(confirmation) {
                        clock.confirmations = [ValueID(register: .kind, stamp: loser): confirmation]
                    }
                }
            }
            for style in [ItemClockCodec.StampStyle.version1, .version2] where style == .version2 || (n <= 255 && clock.erased.isEmpty && clock.confirmations.isEmpty) {
                let encoded = try ItemClockCodec.encode(clock, present: Set(stamps.keys), style: style)
                let decoded = try #require(try ItemClockCodec.decode(overview: encoded))
                #expect(decoded.resolved(present: Set(stamps.keys)) == clock, "round \(round) \(style)")
                if style == .version1 {
                    // Format 1's record keeps the same clock through its own encoding.
                    let v1 = try V1ClockFields.toV1([1, 0, 1, 0, 0, 0, 1] + encoded)
                    #expect(try V1ClockFields.toWorking(v1) == [1, 0, 1, 0, 0, 0, 1] + encoded)
                }
            }
        }
    }

    @Test("A format-1 record cannot hold a clock of format 2 only: a typed error, not a wrong file")
    func versionOneLimits() throws {
        var times: [UInt64: UInt64] = [:]
        for r in 1...300 { times[UInt64(r)] = 5 }
        let clock = ItemClock(versions: VersionVector(times), stamps: [.kind: Stamp(replica: 300, time: 5)])
        let list = [1, 0, 1, 0, 0, 0, 1] + (try ItemClockCodec.encode(clock, present: [.kind]))
        #expect(formatError { () throws(FormatError) in _ = try V1ClockFields.toV1(list) } == .invalidItem("a version-1 record holds at most 255 replicas per item"))
    }

    // MARK: Keys, slots, stanzas (SPEC.md §4, §5)

    @Test("Epoch id and subkeys: known answers for the key 00..1f")
    func epochKeys() throws {
        let keys = try EpochKeys(epochKey: SecureBytes(copying: Array(0..<32).map(UInt8.init)))
        let key = try SecureBytes(copying: Array(0..<32).map(UInt8.init))
        #expect(keys.epochID == Array(try BLAKE2b.mac(Array("coffer.v2.epoch".utf8) + [0], key: key).prefix(16)))
        #expect(keys.headerKey.testBytes == (try BLAKE2b.mac(Array("coffer.v2.header".utf8) + [0], key: key)))
        #expect(keys.lookupKey.testBytes == (try BLAKE2b.mac(Array("coffer.v2.lookup".utf8) + [0], key: key)))
        #expect(Set([keys.headerKey, keys.manifestKey, keys.overviewKey, keys.secretKey, keys.keyHistoryKey, keys.lookupKey].map(\.testBytes)).count == 6)
    }

    static func credentials() throws -> [(String, VaultCredential, VaultCredential)] {
        let file = KeyFile(material: try VectorCatalog.material(VectorCatalog.keyFile))
        let other = KeyFile(material: try VectorCatalog.material(VectorCatalog.keyFile.reversed()))
        return [
            ("password", .password(try SecureBytes(copying: "pw")), .password(try SecureBytes(copying: "pW"))),
            ("key file", .keyFile(file), .keyFile(other)),
            ("password and key file, wrong file", .passwordAndKeyFile(try SecureBytes(copying: "pw"), file), .passwordAndKeyFile(try SecureBytes(copying: "pw"), other)),
            ("password and key file, wrong password", .passwordAndKeyFile(try SecureBytes(copying: "pw"), file), .passwordAndKeyFile(try SecureBytes(copying: "px"), file)),
            ("raw key", .rawKey(try SecureBytes(copying: Array(0..<32).map(UInt8.init))), .rawKey(try SecureBytes(copying: Array(1...32).map(UInt8.init)))),
        ]
    }

    @Test("Each slot type opens with its credential only, and a rotation's new stanza opens with the same credential")
    func slotsOpenAndRotate() throws {
        let entropy = try formatTestEntropy("slots")
        let vaultID = [UInt8](repeating: 7, count: 16)
        let epoch = try EpochKeys(epochKey: try entropy.secureBytes(32))
        let next = try EpochKeys(epochKey: try entropy.secureBytes(32))
        for (name, right, wrong) in try Self.credentials() {
            let (slot, seeds) = try KeySlotV2.make(for: right, kdf: Self.kdf, vaultID: vaultID, epoch: epoch, entropy: entropy)
            #expect(slot.isNewStyle && slot.stanza.count == 80, "\(name)")
            let opened = try #require(try slot.open(with: right, vaultID: vaultID, epochID: epoch.epochID), "\(name)")
            #expect(opened.key == epoch.epochKey)
            #expect(try slot.open(seeds: seeds, vaultID: vaultID, epochID: epoch.epochID) == epoch.epochKey)
            #expect(try slot.open(with: wrong, vaultID: vaultID, epochID: epoch.epochID) == nil, "\(name): the wrong credential")
            #expect(try slot.open(with: right, vaultID: [UInt8](repeating: 8, count: 16), epochID: epoch.epochID) == nil, "\(name): another vault")
            // A rotation needs only the public part; the slot's identity stays.
            let rotated = try slot.restanza(vaultID: vaultID, epoch: next, entropy: entropy)
            #expect(rotated.identity == slot.identity && rotated.stanza != slot.stanza)
            #expect(try rotated.open(seeds: seeds, vaultID: vaultID, epochID: next.epochID) == next.epochKey, "\(name): cached seeds survive a rotation")
            #expect(try rotated.open(seeds: seeds, vaultID: vaultID, epochID: epoch.epochID) == nil)
            let parsed = try KeySlotV2(type: slot.type, publicPart: slot.publicPart, stanza: slot.stanza, index: 0)
            #expect(parsed == slot)
        }
    }

    @Test("A password change keeps a required key file's factor without the key file")
    func replacePasswordFactor() throws {
        let entropy = try formatTestEntropy("replace factor")
        let vaultID = [UInt8](repeating: 7, count: 16)
        let epoch = try EpochKeys(epochKey: try entropy.secureBytes(32))
        let file = KeyFile(material: try VectorCatalog.material(VectorCatalog.keyFile))
        let (slot, _) = try KeySlotV2.make(for: .passwordAndKeyFile(try SecureBytes(copying: "old"), file), kdf: Self.kdf,
                                           vaultID: vaultID, epoch: epoch, entropy: entropy)
        let (changed, _) = try #require(try slot.replacingPasswordFactor(try SecureBytes(copying: "new"), vaultID: vaultID, epoch: epoch, entropy: entropy))
        #expect(changed.identity != slot.identity)
        #expect(Array(changed.publicPart[61...]) == Array(slot.publicPart[61...]), "the key-file factor is kept")
        #expect(try changed.open(with: .passwordAndKeyFile(try SecureBytes(copying: "new"), file), vaultID: vaultID, epochID: epoch.epochID)?.key == epoch.epochKey)
        #expect(try changed.open(with: .passwordAndKeyFile(try SecureBytes(copying: "old"), file), vaultID: vaultID, epochID: epoch.epochID) == nil)
    }

    @Test("A stanza whose ephemeral point has small order opens for nobody")
    func smallOrderStanza() throws {
        let entropy = try formatTestEntropy("small order")
        let vaultID = [UInt8](repeating: 7, count: 16)
        let epoch = try EpochKeys(epochKey: try entropy.secureBytes(32))
        let credential = VaultCredential.rawKey(try SecureBytes(copying: Array(0..<32).map(UInt8.init)))
        let (slot, _) = try KeySlotV2.make(for: credential, kdf: Self.kdf, vaultID: vaultID, epoch: epoch, entropy: entropy)
        var stanza = slot.stanza
        stanza.replaceSubrange(0..<32, with: [UInt8](repeating: 0, count: 32))
        let broken = try KeySlotV2(type: slot.type, publicPart: slot.publicPart, stanza: stanza, index: 0)
        #expect(try broken.open(with: credential, vaultID: vaultID, epochID: epoch.epochID) == nil)
    }

    @Test("Slot bytes of every length give a slot or a typed error")
    func hostileSlots() {
        var random = SeededRandom(seed: 31)
        for type: UInt8 in [1, 2, 3, 4, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x7F] {
            for _ in 0..<40 {
                let publicPart = (0..<Int.random(in: 0...120, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                let stanza = (0..<Int.random(in: 0...90, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                _ = try? KeySlotV2(type: type, publicPart: publicPart, stanza: stanza, index: 0)
            }
        }
    }

    // MARK: Key history (SPEC.md §4.9)

    @Test("Key history: sealed and opened, newest first, at most 64, bound to its vault and epoch")
    func keyHistory() throws {
        let entropy = try formatTestEntropy("key history")
        let vaultID = [UInt8](repeating: 7, count: 16)
        let current = try EpochKeys(epochKey: try entropy.secureBytes(32))
        var earlier: [(epoch: KeyHistory.Epoch, keys: EpochKeys)] = []
        for i in 0..<70 {
            let keys = try EpochKeys(epochKey: try entropy.secureBytes(32))
            earlier.append((KeyHistory.Epoch(epochID: keys.epochID, end: Stamp(replica: 1, time: UInt64(i + 1))), keys))
        }
        let history = try #require(try KeyHistory.seal(earlier, vaultID: vaultID, current: current, entropy: entropy))
        #expect(history.epochs.count == 64)
        #expect(history.epochs.first?.end.time == 70 && history.epochs.last?.end.time == 7)
        let opened = try history.open(with: current, vaultID: vaultID)
        #expect(opened.map(\.keys.epochID) == history.epochs.map(\.epochID))
        #expect(throws: FormatError.tampered(.header)) { try history.open(with: current, vaultID: [UInt8](repeating: 8, count: 16)) }
        #expect(throws: FormatError.tampered(.header)) { try history.open(with: opened[0].keys, vaultID: vaultID) }
        // Every cut and every single-byte change gives a history or a typed error.
        for cut in 0..<history.value.count where cut % 37 == 0 {
            _ = try? KeyHistory(parsing: Array(history.value.prefix(cut)), vaultID: vaultID, epochID: current.epochID)
        }
    }

    // MARK: Lookup tags (SPEC.md §8.1)

    @Test("Lookup tags: ASCII folds to lower case, names with other bytes share one tag per kind")
    func lookupTags() throws {
        let keys = try EpochKeys(epochKey: try SecureBytes(copying: Array(0..<32).map(UInt8.init)))
        #expect(LookupTag.fold(Array("GitHub.COM".utf8)) == Array("github.com".utf8))
        #expect(LookupTag.fold(Array("Café".utf8)) == [0xFF])
        #expect(LookupTag.fold([]) == [])
        func tag(_ kind: ItemKind, _ name: String) throws -> UInt64 { try LookupTag.tag(kind: kind, name: Array(name.utf8), keys: keys) }
        #expect(try tag(.genericPassword, "GitHub.com") == tag(.genericPassword, "github.COM"))
        #expect(try tag(.genericPassword, "github.com") != tag(.internetPassword, "github.com"))
        #expect(try tag(.secureNote, "Café") == tag(.secureNote, "Ünïcödé"))
        #expect(try tag(.genericPassword, "a") != tag(.genericPassword, "b"))
        let expected = try BLAKE2b.mac([1] + Array("github.com".utf8), key: keys.lookupKey)
        #expect(try tag(.genericPassword, "GitHub.com") == expected.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }

    @Test("Lookup tags: the fold of every byte value, and of names of mixed bytes, is SPEC §8.1's rule")
    func lookupTagFoldEveryByte() {
        // The rule as SPEC.md §8.1 states it, byte by byte.
        func specFold(_ name: [UInt8]) -> [UInt8] {
            name.contains { $0 >= 0x80 } ? [0xFF] : name.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        }
        for byte in 0...255 {
            let name: [UInt8] = [0x41, UInt8(byte), 0x7A]
            #expect(LookupTag.fold(name) == specFold(name), "byte \(byte)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let name = (0..<Int.random(in: 0...40, using: &random)).map { _ in UInt8.random(in: 0x20...0x7F, using: &random) }
            #expect(LookupTag.fold(name) == specFold(name))
        }
    }

    @Test("Lookup tags of overview lists: each kind's name field, an absent name, a kind a deletion erased (a generic password)")
    func lookupTagOfOverview() throws {
        let keys = try EpochKeys(epochKey: try SecureBytes(copying: Array(0..<32).map(UInt8.init)))
        let T = EntryCodec.OverviewTag.self
        func list(_ fields: [(UInt16, [UInt8])]) -> [UInt8] {
            fields.flatMap { tag, value in
                withUnsafeBytes(of: tag.littleEndian, Array.init) + withUnsafeBytes(of: UInt32(value.count).littleEndian, Array.init) + value
            }
        }
        func tag(_ kind: ItemKind, _ name: String) throws -> UInt64 { try LookupTag.tag(kind: kind, name: Array(name.utf8), keys: keys) }
        let generic = list([(T.kind, [ItemKind.genericPassword.code]), (T.label, Array("Label".utf8)),
                            (T.service, Array("GitHub.com".utf8)), (T.account, Array("me".utf8))])
        #expect(try LookupTag.tag(ofOverview: generic, keys: keys) == tag(.genericPassword, "github.com"))
        let internet = list([(T.kind, [ItemKind.internetPassword.code]), (T.label, Array("Bank".utf8)),
                             (T.service, Array("svc".utf8)), (T.account, Array("me".utf8)), (T.server, Array("bank.example".utf8))])
        #expect(try LookupTag.tag(ofOverview: internet, keys: keys) == tag(.internetPassword, "bank.example"))
        let note = list([(T.kind, [ItemKind.secureNote.code]), (T.label, Array("Diary".utf8))])
        #expect(try LookupTag.tag(ofOverview: note, keys: keys) == tag(.secureNote, "Diary"))
        let noService = list([(T.kind, [ItemKind.genericPassword.code]), (T.label, Array("Label".utf8)), (T.account, Array("me".utf8))])
        #expect(try LookupTag.tag(ofOverview: noService, keys: keys) == tag(.genericPassword, ""))
        let erasedKind = list([(T.service, Array("github.com".utf8)), (T.account, Array("me".utf8))])
        #expect(try LookupTag.tag(ofOverview: erasedKind, keys: keys) == tag(.genericPassword, "github.com"))
        #expect(try LookupTag.tag(ofOverview: [], keys: keys) == tag(.genericPassword, ""))
        #expect(throws: FormatError.self) { try LookupTag.tag(ofOverview: list([(T.kind, [0x7E])]), keys: keys) }
    }

    // MARK: Records and files (SPEC.md §2, §7, §8, §10)

    @Test("A file round-trips, every record opens, and only its own nonce and id open a record")
    func fileRoundTrip() throws {
        let builder = try VectorCatalogV2.itemsVault()
        let bytes = try builder.bytes()
        let opened = try FormatReader.open(bytes, key: .password(try SecureBytes(copying: VectorCatalog.password)))
        #expect(opened.entries == builder.expectedEntries)
        let codec = try #require(opened.codecV2)
        #expect(try VaultFileV2.encode(header: codec.header, generation: codec.generation, records: codec.records, keys: builder.keys).bytes == bytes)
        // A record under another row's id and nonce does not open.
        let a = codec.records[0], b = codec.records[1]
        let swapped = RecordV2(id: a.id, revision: a.revision, nonce: a.nonce, lookupTag: a.lookupTag, isTombstone: false,
                               body: b.body, overviewLength: b.overviewLength)
        #expect(throws: FormatError.tampered(.entry(a.id.hex))) { try swapped.openOverviewList(vaultID: codec.header.vaultID, keys: builder.keys) }
    }

    @Test("Every truncation and single-byte change of a file gives a typed outcome, never a crash or success with other data")
    func hostileFiles() throws {
        let builder = try VectorCatalogV2.itemsVault()
        let bytes = try builder.bytes()
        let key = VaultCredential.password(try SecureBytes(copying: VectorCatalog.password))
        var random = SeededRandom(seed: 41)
        for _ in 0..<150 {
            var mutated = bytes
            let at = Int.random(in: 0..<bytes.count, using: &random)
            mutated[at] ^= UInt8.random(in: 1...255, using: &random)
            let (outcome, _, opened) = FormatReader.outcome(mutated, key: key)
            #expect(outcome != nil, "byte \(at): an error that is not a file outcome")
            if outcome == .success { #expect(opened?.entries == builder.expectedEntries, "byte \(at) changed the data") }
        }
        for cut in stride(from: 0, to: bytes.count, by: 97) {
            #expect(FormatReader.outcome(Array(bytes.prefix(cut)), key: key).0 == .truncated, "cut at \(cut)")
        }
    }

    @Test("Tombstones keep no attributes and no secret part")
    func tombstones() throws {
        let builder = try VectorCatalogV2.tombstoneVault()
        let bytes = try builder.bytes()
        let codec = try VaultFileV2.parse(bytes)
        let tombstone = try #require(codec.records.first { $0.isTombstone })
        #expect(tombstone.lookupTag == 0 && tombstone.secretCiphertext.isEmpty)
        let list = try tombstone.openOverviewList(vaultID: codec.header.vaultID, keys: builder.keys)
        #expect(throws: FormatError.self) { try EntryCodec.decodeOverview(list) }
        #expect(try ItemClockCodec.decode(overview: list)?.isDeleted == true)
        // Nothing of the deleted item's contents is in the file, whatever the key.
        #expect(!bytes.contains(subsequence: Array("example.com".utf8)))
    }

    // MARK: Rotation (SPEC.md §11.2)

    @Test("A rotation: the same credential opens, the old epoch key opens nothing new, the key history holds it, legacy slots go")
    func rotation() throws {
        let builder = try VectorCatalogV2.legacySlotVault()
        let before = try builder.bytes()
        let oldKeys = builder.keys
        let legacy = builder.header.slots.filter(\.isLegacy).map(\.identity)
        #expect(!legacy.isEmpty)
        let rotated = try EpochRotation.rotate(header: builder.header, records: builder.sortedRecords, keys: oldKeys,
                                               at: Stamp(replica: 9, time: 1 << 50), entropy: try formatTestEntropy("rotate"))
        #expect(rotated.removed.map(\.identity) == legacy)
        #expect(rotated.header.removedSlots.map(\.identity) == legacy)
        #expect(rotated.header.slots.allSatisfy(\.isNewStyle) && rotated.keys.epochID != oldKeys.epochID)
        let bytes = try VaultFileV2.encode(header: rotated.header, generation: 2, records: rotated.records, keys: rotated.keys).bytes
        let raw = VaultCredential.rawKey(try SecureBytes(copying: VectorCatalog.rawKey))
        let after = try FormatReader.open(bytes, key: raw)
        #expect(after.entries == (try FormatReader.open(before, key: raw)).entries)
        let history = try #require(try after.codecV2?.authenticate(keys: rotated.keys))
        #expect(history.map(\.keys.epochKey) == [oldKeys.epochKey])
        // The old epoch key opens no record of the new file, and the password of the removed
        // legacy slot opens nothing.
        let codec = try VaultFileV2.parse(bytes)
        for record in codec.records {
            #expect(throws: FormatError.self) { try record.openOverviewList(vaultID: codec.header.vaultID, keys: oldKeys) }
        }
        #expect(FormatReader.outcome(bytes, key: .password(try SecureBytes(copying: VectorCatalog.password))).0 == .wrongPassword)
    }

    /// A rotation checks each overview it has not opened in the decryption that seals it
    /// again (SPEC.md §11.2, §10 step 15): one in the usual shape is checked as it is read,
    /// no list made; any other by the full reading. Either way a row whose lookup tag is not
    /// its name's is malformed, and with the right tag the new row carries the name's tag
    /// under the new key.
    @Test("A rotation refuses a row whose lookup tag is not its name's, for usual and other overviews, and tags the new row under the new key",
          arguments: [false, true])
    func rotationChecksLookupTags(_ usual: Bool) throws {
        let C = VectorCatalogV2.self
        // Not the usual shape: a comment that is not ASCII (the full reading takes it).
        let overview = usual ? C.baseOverview : C.kind + C.service + C.field(9, C.text("caf\u{e9}")) + C.versions
        #expect((overview.withUnsafeBytes { CompactOverview.usualNameKey($0) } != nil) == usual)
        let new = try EpochKeys(epochKey: try SecureBytes.random(count: 32))
        func rotated(tag: UInt64?) throws -> [RecordV2] {
            let codec = try VaultFileV2.parse(try C.withRecord("rotation-tag-\(usual)", overview: overview, secrets: C.emptySecrets, tag: tag))
            let keys = try VaultFileV2.unlock(codec.header, with: try C.passwordKey()).keys
            var records = codec.records
            try EpochRotation.reseal(&records, vaultID: codec.header.vaultID, from: keys, to: new,
                                     nonces: try EntropySource.system.bytes(24 * records.count),
                                     checkingOverviews: Array(repeating: true, count: records.count))
            return records
        }
        let error = #expect(throws: FormatError.self) { _ = try rotated(tag: 0x0102_0304_0506_0708) }
        guard case .malformed = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
        let records = try rotated(tag: nil)
        #expect(records.map(\.lookupTag) == [try LookupTag.tag(kind: .genericPassword, name: C.text("example.com"), keys: new)])
    }

    // MARK: Upgrade (SPEC.md §11.1)

    @Test("Every version-1 success vector upgrades: the same credential opens it through a legacy slot, the same items, tombstones emptied")
    func upgradeVectors() throws {
        let vectors = try VectorFile.loadAll().filter { $0.expect == .success && !$0.name.hasPrefix("v2-") }
        #expect(vectors.count >= 15)
        for vector in vectors {
            let key = try vector.credential()
            let opened = try FormatReader.open(vector.bytes, key: key)
            let codec: VaultFile = opened.codec, keys: VaultKeys = opened.keys
            let epoch = try EpochKeys(epochKey: keys.vaultKey)
            let entropy = try formatTestEntropy("upgrade " + vector.name)
            let header = try FormatUpgrade.header(codec.header, epoch: epoch, start: Stamp(replica: 1, time: 1 << 40))
            let records = try codec.records.map { try FormatUpgrade.record($0, vaultID: codec.header.vaultID, from: keys, to: epoch, entropy: entropy) }
            let bytes = try VaultFileV2.encode(header: header, generation: codec.manifest.generation + 1, records: records, keys: epoch).bytes
            let upgraded = try FormatReader.open(bytes, key: key)
            let before = opened.entries, after = upgraded.entries
            #expect(before.count == after.count, "\(vector.name)")
            for (a, b) in zip(before, after) {
                if a.deleted == true {
                    #expect(b == VectorEntry.tombstone(id: ItemID(hex: a.id)!, revision: a.revision, created: a.created, modified: a.modified), "\(vector.name)")
                } else {
                    #expect(a == b, "\(vector.name): \(a.id)")
                }
            }
            #expect(upgraded.codecV2?.header.slots.allSatisfy { $0.isLegacy || !$0.isNewStyle } ?? false)
        }
    }

    // MARK: Cached unlock payload v2 (SPEC.md §13.1)

    @Test("Cached unlock v2: one seed, or two for a password and key-file slot; format-1 payloads still read")
    func cachedUnlockV2() throws {
        let identity = [UInt8](repeating: 0xAB, count: 16)
        let seed1 = try SecureBytes(copying: Array(0..<32).map(UInt8.init)), seed2 = try SecureBytes(copying: Array(32..<64).map(UInt8.init))
        let two = SlotKey(slotIdentity: identity, seeds: KeySlotV2.Seeds(type: 0x12, seeds: [seed1, seed2]))
        let unlock = CachedUnlock(vaultID: "00112233445566778899aabbccddeeff", path: "/v", expires: Date(millisecondsSince1970: 5), slotKey: two)
        let encoded = try unlock.encoded().testBytes
        var expected = Array("coffer.unlock.v2".utf8) + Hex.decode("00112233445566778899aabbccddeeff") + [0x12] + identity
        expected += withUnsafeBytes(of: UInt64(5).littleEndian, Array.init) + Array(0..<64).map(UInt8.init) + [2, 0] + Array("/v".utf8)
        #expect(encoded == expected)
        let decoded = try CachedUnlock(decoding: try SecureBytes(copying: encoded))
        #expect(decoded.slotKind == .passwordAndKeyFile && decoded.slotKey.secrets == [seed1, seed2])
        // A format-2 payload naming a legacy type, or the wrong number of seeds: malformed.
        var legacyType = encoded; legacyType[32] = 1
        var oneSeedOnly = encoded; oneSeedOnly.removeSubrange(89..<121)
        for bad in [legacyType, oneSeedOnly] {
            #expect(throws: CofferError.malformed) { try CachedUnlock(decoding: try SecureBytes(copying: bad)) }
        }
    }
}

extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard !subsequence.isEmpty, subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { self[$0..<($0 + subsequence.count)].elementsEqual(subsequence) }
    }
}

import Foundation
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

// The format-2 vectors of SPEC.md §15.3 (`v2-*.vec`): one success vector per feature and one
// failure vector per reader rule, each built so that a reader without that rule gives
// another outcome. Written with the format-1 vectors by `VectorGenerator`.

enum VectorCatalogV2 {
    typealias C = VectorCatalog
    static let password = C.password
    static let keyFile = C.keyFile
    static let rawKey = C.rawKey
    static let kdf = C.tinyKDF
    static let start = FormatVaultBuilderV2.stamp(C.t0)
    static let replica = FormatVaultBuilderV2.replica

    static func entropy(_ name: String) throws -> EntropySource { try C.entropy("v2 " + name) }
    static func material() throws -> KeyFile { KeyFile(material: try C.material(keyFile)) }
    static func passwordKey(_ text: String = password) throws -> VaultCredential { .password(try SecureBytes(copying: text)) }
    static func rawKeyCredential() throws -> VaultCredential { .rawKey(try SecureBytes(copying: rawKey)) }
    static func both(_ text: String = password) throws -> VaultCredential { .passwordAndKeyFile(try SecureBytes(copying: text), try material()) }

    // MARK: Bytes of compact lists (SPEC.md §7.1)

    static func varint(_ v: UInt64) -> [UInt8] { var w = ByteWriter(); w.varint(v); return w.bytes }
    /// A field of a format-2 list: varint tag, varint length, value.
    static func field(_ tag: UInt16, _ value: [UInt8]) -> [UInt8] { varint(UInt64(tag)) + varint(UInt64(value.count)) + value }
    static func u64(_ v: UInt64) -> [UInt8] { C.u64(v) }
    static func i64(_ v: Int64) -> [UInt8] { C.i64(v) }
    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The mask bit of a register family (SPEC.md §17.3).
    static func bit(_ r: Register) -> UInt64 { 1 << UInt64(Register.all.firstIndex(of: r) ?? 0) }
    static let unkeyedMask = ItemClockCodec.unkeyedMask
    /// A stamp against a version vector: index, then how far below its entry.
    static func stamp(_ index: Int, back: UInt64 = 0) -> [UInt8] { varint(UInt64(index)) + varint(back) }

    static let time = UInt64(C.t0) << 16
    static let kind = field(1, [1]), service = field(3, text("example.com"))
    static let versions = field(0x8010, u64(replica) + u64(time))
    /// A valid overview: a generic password, one replica, dates and stamps implied.
    static let baseOverview = kind + service + versions
    static let emptySecrets: [UInt8] = []

    // MARK: Building

    static func build() throws -> [VectorFile] {
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], password: String? = nil, keyFile: [UInt8]? = nil,
                 rawKey: [UInt8]? = nil, _ comment: String, success builder: FormatVaultBuilderV2? = nil) {
            out.append(VectorFile(name: "v2-" + name + ".vec", expect: expect, password: password, keyFile: keyFile, rawKey: rawKey,
                                  generation: builder?.generation, comment: comment, entries: builder?.expectedEntries, bytes: bytes))
        }
        let pw = password

        // ---- success: each slot type, each feature ----
        let empty = try FormatVaultBuilderV2(entropy: entropy("empty"), slots: [(try passwordKey(), kdf)], start: start)
        add("success-empty", .success, try empty.bytes(), password: pw, "an empty vault: one password slot (type 0x11), no entries, generation 1", success: empty)

        let items = try itemsVault()
        let itemsBytes = try items.bytes()
        add("success-items", .success, itemsBytes, password: pw,
            "three items of all three kinds with tags, urls, custom and secret fields, history and an attachment; dates and stamps implied where they can be",
            success: items)

        let keyFileVault = try FormatVaultBuilderV2(entropy: entropy("key-file"), slots: [(.keyFile(try material()), kdf)], start: start)
        let (wa, ws) = try C.wifi()
        try keyFileVault.put(try keyFileVault.newID(), revision: 1, wa, ws)
        let keyFileBytes = try keyFileVault.bytes()
        add("success-key-file", .success, keyFileBytes, keyFile: keyFile, "a key-file slot (type 0x13): Argon2id over the key file's digest", success: keyFileVault)

        let rawKeyVault = try FormatVaultBuilderV2(entropy: entropy("raw-key"), slots: [(try rawKeyCredential(), kdf)], start: start)
        let (sa, ss) = try C.small()
        try rawKeyVault.put(try rawKeyVault.newID(), revision: 1, sa, ss)
        let rawKeyBytes = try rawKeyVault.bytes()
        add("success-raw-key", .success, rawKeyBytes, rawKey: rawKey,
            "a raw-key slot (type 0x14) and one small item; the worked example of SPEC.md section 16", success: rawKeyVault)

        let combined = try FormatVaultBuilderV2(entropy: entropy("password-and-key-file"), slots: [(try both(), kdf)], start: start)
        let (ma, ms) = try C.mail()
        try combined.put(try combined.newID(), revision: 1, ma, ms)
        let combinedBytes = try combined.bytes()
        add("success-password-and-key-file", .success, combinedBytes, password: pw, keyFile: keyFile,
            "a password and key-file slot (type 0x12): two factors, plain Argon2id with one lane and a keyed BLAKE2b, no Argon2 secret input",
            success: combined)

        let multi = try FormatVaultBuilderV2(entropy: entropy("multiple-slots"),
                                             slots: [(try rawKeyCredential(), kdf), (.keyFile(try material()), kdf), (try both(), kdf),
                                                     (try passwordKey(), C.smallKDF)], start: start)
        let (ga, gs) = try C.github()
        try multi.put(try multi.newID(), revision: 4, ga, gs)
        try multi.put(try multi.newID(), revision: 1, wa, ws)
        multi.generation = 9
        let multiBytes = try multi.bytes()
        add("success-multiple-slots-password", .success, multiBytes, password: pw,
            "slots raw key, key file, password and key file, password (64 KiB, 2 iterations); opened by the password", success: multi)
        add("success-multiple-slots-key-file", .success, multiBytes, keyFile: keyFile, "the same file, opened by the key file", success: multi)
        add("success-multiple-slots-raw-key", .success, multiBytes, rawKey: rawKey, "the same file, opened by the raw key", success: multi)
        add("success-multiple-slots-password-and-key-file", .success, multiBytes, password: pw, keyFile: keyFile,
            "the same file, opened by the password and the key file together", success: multi)

        let legacy = try legacySlotVault()
        add("success-legacy-slot", .success, try legacy.bytes(), password: pw,
            "a legacy password slot (type 1, format 1's wrap, no stanza) wrapping the epoch key, as an upgrade leaves it, and a raw-key slot; opened by the password",
            success: legacy)
        add("success-legacy-slot-raw-key", .success, try legacy.bytes(), rawKey: rawKey,
            "the same file, opened by its new-style raw-key slot", success: legacy)

        let (before, rotated, rotatedTwice) = try rotationVaults()
        add("success-before-rotation", .success, before.bytes, password: "old password",
            "a vault in its first epoch, password slot for \"old password\"", success: before.builder)
        add("success-rotated", .success, rotated.bytes, password: "new password",
            "the same vault after a password change with rotation: a new epoch key, the old password slot removed, a key history of one epoch, every record sealed again, an item added",
            success: rotated.builder)
        add("wrong-password-after-rotation", .wrongPassword, rotated.bytes, password: "old password",
            "success-rotated with the password removed by the rotation")
        add("success-rotated-twice", .success, rotatedTwice.bytes, password: "new password",
            "success-rotated rotated again (rekey): a key history of two epochs, newest first", success: rotatedTwice.builder)

        let tombstones = try tombstoneVault()
        add("success-tombstone", .success, try tombstones.bytes(), password: pw,
            "a live item and the tombstone of a deleted one: its dates and clock only, no attributes, no secret part, lookup tag 0",
            success: tombstones)

        let names = try lookupVault()
        add("success-lookup-names", .success, try names.bytes(), password: pw,
            "lookup tags of upper-case, lower-case, absent and non-ASCII names of all three kinds (checked against each decrypted name)",
            success: names)

        let edges = try padmeVault()
        add("success-padme-edges", .success, try edges.bytes(), password: pw,
            "secret lists of 0, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 1023 and 1024 bytes: each side of the PADMÉ steps", success: edges)

        let forward = try forwardCompatibleVault()
        add("success-forward-compatible", .success, try forward.bytes(), password: pw,
            "unknown slot types 0x7f and 0x17 (kept, never tried), a non-critical extension 0x0042, unknown overview tags 0x0010 and 0x0100 (twice) and an unknown secret tag 0x0006",
            success: forward)

        let expiry = try expiryVault()
        add("success-expiry", .success, try expiry.bytes(), password: pw,
            "an item with an expiry date (overview tag 17, 2030-05-06T07:08:09.000Z) between unknown overview tags 0x0010 and 0x0012, all in register 0x7F, and an item without one",
            success: expiry)

        let unicodePassword = "pässwörd 🔑 ключ"
        let unicode = try FormatVaultBuilderV2(entropy: entropy("unicode"), slots: [(try passwordKey(unicodePassword), kdf)], start: start)
        try unicode.put(try unicode.newID(), revision: 1,
                        ItemAttributes(kind: .secureNote, label: "Café ☕ 日本", tags: ["naïve", "😀"],
                                       fields: [CustomField(name: "Straße", value: "Ελληνικά")],
                                       created: vectorDate(C.t1), modified: vectorDate(C.t2)),
                        ItemSecrets(notes: try C.s("combining: e\u{301} vs é"), fields: [SecretField(name: "ключ", value: try C.s("значение"))]))
        add("success-unicode", .success, try unicode.bytes(), password: unicodePassword,
            "a UTF-8 password and non-ASCII attributes", success: unicode)

        let binary = try FormatVaultBuilderV2(entropy: entropy("binary-secrets"), slots: [(try passwordKey(), kdf)], start: start)
        try binary.put(try binary.newID(), revision: 1,
                       ItemAttributes(kind: .genericPassword, service: "binary.example", account: "me",
                                      created: vectorDate(C.t0), modified: vectorDate(C.t1)),
                       ItemSecrets(password: try SecureBytes(copying: [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80]),
                                   notes: try SecureBytes(copying: [0xC0, 0xAF]),
                                   fields: [SecretField(name: "seed", value: try SecureBytes(copying: Array(0x00...0x1F)))]))
        add("success-binary-secrets", .success, try binary.bytes(), password: pw, "secret values that are not UTF-8", success: binary)

        let clock = try clockVault()
        add("success-merge-fields", .success, try clock.bytes(), password: pw,
            "an item with every merge field: three replicas, explicit stamps, siblings with their conflict fields, a confirmation, an erased sibling, a deletion that does not cover the item, and a history confirmation",
            success: clock)

        let many = try manyReplicasVault()
        add("success-many-replicas", .success, try many.bytes(), password: pw,
            "an item whose version vector has 300 replicas (format 1's limit was 255)", success: many)

        let extended = try FormatVaultBuilderV2(entropy: entropy("extensions"), slots: [(try passwordKey(), kdf)], start: start)
        extended.header.extensions = [HeaderExtension(type: 0x0042, value: [UInt8](repeating: 0x55, count: FormatV2.maxExtensionLength))]
        extended.header.clock = VersionVector([replica: time, 7: 9])
        extended.header.removedSlots = [RemovedKeySlot(identity: [UInt8](repeating: 9, count: 16), time: 3)]
        add("success-extensions", .success, try extended.bytes(), password: pw,
            "a non-critical extension of exactly 262144 bytes (the bound), a vault clock and a removed slot", success: extended)

        // ---- wrong credentials ----
        add("wrong-password", .wrongPassword, itemsBytes, password: pw + "!", "v2-success-items with another password")
        add("wrong-password-no-password-slot", .wrongPassword, rawKeyBytes, password: pw, "a vault with only a raw-key slot, offered a password")
        var otherKeyFile = keyFile
        otherKeyFile[63] ^= 0x01
        add("wrong-key-file", .wrongKey, keyFileBytes, keyFile: otherKeyFile, "v2-success-key-file with a key file differing in its last bit")
        var otherRawKey = rawKey
        otherRawKey[0] ^= 0x80
        add("wrong-raw-key", .wrongKey, rawKeyBytes, rawKey: otherRawKey, "v2-success-raw-key with a raw key differing in one bit")
        add("wrong-raw-key-length", .wrongKey, rawKeyBytes, rawKey: Array(rawKey.prefix(31)), "v2-success-raw-key offered a raw key of 31 bytes")
        add("wrong-key-password-and-key-file-wrong-file", .wrongKey, combinedBytes, password: pw, keyFile: otherKeyFile,
            "v2-success-password-and-key-file with the right password and a wrong key file")
        add("wrong-key-password-and-key-file-wrong-password", .wrongKey, combinedBytes, password: pw + "!", keyFile: keyFile,
            "v2-success-password-and-key-file with a wrong password and the right key file")
        add("wrong-password-password-and-key-file-without-file", .wrongPassword, combinedBytes, password: pw,
            "v2-success-password-and-key-file offered its password alone: no slot of that kind")

        out += try headerVectors(items: items, itemsBytes: itemsBytes)
        out += try manifestVectors(items: items, itemsBytes: itemsBytes)
        out += try listVectors()
        out += try recipientVectors()
        return out
    }

    // MARK: Base vaults

    static func itemsVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("items"), slots: [(try passwordKey(), kdf)], start: start)
        let (ga, gs) = try C.github(), (ma, ms) = try C.mail(), (wa, ws) = try C.wifi()
        try b.put(try b.newID(), revision: 3, ga, gs)
        try b.put(try b.newID(), revision: 1, ma, ms)
        try b.put(try b.newID(), revision: 2, wa, ws)
        b.generation = 5
        return b
    }

    static func legacySlotVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("legacy-slot"), slots: [], start: start)
        let legacy = try KeySlotRecord.make(for: try passwordKey(), vaultKey: b.keys.epochKey, vaultID: b.vaultID, kdf: kdf, entropy: b.entropy)
        b.header.slots.append(try KeySlotV2(type: 1, publicPart: legacy.body, stanza: [], index: 0))
        try b.addSlot(try rawKeyCredential(), kdf)
        let (sa, ss) = try C.small()
        try b.put(try b.newID(), revision: 1, sa, ss)
        return b
    }

    typealias Built = (builder: FormatVaultBuilderV2, bytes: [UInt8])

    /// A vault, the same after a password change with rotation, and after a second rotation.
    /// The builder is copied by regenerating: each result is its own deterministic build.
    static func rotationVaults() throws -> (Built, Built, Built) {
        func base() throws -> FormatVaultBuilderV2 {
            let b = try FormatVaultBuilderV2(entropy: entropy("rotation"), slots: [(try passwordKey("old password"), kdf)], start: start)
            let (sa, ss) = try C.small(), (wa, ws) = try C.wifi()
            try b.put(try b.newID(), revision: 1, sa, ss)
            try b.put(try b.newID(), revision: 2, wa, ws)
            return b
        }
        let before = try base()
        let beforeBytes = try before.bytes()
        func rotated() throws -> FormatVaultBuilderV2 {
            let b = try base()
            b.header.removedSlots = b.header.slots.map { RemovedKeySlot(identity: $0.identity, time: UInt64(C.t1) << 16) }
            b.header.slots = []
            try b.addSlot(try passwordKey("new password"), kdf)
            try b.rotate(at: FormatVaultBuilderV2.stamp(C.t1))
            let (ma, ms) = try C.mail()
            try b.put(try b.newID(), revision: 1, ma, ms)
            b.generation = 3
            return b
        }
        let once = try rotated()
        let onceBytes = try once.bytes()
        let twice = try rotated()
        try twice.rotate(at: FormatVaultBuilderV2.stamp(C.t2, replica: 0x42))
        twice.generation = 4
        return ((before, beforeBytes), (once, onceBytes), (twice, try twice.bytes()))
    }

    static func tombstoneVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("tombstone"), slots: [(try passwordKey(), kdf)], start: start)
        let (sa, ss) = try C.small()
        try b.put(try b.newID(), revision: 1, sa, ss)
        // Added at t0 by this replica, deleted at t1 by another that had seen it.
        let added = FormatVaultBuilderV2.stamp(C.t0), deletion = FormatVaultBuilderV2.stamp(C.t1, replica: 0x77)
        var stamps: [Register: Stamp] = [:]
        for register in Register.all where !register.isKeyed { stamps[register] = added }
        let versions = VersionVector([added.replica: added.time, deletion.replica: deletion.time])
        try b.tombstone(try b.newID(), revision: 2, created: C.t0,
                        clock: ItemClock(versions: versions, stamps: stamps, deleted: versions))
        b.generation = 2
        return b
    }

    static func lookupVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("lookup"), slots: [(try passwordKey(), kdf)], start: start)
        let date = vectorDate(C.t0)
        let items: [ItemAttributes] = [
            ItemAttributes(kind: .genericPassword, service: "GitHub.COM", account: "octocat", created: date, modified: date),
            ItemAttributes(kind: .genericPassword, service: "github.com", account: "other", created: date, modified: date),
            ItemAttributes(kind: .genericPassword, label: "no service", account: "me", created: date, modified: date),
            ItemAttributes(kind: .internetPassword, account: "alice", server: "Mail.Example.com", protocol: "imaps", port: 993,
                           created: date, modified: date),
            ItemAttributes(kind: .secureNote, label: "Café", created: date, modified: date),
            ItemAttributes(kind: .secureNote, label: "Wi-Fi", created: date, modified: date),
        ]
        for a in items { try b.put(try b.newID(), revision: 1, a, ItemSecrets(notes: try C.s("n"))) }
        return b
    }

    static func padmeVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("padme"), slots: [(try passwordKey(), kdf)], start: start)
        let date = vectorDate(C.t0)
        for (i, n) in [0, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 1023, 1024].enumerated() {
            // A secret list of exactly n bytes: notes only (tag 2, its length, the text).
            var secrets = ItemSecrets()
            if n > 0 {
                var length = n - 2
                while 1 + ByteWriter.varintLength(UInt64(length)) + length > n { length -= 1 }
                secrets.notes = try SecureBytes(copying: [UInt8](repeating: UInt8(ascii: "a") + UInt8(i), count: length))
            }
            try b.put(try b.newID(), revision: 1, ItemAttributes(kind: .secureNote, label: "list \(n)", created: date, modified: date), secrets)
        }
        return b
    }

    static func forwardCompatibleVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("forward-compatible"), slots: [(try passwordKey(), kdf)], start: start)
        b.header.slots.append(try KeySlotV2(type: 0x7F, publicPart: text("a future slot's public part"), stanza: text("its stanza"), index: 1))
        b.header.slots.append(try KeySlotV2(type: 0x17, publicPart: text("another future slot"), stanza: [1, 2, 3], index: 2))
        b.header.extensions = [HeaderExtension(type: 0x0042, value: text("a non-critical extension"))]
        var (a, secrets) = try C.github()
        a.preservedFields = [PreservedField(tag: 0x0010, value: [0x01, 0x02, 0x03]),
                             PreservedField(tag: 0x0100, value: text("first")),
                             PreservedField(tag: 0x0100, value: text("second"))]
        secrets.preservedFields = [PreservedSecretField(tag: 0x0006, value: try C.s("future secret"))]
        try b.put(try b.newID(), revision: 1, a, secrets)
        b.generation = 2
        return b
    }

    /// Overview tag 17 (SPEC.md §7.2): a date, placed in tag order among the unknown fields of
    /// register 0x7F that a format-2 reader before it keeps (SPEC.md §17.2).
    static func expiryVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("expiry"), slots: [(try passwordKey(), kdf)], start: start)
        var (a, secrets) = try C.github()
        a.expires = vectorDate(1_904_281_689_000)   // 2030-05-06T07:08:09.000Z
        a.preservedFields = [PreservedField(tag: 0x0010, value: [0x01]), PreservedField(tag: 0x0012, value: text("after"))]
        try b.put(try b.newID(), revision: 1, a, secrets)
        try b.put(try b.newID(), revision: 1,
                  ItemAttributes(kind: .secureNote, label: "Wi-Fi", created: vectorDate(C.t0), modified: vectorDate(C.t1)),
                  ItemSecrets(notes: try C.s("never expires")))
        return b
    }

    /// One item whose clock uses every merge field (SPEC.md §17.3), written by three replicas.
    static func clockVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("merge-fields"), slots: [(try passwordKey(), kdf)], start: start)
        let r1: UInt64 = 0x11, r2: UInt64 = 0x22, r3: UInt64 = 0x33
        let t = UInt64(C.t0) << 16
        let created = Stamp(replica: r1, time: t), label = Stamp(replica: r2, time: t + 5), lostLabel = Stamp(replica: r3, time: t + 3)
        let erasedLabel = Stamp(replica: r1, time: t + 1), password = Stamp(replica: r3, time: t + 9), lostPassword = Stamp(replica: r2, time: t + 4)
        var attributes = ItemAttributes(kind: .genericPassword, label: "Bank", service: "bank.example", account: "alice",
                                        fields: [CustomField(name: "branch", value: "north")],
                                        created: vectorDate(C.t0), modified: vectorDate(C.t0))
        attributes.modified = vectorDate(Int64((t + 9) >> 16))
        let history = PasswordHistoryEntry(password: try C.s("older"), replaced: vectorDate(C.t0))
        let secrets = ItemSecrets(password: try C.s("current"), passwordHistory: [history])
        let versions = VersionVector([r1: t + 2, r2: t + 6, r3: t + 9])
        var stamps: [Register: Stamp] = [:]
        for register in Register.all where !register.isKeyed { stamps[register] = created }
        stamps[.label] = label
        stamps[.password] = password
        let overviewList = EntryCodec.encodeOverview(attributes).publicBytes
        guard let field = try ItemParts.registers(ofOverview: overviewList).first(where: { $0.isKeyed }) else {
            throw VectorFileError(description: "no named field")
        }
        stamps[field] = Stamp(replica: r2, time: t + 6)
        let clock = ItemClock(versions: versions, stamps: stamps,
                              siblings: [.label: [lostLabel, erasedLabel], .password: [lostPassword]],
                              deleted: VersionVector([r1: t + 2]),
                              confirmations: [ValueID(register: .label, stamp: lostLabel): VersionVector([r3: t + 3])],
                              erased: [ValueID(register: .label, stamp: erasedLabel)])
        let overview = overviewList + (try ItemClockCodec.encode(clock, present: [.label], style: .version2))
        var secretList = EntryCodec.encodeSecrets(secrets)
        var lost = FieldList()
        lost.field(2, string: "Bank (old)")
        let lostOverview = try lost.secureBytes()
        secretList.append(try ItemClockCodec.encodeConflict(ItemParts.Conflict(
            register: .label, stamp: lostLabel, value: SecretFragment(source: lostOverview, range: 0..<lostOverview.count))))
        var lostSecret = FieldList()
        lostSecret.field(1, secret: try C.s("rival"))
        let lostSecretBytes = try lostSecret.secureBytes()
        secretList.append(try ItemClockCodec.encodeConflict(ItemParts.Conflict(
            register: .password, stamp: lostPassword, value: SecretFragment(source: lostSecretBytes, range: 0..<lostSecretBytes.count))))
        secretList.append(ItemClockCodec.encodeHistoryConfirmations([0: VersionVector([r2: t + 6])]))
        let id = try b.newID()
        try b.insert(id: id, revision: 7, overview: overview, secrets: secretList)
        b.expect(id, VectorEntry(id: id, revision: 7, attributes: attributes, secrets: secrets))
        return b
    }

    static func manyReplicasVault() throws -> FormatVaultBuilderV2 {
        let b = try FormatVaultBuilderV2(entropy: entropy("many-replicas"), slots: [(try passwordKey(), kdf)], start: start)
        let (sa, ss) = try C.small()
        var times: [UInt64: UInt64] = [:]
        for r in 1...300 { times[UInt64(r)] = time - UInt64(300 - r) }
        let last = Stamp(replica: 300, time: time)
        var clock = try FormatVaultBuilderV2.clock(last, sa, ss)
        clock.versions = VersionVector(times)
        try b.put(try b.newID(), revision: 1, sa, ss, clock: clock)
        return b
    }
}

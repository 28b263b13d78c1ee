import Foundation
import Testing
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

// Writes Tests/Vectors/*.vec (SPEC.md §15). Run with:
//   COFFER_WRITE_VECTORS=1 swift test --filter FormatVectorGeneratorTests
// Salts, nonces, keys and ids come from CofferTestSupport's `SeededRandom(label).entropy`
// (the stream SPEC.md §15.2 describes), which exists only in debug builds; dates and
// revisions are fixed. Regenerating therefore
// gives identical bytes. `COFFER_WORKED_EXAMPLE=/tmp/example.md` writes the two blocks
// of SPEC.md §16 instead.

#if DEBUG
@Suite("Format: vector generator")
struct FormatVectorGeneratorTests {
    @Test("Writes Tests/Vectors/*.vec (only with COFFER_WRITE_VECTORS=1)",
          .enabled(if: ProcessInfo.processInfo.environment["COFFER_WRITE_VECTORS"] == "1"))
    func writeVectors() throws {
        let vectors = try VectorCatalog.build()
        // The same inputs must give the same bytes.
        let again = try VectorCatalog.build()
        #expect(try vectors.map { try $0.serialized() } == again.map { try $0.serialized() })
        #expect(Set(vectors.map(\.name)).count == vectors.count, "vector names are unique")

        let directory = VectorPaths.directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let names = Set(vectors.map(\.name))
        for stale in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where stale.hasSuffix(".vec") && !names.contains(stale) {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(stale))
        }
        for vector in vectors {
            try Data(try vector.serialized()).write(to: directory.appendingPathComponent(vector.name))
        }
        try Data(try VectorIndex.encode(vectors)).write(to: directory.appendingPathComponent(VectorIndex.fileName))
        print("wrote \(vectors.count) vectors to \(directory.path)")
    }

    /// A writer's change that moves bytes of a vector (a clock read more often, a field left
    /// out) shows here, not at the next regeneration, when nobody knows which change it was.
    @Test("Tests/Vectors holds, byte for byte, what the generator writes (not while it writes them)",
          .enabled(if: ProcessInfo.processInfo.environment["COFFER_WRITE_VECTORS"] != "1"))
    func committedVectorsAreCurrent() throws {
        let vectors = try VectorCatalog.build()
        let directory = VectorPaths.directory
        for vector in vectors {
            let file = try Data(contentsOf: directory.appendingPathComponent(vector.name))
            #expect(Array(file) == (try vector.serialized()), "\(vector.name) differs: COFFER_WRITE_VECTORS=1 swift test --filter FormatVectorGeneratorTests")
        }
        let index = try Data(contentsOf: directory.appendingPathComponent(VectorIndex.fileName))
        #expect(Array(index) == (try VectorIndex.encode(vectors)), "\(VectorIndex.fileName) differs")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".vec") }
        #expect(Set(files) == Set(vectors.map(\.name)), "a .vec file the generator does not write, or one it writes missing")
    }

    @Test("Writes the worked example of SPEC.md §16 to the file COFFER_WORKED_EXAMPLE names",
          .enabled(if: ProcessInfo.processInfo.environment["COFFER_WORKED_EXAMPLE"] != nil))
    func writeWorkedExample() throws {
        let path = try #require(ProcessInfo.processInfo.environment["COFFER_WORKED_EXAMPLE"])
        let vectors = try VectorCatalog.build()
        let vector = try #require(vectors.first { $0.name == WorkedExample.vectorName })
        let v2 = try #require(vectors.first { $0.name == WorkedExampleV2.vectorName })
        try Data((try WorkedExample.render(vector) + "\n" + (try WorkedExampleV2.render(v2))).utf8).write(to: URL(fileURLWithPath: path))
    }
}
#endif

// MARK: - The catalogue

enum VectorCatalog {
    static let password = "correct horse battery staple"
    /// Key-file contents: 64 bytes 0x40…0x7f.
    static let keyFile: [UInt8] = Array(0x40...0x7F)
    /// A raw key: 32 bytes 0x00…0x1f.
    static let rawKey: [UInt8] = Array(0x00...0x1F)

    static let tinyKDF = Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1)
    static let smallKDF = Argon2idParameters(memoryKiB: 64, iterations: 2, lanes: 1)
    static let twoLaneKDF = Argon2idParameters(memoryKiB: 16, iterations: 1, lanes: 2)

    // Fixed dates (ms since 1970).
    static let t0: Int64 = 1_704_164_645_678   // 2024-01-02T03:04:05.678Z
    static let t1: Int64 = 1_717_243_200_000   // 2024-06-01T12:00:00.000Z
    static let t2: Int64 = 1_735_689_599_999   // 2024-12-31T23:59:59.999Z

    /// Offsets inside the header body of a vault whose first slot uses Argon2id.
    enum HeaderOffset {
        static let slotCount = 16
        static let slot0Length = 18
        static let slot0Body = 20
        static let kdfID = 20, memory = 21, iterations = 25, lanes = 29
    }

    static func entropy(_ name: String) throws -> EntropySource {
        #if DEBUG
        return SeededRandom("coffer vector: \(name)").entropy
        #else
        throw VectorFileError(description: "vectors are generated in debug builds only")
        #endif
    }

    static func s(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }
    static func passwordKey(_ text: String = password) throws -> VaultCredential { .password(try s(text)) }
    static func material(_ contents: [UInt8]) throws -> SecureBytes {
        try contents.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try KeyFile.material(contents: raw) } }
    }

    // MARK: Items

    static func github() throws -> (ItemAttributes, ItemSecrets) {
        let a = ItemAttributes(
            kind: .genericPassword, label: "GitHub", service: "github.com", account: "octocat", comment: "work account",
            urls: ["https://github.com/login", "https://github.com"], tags: ["code", "work"], isFavorite: true,
            fields: [CustomField(name: "plan", value: "pro"), CustomField(name: "2FA", value: "authenticator app")],
            created: vectorDate(t0), modified: vectorDate(t2))
        let secrets = ItemSecrets(
            password: try s("hunter2"), notes: try s("recovery codes are in the safe"),
            fields: [SecretField(name: "otp seed", value: try s("JBSWY3DPEHPK3PXP")), SecretField(name: "PIN", value: try s("1234"))],
            passwordHistory: [PasswordHistoryEntry(password: try s("hunter1"), replaced: vectorDate(t2)),
                              PasswordHistoryEntry(password: try s("hunter0"), replaced: vectorDate(t1))])
        return (a, secrets)
    }

    static func mail() throws -> (ItemAttributes, ItemSecrets) {
        let a = ItemAttributes(
            kind: .internetPassword, label: "Mail", account: "alice@example.com", server: "mail.example.com",
            protocol: "imaps", port: 993, path: "/", tags: ["mail"], created: vectorDate(t1), modified: vectorDate(t1))
        let secrets = ItemSecrets(
            password: try s("p@ss w0rd ünïcødé"),
            attachments: [Attachment(name: "backup-codes.txt", data: try s("1111-2222\n3333-4444\n"))])
        return (a, secrets)
    }

    static func wifi() throws -> (ItemAttributes, ItemSecrets) {
        let a = ItemAttributes(kind: .secureNote, label: "Wi-Fi", tags: ["home"], created: vectorDate(t0), modified: vectorDate(t1))
        return (a, ItemSecrets(notes: try s("SSID: coffer\nWPA2: sw0rdfish")))
    }

    static func small() throws -> (ItemAttributes, ItemSecrets) {
        let a = ItemAttributes(kind: .genericPassword, service: "example.com", account: "me",
                               created: vectorDate(t0), modified: vectorDate(t0))
        return (a, ItemSecrets(password: try s("pw")))
    }

    // MARK: Base vaults

    /// Three items of all three kinds, revisions 3, 1 and 2, generation 5.
    static func itemsVault() throws -> FormatVaultBuilder {
        let b = try FormatVaultBuilder(entropy: entropy("items"), slots: [(try passwordKey(), tinyKDF)])
        let (ga, gs) = try github(), (ma, ms) = try mail(), (wa, ws) = try wifi()
        try b.put(try b.newID(), revision: 3, ga, gs)
        try b.put(try b.newID(), revision: 1, ma, ms)
        try b.put(try b.newID(), revision: 2, wa, ws)
        b.generation = 5
        return b
    }

    // MARK: Building

    static func build() throws -> [VectorFile] {
        var out: [VectorFile] = []
        func add(_ name: String, _ expect: VectorExpectation, _ bytes: [UInt8], password: String? = nil,
                 keyFile: [UInt8]? = nil, rawKey: [UInt8]? = nil, _ comment: String,
                 success builder: FormatVaultBuilder? = nil) throws {
            out.append(VectorFile(
                name: name + ".vec", expect: expect, password: password, keyFile: keyFile, rawKey: rawKey,
                generation: builder?.generation, comment: comment, entries: builder?.expectedEntries, bytes: bytes))
        }

        // ---- success ----
        let empty = try FormatVaultBuilder(entropy: entropy("empty"), slots: [(try passwordKey(), tinyKDF)])
        try add("success-empty", .success, try empty.bytes(), password: password,
                "an empty vault: one password slot, no entries, generation 1", success: empty)

        let items = try itemsVault()
        let itemsBytes = try items.bytes()
        try add("success-items", .success, itemsBytes, password: password,
                "three items of all three kinds with tags, urls, fields, secret fields, history and an attachment",
                success: items)

        let keyFileVault = try FormatVaultBuilder(entropy: entropy("key-file"), slots: [(.keyFile(KeyFile(material: try material(keyFile))), tinyKDF)])
        let (wa, ws) = try wifi()
        try keyFileVault.put(try keyFileVault.newID(), revision: 1, wa, ws)
        let keyFileBytes = try keyFileVault.bytes()
        try add("success-key-file", .success, keyFileBytes, keyFile: keyFile,
                "a key-file slot: Argon2id over the key file's 32-byte digest", success: keyFileVault)

        let rawKeyVault = try FormatVaultBuilder(entropy: entropy("raw-key"), slots: [(.rawKey(try SecureBytes(copying: rawKey)), tinyKDF)])
        let (sa, ss) = try small()
        try rawKeyVault.put(try rawKeyVault.newID(), revision: 1, sa, ss)
        let rawKeyBytes = try rawKeyVault.bytes()
        try add("success-raw-key", .success, rawKeyBytes, rawKey: rawKey,
                "a raw-key slot and one small item; the worked example of SPEC.md section 16", success: rawKeyVault)

        let combined = try FormatVaultBuilder(
            entropy: entropy("password-and-key-file"),
            slots: [(.passwordAndKeyFile(try s(password), KeyFile(material: try material(keyFile))), twoLaneKDF)])
        let (ma, ms) = try mail()
        try combined.put(try combined.newID(), revision: 1, ma, ms)
        let combinedBytes = try combined.bytes()
        try add("success-password-and-key-file", .success, combinedBytes, password: password, keyFile: keyFile,
                "a password-and-key-file slot with 2 lanes: libargon2 with the key-file digest as the secret input",
                success: combined)

        let multi = try FormatVaultBuilder(
            entropy: entropy("multiple-slots"),
            slots: [(.rawKey(try SecureBytes(copying: rawKey)), tinyKDF), (.keyFile(KeyFile(material: try material(keyFile))), tinyKDF),
                    (try passwordKey(), smallKDF)])
        let (ga, gs) = try github()
        try multi.put(try multi.newID(), revision: 4, ga, gs)
        try multi.put(try multi.newID(), revision: 1, wa, ws)
        multi.generation = 9
        let multiBytes = try multi.bytes()
        try add("success-multiple-slots-password", .success, multiBytes, password: password,
                "slots raw-key, key-file, password (64 KiB, 2 iterations); opened by the password", success: multi)
        try add("success-multiple-slots-key-file", .success, multiBytes, keyFile: keyFile,
                "the same file, opened by the key file", success: multi)
        try add("success-multiple-slots-raw-key", .success, multiBytes, rawKey: rawKey,
                "the same file, opened by the raw key", success: multi)

        let forward = try forwardCompatibleVault()
        let forwardBytes = try forward.bytes()
        try add("success-forward-compatible", .success, forwardBytes, password: password,
                "an unknown slot type 0x7f, a non-critical header extension 0x0042, unknown overview tags 0x0010 and 0x0100 (twice) and an unknown secret tag 0x0006: all kept",
                success: forward)

        let unicodePassword = "pässwörd 🔑 ключ"
        let unicode = try FormatVaultBuilder(entropy: entropy("unicode"), slots: [(try passwordKey(unicodePassword), tinyKDF)])
        try unicode.put(try unicode.newID(), revision: 1,
                        ItemAttributes(kind: .secureNote, label: "Café ☕ 日本", tags: ["naïve", "😀"],
                                       fields: [CustomField(name: "Straße", value: "Ελληνικά")],
                                       created: vectorDate(t1), modified: vectorDate(t2)),
                        ItemSecrets(notes: try s("combining: e\u{301} vs é"), fields: [SecretField(name: "ключ", value: try s("значение"))]))
        try add("success-unicode", .success, try unicode.bytes(), password: unicodePassword,
                "a UTF-8 password (NFC, used byte for byte) and non-ASCII attributes", success: unicode)

        // Secrets need not be text: the vectors' JSON gives such values in hex (SPEC.md §15.1).
        let binary = try FormatVaultBuilder(entropy: entropy("binary-secrets"), slots: [(try passwordKey(), tinyKDF)])
        let notText: [UInt8] = [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x80]
        try binary.put(try binary.newID(), revision: 1,
                       ItemAttributes(kind: .genericPassword, service: "binary.example", account: "me",
                                      created: vectorDate(t0), modified: vectorDate(t1)),
                       ItemSecrets(password: try SecureBytes(copying: notText), notes: try SecureBytes(copying: [0xC0, 0xAF]),
                                   fields: [SecretField(name: "seed", value: try SecureBytes(copying: Array(0x00...0x1F)))],
                                   passwordHistory: [PasswordHistoryEntry(password: try SecureBytes(copying: [0xED, 0xA0, 0x80]),
                                                                          replaced: vectorDate(t1))]))
        try add("success-binary-secrets", .success, try binary.bytes(), password: password,
                "secret values that are not UTF-8 (password, notes, a secret field, a history password): valid, and listed in hex",
                success: binary)

        // Two versions of one vault: the password changed, one entry re-sealed.
        let history = try FormatVaultBuilder(entropy: entropy("history"), slots: [(try passwordKey("old password"), tinyKDF)])
        let bankID = try history.newID(), noteID = try history.newID()
        let bank = ItemAttributes(kind: .genericPassword, label: "Bank", service: "bank.example", account: "alice",
                                  created: vectorDate(t0), modified: vectorDate(t0))
        try history.put(bankID, revision: 1, bank, ItemSecrets(password: try s("first")))
        try history.put(noteID, revision: 1, ItemAttributes(kind: .secureNote, label: "Note", created: vectorDate(t0), modified: vectorDate(t0)),
                        ItemSecrets(notes: try s("unchanged")))
        let v1 = try history.bytes()
        try add("success-history-v1", .success, v1, password: "old password",
                "generation 1 of a vault that success-history-v2 saves again", success: history)
        guard let v1Bank = history.records[bankID] else { throw VectorFileError(description: "no bank record") }
        history.header.slots[0] = try KeySlotRecord.make(for: try passwordKey("new password"), vaultKey: history.keys.vaultKey,
                                                   vaultID: history.vaultID, kdf: tinyKDF, entropy: history.entropy)
        var bank2 = bank
        bank2.label = "Bank (joint)"
        bank2.modified = vectorDate(t1)
        try history.put(bankID, revision: 2, bank2,
                        ItemSecrets(password: try s("second"), passwordHistory: [PasswordHistoryEntry(password: try s("first"), replaced: vectorDate(t1))]))
        history.generation = 2
        let v2 = try history.bytes()
        try add("success-history-v2", .success, v2, password: "new password",
                "generation 2: new password slot, the bank entry re-sealed at revision 2, the note copied verbatim",
                success: history)

        // ---- wrong password or key ----
        try add("wrong-password", .wrongPassword, itemsBytes, password: password + "!",
                "success-items with another password")
        try add("wrong-password-old", .wrongPassword, v2, password: "old password",
                "success-history-v2 with the password its slot had before")
        try add("wrong-password-no-password-slot", .wrongPassword, rawKeyBytes, password: password,
                "a vault with only a raw-key slot, offered a password")
        var otherKeyFile = keyFile
        otherKeyFile[63] ^= 0x01
        try add("wrong-key-file", .wrongKey, keyFileBytes, keyFile: otherKeyFile,
                "success-key-file with a key file differing in its last bit")
        var otherRawKey = rawKey
        otherRawKey[0] ^= 0x80
        try add("wrong-raw-key", .wrongKey, rawKeyBytes, rawKey: otherRawKey,
                "success-raw-key with a raw key differing in one bit")
        try add("wrong-key-file-with-password", .wrongKey, combinedBytes, password: password, keyFile: otherKeyFile,
                "success-password-and-key-file with the right password and a wrong key file")

        // ---- header failure ----
        let itemsRaw = try RawVaultFile(splitting: itemsBytes)
        let itemsHeaderEnd = FormatV1.preambleLength + itemsRaw.headerBody.count
        try add("header-checksum-vault-id", .headerFailure, flip(itemsBytes, at: FormatV1.preambleLength, 0x01), password: password,
                "success-items with the first vault-id byte flipped: the header checksum fails before any KDF runs")
        try add("header-checksum-flipped", .headerFailure, flip(itemsBytes, at: itemsHeaderEnd + 7, 0x80), password: password,
                "success-items with a byte of the header checksum flipped")
        var extended = itemsRaw
        var withExtension = try VaultHeader.parse(bytes: extended.headerBody)
        withExtension.extensions.append(HeaderExtension(type: 0x0042, value: Array("smuggled".utf8)))
        extended.headerBody = withExtension.encodeBody()
        extended.checksum = .compute
        try add("header-mac-extension-added", .headerFailure, try extended.assemble(keys: nil), password: password,
                "success-items with a non-critical extension added and the checksum recomputed: the header MAC fails after unlocking")
        try add("header-mac-flipped", .headerFailure, flip(itemsBytes, at: itemsHeaderEnd + 32 + 5, 0x01), password: password,
                "success-items with a byte of the header MAC flipped")
        var forwardRaw = try RawVaultFile(splitting: forwardBytes)
        var forwardHeader = try VaultHeader.parse(bytes: forwardRaw.headerBody)
        var unknownBody = forwardHeader.slots[1].body
        unknownBody[0] ^= 0x01
        forwardHeader.slots[1] = try KeySlotRecord(type: forwardHeader.slots[1].kind.code, body: unknownBody, index: 1)
        forwardRaw.headerBody = forwardHeader.encodeBody()
        forwardRaw.checksum = .compute
        try add("header-mac-unknown-slot-changed", .headerFailure, try forwardRaw.assemble(keys: nil), password: password,
                "success-forward-compatible with a byte of the unknown slot changed and the checksum recomputed: unknown slots are authenticated too")

        // ---- entry failure ----
        var e = itemsRaw
        var record = RawRecord(e.records[1])
        record.overviewCiphertext[5] ^= 0x01
        e.records[1] = record.bytes
        try add("entry-ciphertext-flipped", .entryFailure, try e.assemble(keys: nil), password: password,
                "success-items with one overview ciphertext byte of the second record flipped: its digest no longer matches the manifest")
        e = itemsRaw
        e.records.swapAt(0, 1)
        try add("entry-records-swapped", .entryFailure, try e.assemble(keys: nil), password: password,
                "success-items with the first two records swapped")
        e = itemsRaw
        e.records.remove(at: 1)
        try add("entry-dropped", .entryFailure, try e.assemble(keys: nil), password: password,
                "success-items with the second record removed; the manifest still lists it")
        e = itemsRaw
        e.records[1] = e.records[0]
        try add("entry-duplicated", .entryFailure, try e.assemble(keys: nil), password: password,
                "success-items with the first record written again in place of the second")
        var replay = try RawVaultFile(splitting: v2)
        guard let bankIndex = replay.records.firstIndex(where: { RawRecord($0).id == bankID.bytes }) else {
            throw VectorFileError(description: "no bank record in v2")
        }
        replay.records[bankIndex] = Array(v1Bank.body)
        try add("entry-replayed-old-revision", .entryFailure, try replay.assemble(keys: nil), password: "new password",
                "success-history-v2 with the bank record replaced by its revision-1 record from success-history-v1")
        try add("entry-transplanted", .entryFailure, try transplanted(sameKey: false), password: password,
                "a record from another vault, listed in a correctly MACed manifest: its AEAD fails")
        try add("entry-transplanted-same-key", .entryFailure, try transplanted(sameKey: true), password: password,
                "a record from a vault with the same vault key but another vault id, in a correctly MACed manifest: only the vault id in the AD catches it")
        let relabel = try FormatVaultBuilder(entropy: entropy("relabel"), slots: [(try passwordKey(), tinyKDF)])
        try relabel.put(try relabel.newID(), revision: 1, sa, ss)
        try relabel.put(try relabel.newID(), revision: 1, wa, ws)
        let relabelBytes = try relabel.bytes()
        try add("entry-revision-relabelled", .entryFailure,
                try remaced(relabelBytes, keys: relabel.keys) { r in r.revision = 2 }, password: password,
                "a record's revision changed from 1 to 2 with a correctly MACed manifest: the revision in the AD catches it")
        try add("entry-id-relabelled", .entryFailure,
                try remaced(relabelBytes, keys: relabel.keys) { r in r.id[15] ^= 0x01 }, password: password,
                "a record's entry id changed in its last bit with a correctly MACed manifest: the entry id in the AD catches it")
        try add("entry-secret-flipped", .entryFailure,
                try remaced(relabelBytes, keys: relabel.keys) { r in r.secretCiphertext[0] ^= 0x01 }, password: password,
                "a secret-part ciphertext byte flipped with a correctly MACed manifest: only opening the secret part catches it")

        // ---- manifest failure ----
        var m = itemsRaw
        m.manifest[0] ^= 0x01
        try add("manifest-generation-changed", .manifestFailure, try m.assemble(keys: nil), password: password,
                "success-items with the generation changed from 5 to 4 and the manifest MAC left as it was")
        m = itemsRaw
        var listed = RawManifest(m.manifest)
        listed.entries[0].digest[0] ^= 0x01
        m.manifest = listed.bytes
        try add("manifest-digest-changed", .manifestFailure, try m.assemble(keys: nil), password: password,
                "success-items with one record digest in the manifest changed, MAC left")
        m = itemsRaw
        listed = RawManifest(m.manifest)
        listed.entries.remove(at: 1)
        m.manifest = listed.bytes
        m.records.remove(at: 1)
        try add("manifest-entry-removed", .manifestFailure, try m.assemble(keys: nil), password: password,
                "success-items with the second entry removed from the manifest and the records, MAC left")
        try add("manifest-mac-flipped", .manifestFailure, flip(itemsBytes, at: itemsHeaderEnd + 64 + 4 + itemsRaw.manifest.count + 31, 0x80),
                password: password, "success-items with the last byte of the manifest MAC flipped")
        var stale = try RawVaultFile(splitting: v2)
        let old = try RawVaultFile(splitting: v1)
        stale.manifest = old.manifest
        stale.manifestMAC = old.manifestMAC
        stale.records = old.records
        try add("manifest-stale-spliced", .manifestFailure, try stale.assemble(keys: nil), password: "new password",
                "the header of success-history-v2 followed by the manifest, manifest MAC and records of success-history-v1: the manifest MAC covers the header")

        // ---- truncated ----
        let recordStarts = recordOffsets(itemsBytes)
        try add("truncated-empty", .truncated, [], password: password, "a file of 0 bytes")
        try add("truncated-in-magic", .truncated, Array(itemsBytes.prefix(4)), password: password, "the first 4 bytes of success-items")
        try add("truncated-in-preamble", .truncated, Array(itemsBytes.prefix(12)), password: password,
                "the first 12 bytes of success-items: the header length is cut")
        try add("truncated-in-key-slot", .truncated, Array(itemsBytes.prefix(FormatV1.preambleLength + 60)), password: password,
                "success-items cut inside the first key slot")
        try add("truncated-in-header-mac", .truncated, Array(itemsBytes.prefix(itemsHeaderEnd + 40)), password: password,
                "success-items cut inside the header MAC")
        try add("truncated-in-manifest", .truncated, Array(itemsBytes.prefix(itemsHeaderEnd + 64 + 4 + 30)), password: password,
                "success-items cut inside the manifest")
        try add("truncated-in-record", .truncated, Array(itemsBytes.prefix(recordStarts[2] + 100)), password: password,
                "success-items cut inside the last record")
        try add("truncated-missing-last-record", .truncated, Array(itemsBytes.prefix(recordStarts[2])), password: password,
                "success-items cut just before the last record: every structure is whole but the manifest lists one more entry")

        // ---- unsupported version ----
        try add("unsupported-version-3", .unsupportedVersion, patched(itemsBytes, at: 8, [3, 0]), password: password,
                "success-items with format version 3")
        try add("header-checksum-version-relabelled", .headerFailure, patched(itemsBytes, at: 8, [2, 0]), password: password,
                "success-items with its version field changed to 2: read as format 2, its header checksum (which covers the version) fails")
        try add("unsupported-version-0", .unsupportedVersion, patched(itemsBytes, at: 8, [0, 0]), password: password,
                "success-items with format version 0")
        try add("unsupported-version-3-short", .unsupportedVersion, FormatV1.magic + [3, 0], password: password,
                "magic and version 3 only: the version is checked before anything else")

        // ---- malformed ----
        try add("malformed-slot-length", .malformed,
                try headerEdited(itemsRaw) { h in
                    h[HeaderOffset.slot0Length] = 100
                    h.remove(at: HeaderOffset.slot0Body + 100)
                }, password: password, "a password slot of 100 bytes instead of 101, checksum recomputed")
        try add("malformed-no-slots", .malformed,
                try headerEdited(itemsRaw) { h in h = Array(h[0..<16]) + [0, 0, 0] }, password: password,
                "a header with 0 key slots, checksum recomputed")
        try add("malformed-unknown-kdf", .malformed,
                try headerEdited(itemsRaw) { h in h[HeaderOffset.kdfID] = 2 }, password: password,
                "a password slot naming KDF 2, checksum recomputed")
        try add("malformed-critical-extension", .malformed,
                try headerEdited(itemsRaw) { h in
                    h.removeLast(2)
                    h += [1, 0, 0x01, 0x80, 2, 0, 0, 0, 0xAB, 0xCD]
                }, password: password, "a header extension of type 0x8001 (critical, unknown), checksum recomputed")
        var longHeader = itemsRaw
        longHeader.headerLength = 65_537
        try add("malformed-header-too-long", .malformed, try longHeader.assemble(keys: nil), password: password,
                "a header length of 65537: refused before anything is read or allocated")
        var order = itemsRaw
        order.records.swapAt(0, 1)
        order.manifest = try RawManifest(generation: 5, records: order.records).bytes
        order.manifestMAC = .compute
        try add("malformed-manifest-order", .malformed, try order.assemble(keys: items.keys), password: password,
                "manifest entry ids not ascending (records in the same order), manifest MAC recomputed")
        var manifestLength = itemsRaw
        manifestLength.manifest.append(0)
        manifestLength.manifestMAC = .compute
        try add("malformed-manifest-length", .malformed, try manifestLength.assemble(keys: items.keys), password: password,
                "a manifest one byte longer than its entries, manifest MAC recomputed")
        try add("malformed-trailing-byte", .malformed, itemsBytes + [0], password: password,
                "success-items with one byte appended")
        var extra = itemsRaw
        extra.records.append(extra.records[0])
        try add("malformed-extra-record", .malformed, try extra.assemble(keys: nil), password: password,
                "success-items with its first record appended again: more records than the manifest lists")
        var cipherLength = try RawVaultFile(splitting: relabelBytes)
        var longer = RawRecord(cipherLength.records[0])
        longer.overviewCiphertext.append(0)
        cipherLength.records[0] = longer.bytes
        cipherLength.manifest = try RawManifest(generation: 1, records: cipherLength.records).bytes
        cipherLength.manifestMAC = .compute
        try add("malformed-ciphertext-length", .malformed, try cipherLength.assemble(keys: relabel.keys), password: password,
                "an overview ciphertext of 81 bytes (not 16 more than a multiple of 64), manifest recomputed")
        for (name, plaintext, comment) in try malformedOverviews() {
            try add(name, .malformed, try withOverview(plaintext, name: name), password: password, comment)
        }
        out += try ruleVectors(items: items, itemsBytes: itemsBytes)

        // ---- KDF parameters out of bounds ----
        let kdfCases: [(String, Int, UInt32, String)] = [
            ("kdf-memory-above-4-gib", HeaderOffset.memory, 4 * 1024 * 1024 + 1, "memory 4194305 KiB (4 GiB + 1 KiB)"),
            ("kdf-memory-below-8-kib", HeaderOffset.memory, 7, "memory 7 KiB"),
            ("kdf-iterations-zero", HeaderOffset.iterations, 0, "iterations 0"),
            ("kdf-iterations-above-64", HeaderOffset.iterations, 65, "iterations 65"),
            ("kdf-lanes-zero", HeaderOffset.lanes, 0, "lanes 0"),
            ("kdf-memory-below-8-kib-per-lane", HeaderOffset.lanes, 2, "memory 8 KiB with 2 lanes"),
        ]
        for (name, offset, value, what) in kdfCases {
            try add(name, .kdfOutOfBounds, try headerEdited(itemsRaw) { h in putU32(&h, at: offset, value) }, password: password,
                    "success-items with \(what) in its password slot, checksum recomputed: refused before any KDF runs")
        }

        // ---- not a Coffer file ----
        try add("not-coffer-crlf", .notACofferFile, Array(FormatV1.magic.prefix(7)) + [0x0D, 0x0A] + Array(itemsBytes.dropFirst(8)),
                password: password, "success-items after a text-mode transfer turned the magic's LF into CR LF")
        try add("not-coffer-7-bit", .notACofferFile, patched(itemsBytes, at: 0, [0x09]), password: password,
                "success-items after a 7-bit transfer cleared the magic's high bit")
        try add("not-coffer-text", .notACofferFile, Array("# not a vault\n".utf8), password: password, "a text file")
        // The version-1 merge vectors were written by the vault before it wrote version 2:
        // they stay as they are (a version-2 vault merges them), read back from the directory.
        #if DEBUG
        out += try VectorFile.loadAll().filter { MergeVectors.versionOneNames.contains($0.name) }
        out += try MergeVectors.build()
        out += try RotationMergeVectors.build()
        out += try MergeRuleVectors.build()
        #endif
        out += try VectorCatalogV2.build()
        return out
    }

    // MARK: Pieces

    static func forwardCompatibleVault() throws -> FormatVaultBuilder {
        let b = try FormatVaultBuilder(entropy: entropy("forward-compatible"), slots: [(try passwordKey(), tinyKDF)])
        b.header.slots.append(try KeySlotRecord(type: 0x7F, body: Array("a slot type from a future Coffer".utf8), index: 1))
        b.header.extensions = [HeaderExtension(type: 0x0042, value: Array("a non-critical extension".utf8))]
        var (a, secrets) = try github()
        a.preservedFields = [PreservedField(tag: 0x0010, value: [0x01, 0x02, 0x03]),
                             PreservedField(tag: 0x0100, value: Array("first".utf8)),
                             PreservedField(tag: 0x0100, value: Array("second".utf8))]
        secrets.preservedFields = [PreservedSecretField(tag: 0x0006, value: try s("future secret"))]
        try b.put(try b.newID(), revision: 1, a, secrets)
        let (wa, ws) = try wifi()
        try b.put(try b.newID(), revision: 1, wa, ws)
        b.generation = 2
        return b
    }

    /// A vault with one item of its own and one record sealed by another vault, with
    /// a manifest MACed by the target (as only a key holder could write it).
    static func transplanted(sameKey: Bool) throws -> [UInt8] {
        let name = sameKey ? "transplant-same-key" : "transplant"
        let target = try FormatVaultBuilder(entropy: entropy(name + " target"), slots: [(try passwordKey(), tinyKDF)])
        let (sa, ss) = try small()
        try target.put(try target.newID(), revision: 1, sa, ss)
        let sourceEntropy = try entropy(name + " source")
        let source = sameKey
            ? try FormatVaultBuilder(sharingKeyOf: target, vaultID: try sourceEntropy.bytes(16), entropy: sourceEntropy,
                                     slots: [(try passwordKey(), tinyKDF)])
            : try FormatVaultBuilder(entropy: sourceEntropy, slots: [(try passwordKey(), tinyKDF)])
        let (wa, ws) = try wifi()
        target.insert(try source.put(try source.newID(), revision: 1, wa, ws))
        return try target.bytes()
    }

    /// Changes the first record, then lists the records in a manifest MACed with `keys`.
    static func remaced(_ bytes: [UInt8], keys: VaultKeys, _ edit: (inout RawRecord) -> Void) throws -> [UInt8] {
        var raw = try RawVaultFile(splitting: bytes)
        var record = RawRecord(raw.records[0])
        edit(&record)
        raw.records[0] = record.bytes
        raw.records.sort { $0.lexicographicallyPrecedes($1) }   // ids lead each body: keeps ids ascending
        raw.manifest = try RawManifest(generation: RawManifest(raw.manifest).generation, records: raw.records).bytes
        raw.manifestMAC = .compute
        return try raw.assemble(keys: keys)
    }

    /// Overview plaintexts that decrypt fine but break SPEC.md §7.
    static func malformedOverviews() throws -> [(String, [UInt8], String)] {
        func field(_ tag: UInt16, _ value: [UInt8]) -> [UInt8] {
            var w = ByteWriter()
            w.u16(tag)
            w.u32(UInt32(value.count))
            w.bytes(value)
            return w.bytes
        }
        func i64(_ v: Int64) -> [UInt8] { var w = ByteWriter(); w.u64(UInt64(bitPattern: v)); return w.bytes }
        let kind = field(1, [1]), service = field(3, Array("example.com".utf8))
        let dates = field(13, i64(t0)) + field(14, i64(t0))
        return [
            ("malformed-overview-critical-tag", try Padding.pad(kind + service + dates + field(0x8000, [1]), blockSize: 64),
             "an overview with the unknown critical tag 0x8000, correctly sealed and MACed"),
            ("malformed-overview-padding", kind + service + dates + [UInt8](repeating: 0, count: 64 - (kind + service + dates).count),
             "an overview padded with zeros and no 0x80 marker, correctly sealed and MACed"),
            ("malformed-overview-not-utf8", try Padding.pad(kind + field(2, [0xC3, 0x28]) + service + dates, blockSize: 64),
             "an overview whose label is not UTF-8, correctly sealed and MACed"),
            ("malformed-overview-order", try Padding.pad(service + kind + dates, blockSize: 64),
             "an overview with tag 3 before tag 1, correctly sealed and MACed"),
            ("malformed-overview-date", try Padding.pad(kind + service + field(13, i64(.max)) + field(14, i64(t0)), blockSize: 64),
             "an overview whose creation date is after the year 9999, correctly sealed and MACed"),
        ]
    }

    /// A password vault whose one record has `overviewPlaintext` (and an empty secret part).
    static func withOverview(_ overviewPlaintext: [UInt8], name: String) throws -> [UInt8] {
        let b = try FormatVaultBuilder(entropy: entropy(name), slots: [(try passwordKey(), tinyKDF)])
        let raw = try RawRecord(id: try b.newID(), revision: 1, overviewPlaintext: overviewPlaintext,
                                secretPlaintext: try Padding.pad([UInt8](), blockSize: 64),
                                vaultID: b.vaultID, keys: b.keys, entropy: b.entropy)
        b.insert(try EntryRecord(body: raw.bytes[...], index: 0))
        return try b.bytes()
    }

    /// The file with its header body edited and the checksum recomputed (the MAC left).
    static func headerEdited(_ raw: RawVaultFile, _ edit: (inout [UInt8]) -> Void) throws -> [UInt8] {
        var raw = raw
        edit(&raw.headerBody)
        raw.checksum = .compute
        return try raw.assemble(keys: nil)
    }

    /// Where each record (its u32 length) starts.
    static func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        var offset = FormatV1.preambleLength + u32(10) + 64
        offset += 4 + u32(offset) + 32
        var starts: [Int] = []
        while offset < bytes.count {
            starts.append(offset)
            offset += 4 + u32(offset)
        }
        return starts
    }

    static func flip(_ bytes: [UInt8], at offset: Int, _ mask: UInt8) -> [UInt8] {
        var out = bytes
        out[offset] ^= mask
        return out
    }

    static func patched(_ bytes: [UInt8], at offset: Int, _ with: [UInt8]) -> [UInt8] {
        var out = bytes
        out.replaceSubrange(offset..<(offset + with.count), with: with)
        return out
    }

    static func putU32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
}

extension VaultHeader {
    /// Parses a header body held in an array (test helper).
    static func parse(bytes: [UInt8]) throws -> VaultHeader {
        try bytes.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try VaultHeader.parse(raw) } }
    }
}

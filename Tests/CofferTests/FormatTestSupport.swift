import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

// Helpers shared by the format tests (FormatVectorTests, FormatTamperTests) and the
// vector generator (VectorGenerator). SPEC.md §15 describes the vector files.

// MARK: - Locations

enum VectorPaths {
    /// `Tests/Vectors`, found from this source file.
    static var directory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // CofferTests
            .deletingLastPathComponent()   // Tests
            .appendingPathComponent("Vectors", isDirectory: true)
    }

    /// The repository root (for SPEC.md).
    static var repositoryRoot: URL {
        directory.deletingLastPathComponent().deletingLastPathComponent()
    }
}

// MARK: - Outcome classes

/// The `expect:` classes of a vector file (SPEC.md §15.1).
enum VectorExpectation: String, CaseIterable, Sendable {
    case success = "success"
    case wrongPassword = "wrong password"
    case wrongKey = "wrong key"
    case headerFailure = "header failure"
    case entryFailure = "entry failure"
    case manifestFailure = "manifest failure"
    case truncated = "truncated"
    case unsupportedVersion = "unsupported version"
    case malformed = "malformed"
    case kdfOutOfBounds = "kdf out of bounds"
    case notACofferFile = "not a coffer file"

    /// The class of a reading error; nil for errors that are not a property of the file.
    init?(error: CofferError) {
        switch error.kind {
        case .wrongPassword: self = .wrongPassword
        case .wrongKeyFile, .wrongRawKey: self = .wrongKey
        case .tampered:
            switch error.tamperedPart {
            case .header?: self = .headerFailure
            case .entry?: self = .entryFailure
            case .manifest?: self = .manifestFailure
            case nil: return nil
            }
        case .truncated: self = .truncated
        case .unsupportedVersion: self = .unsupportedVersion
        case .malformed: self = .malformed
        case .kdfParametersOutOfBounds: self = .kdfOutOfBounds
        case .notACofferFile: self = .notACofferFile
        default: return nil
        }
    }
}

// MARK: - Expected entries (the `entries:` JSON)

/// One entry as the `entries:` line lists it: every overview attribute and every
/// secret value (strings; attachment data and unknown field values in hex).
struct VectorEntry: Codable, Equatable, Sendable {
    struct Pair: Codable, Equatable, Sendable { var name: String; var value: String }
    struct History: Codable, Equatable, Sendable { var password: String; var replaced: Int64 }
    struct Blob: Codable, Equatable, Sendable { var name: String; var data: String }
    struct Unknown: Codable, Equatable, Sendable { var tag: UInt16; var value: String }
    struct Secrets: Codable, Equatable, Sendable {
        var password: String?
        var notes: String?
        var fields: [Pair]
        var history: [History]
        var attachments: [Blob]
        var unknown: [Unknown]?
    }

    var id: String
    var revision: UInt64
    var kind: String
    var label: String?
    var service: String?
    var account: String?
    var server: String?
    var `protocol`: String?
    var port: UInt16?
    var path: String?
    var comment: String?
    var urls: [String]
    var tags: [String]
    var favorite: Bool
    var fields: [Pair]
    /// Milliseconds since 1970-01-01T00:00:00Z.
    var created: Int64
    var modified: Int64
    var unknown: [Unknown]?
    var secrets: Secrets

    init(id: ItemID, revision: UInt64, attributes a: ItemAttributes, secrets s: ItemSecrets) {
        self.id = id.hex
        self.revision = revision
        kind = a.kind.rawValue
        label = a.label
        service = a.service
        account = a.account
        server = a.server
        self.protocol = a.protocol
        port = a.port
        path = a.path
        comment = a.comment
        urls = a.urls
        tags = a.tags
        favorite = a.isFavorite
        fields = a.fields.map { Pair(name: $0.name, value: $0.value) }
        created = a.created.millisecondsSince1970
        modified = a.modified.millisecondsSince1970
        unknown = a.preservedFields.isEmpty ? nil : a.preservedFields.map { Unknown(tag: $0.tag, value: Hex.encode($0.value)) }
        secrets = Secrets(
            password: s.password.map(Self.text),
            notes: s.notes.map(Self.text),
            fields: s.fields.map { Pair(name: $0.name, value: Self.text($0.value)) },
            history: s.passwordHistory.map { History(password: Self.text($0.password), replaced: $0.replaced.millisecondsSince1970) },
            attachments: s.attachments.map { Blob(name: $0.name, data: Hex.encode($0.data.testBytes)) },
            unknown: s.preservedFields.isEmpty ? nil : s.preservedFields.map { Unknown(tag: $0.tag, value: Hex.encode($0.value.testBytes)) })
    }

    /// Secret text; vectors hold UTF-8 secrets only, anything else is shown so a mismatch is visible.
    private static func text(_ bytes: SecureBytes) -> String {
        bytes.unsafeStringCopy() ?? "<not UTF-8: \(Hex.encode(bytes.testBytes))>"
    }

    static func encodeLine(_ entries: [VectorEntry]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    static func decodeLine(_ line: String) throws -> [VectorEntry] {
        try JSONDecoder().decode([VectorEntry].self, from: Data(line.utf8))
    }
}

// MARK: - Vector files

struct VectorFileError: Error, CustomStringConvertible {
    let description: String
}

/// A `.vec` file: `key: value` lines, a blank line, then the raw vault bytes (SPEC.md §15.1).
struct VectorFile: Sendable {
    var name: String
    var expect: VectorExpectation
    var password: String?
    var keyFile: [UInt8]?
    var rawKey: [UInt8]?
    var generation: UInt64?
    var comment: String?
    var entries: [VectorEntry]?
    var bytes: [UInt8]

    func serialized() throws -> [UInt8] {
        var lines = ["expect: \(expect.rawValue)"]
        if let password { lines.append("password: \(password)") }
        if let keyFile { lines.append("key-file: \(Hex.encode(keyFile))") }
        if let rawKey { lines.append("raw-key: \(Hex.encode(rawKey))") }
        if let generation { lines.append("generation: \(generation)") }
        if let comment { lines.append("comment: \(comment)") }
        if let entries { lines.append("entries: \(try VectorEntry.encodeLine(entries))") }
        for line in lines where line.contains("\n") { throw VectorFileError(description: "\(name): newline in \(line)") }
        return Array((lines.joined(separator: "\n") + "\n\n").utf8) + bytes
    }

    static func parse(name: String, contents: [UInt8]) throws -> VectorFile {
        // The header ends at the first blank line; everything after it is the vault.
        var split: Int?
        for i in 0..<max(0, contents.count - 1) where contents[i] == 0x0A && contents[i + 1] == 0x0A {
            split = i
            break
        }
        guard let split else { throw VectorFileError(description: "\(name): no blank line after the header") }
        let header = String(decoding: contents[0..<split], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") else {
                throw VectorFileError(description: "\(name): bad header line \(line)")
            }
            let key = String(line[..<colon])
            let value = String(line[line.index(colon, offsetBy: 2)...])
            guard fields.updateValue(value, forKey: key) == nil else { throw VectorFileError(description: "\(name): \(key) twice") }
        }
        let known: Set<String> = ["expect", "password", "key-file", "raw-key", "generation", "comment", "entries"]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            throw VectorFileError(description: "\(name): unknown header \(unknown)")
        }
        guard let expectText = fields["expect"], let expect = VectorExpectation(rawValue: expectText) else {
            throw VectorFileError(description: "\(name): missing or unknown expect")
        }
        return VectorFile(
            name: name, expect: expect,
            password: fields["password"],
            keyFile: fields["key-file"].map(Hex.decode),
            rawKey: fields["raw-key"].map(Hex.decode),
            generation: try fields["generation"].map { text in
                guard let value = UInt64(text) else { throw VectorFileError(description: "\(name): bad generation") }
                return value
            },
            comment: fields["comment"],
            entries: try fields["entries"].map(VectorEntry.decodeLine),
            bytes: Array(contents[(split + 2)...]))
    }

    /// The credential the header names.
    func slotKey() throws -> SlotKey {
        let material = try keyFile.map { contents in
            try contents.withBytes { (raw) throws(CofferError) in try SlotKey.keyFileMaterial(contents: raw) }
        }
        switch (password, material, rawKey) {
        case (let p?, nil, nil): return .password(try SecureBytes(copying: p))
        case (nil, let m?, nil): return .keyFile(material: m)
        case (let p?, let m?, nil): return .passwordAndKeyFile(password: try SecureBytes(copying: p), material: m)
        case (nil, nil, let r?): return .rawKey(try SecureBytes(copying: r))
        default: throw VectorFileError(description: "\(name): needs password, key-file, both, or raw-key")
        }
    }

    /// Every `.vec` file in `Tests/Vectors`, by name.
    static func loadAll() throws -> [VectorFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: VectorPaths.directory.path)
            .filter { $0.hasSuffix(".vec") }
            .sorted()
        return try names.map { name in
            let data = try Data(contentsOf: VectorPaths.directory.appendingPathComponent(name))
            return try parse(name: name, contents: Array(data))
        }
    }
}

// MARK: - A reference reader

/// Opens a vault the way SPEC.md §10 says: parse, unlock, verify, then decrypt every
/// overview and every secret part, in file order.
enum FormatReader {
    struct Opened {
        let codec: VaultFile
        let keys: VaultKeys
        let items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets)]

        var entries: [VectorEntry] { items.map { VectorEntry(id: $0.id, revision: $0.revision, attributes: $0.attributes, secrets: $0.secrets) } }
    }

    static func open(_ bytes: [UInt8], key: SlotKey) throws(CofferError) -> Opened {
        let codec = try VaultFile.parse(bytes)
        let keys = try codec.unlock(with: key)
        try codec.verify(keys: keys)
        var items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets)] = []
        for record in codec.records {
            let attributes = try record.openOverview(vaultID: codec.header.vaultID, keys: keys)
            let secrets = try record.openSecrets(vaultID: codec.header.vaultID, keys: keys)
            items.append((record.id, record.revision, attributes, secrets))
        }
        return Opened(codec: codec, keys: keys, items: items)
    }

    /// The outcome class of opening `bytes` with `key`, and the error if any.
    static func outcome(_ bytes: [UInt8], key: SlotKey) -> (VectorExpectation?, CofferError?, Opened?) {
        do {
            let opened = try open(bytes, key: key)
            return (.success, nil, opened)
        } catch {
            return (VectorExpectation(error: error), error, nil)
        }
    }
}

// MARK: - Building files byte by byte

/// A vault file split into its parts (SPEC.md §2), to rebuild it with changes.
/// Each checksum or MAC is either kept as it was or computed afresh.
struct RawVaultFile {
    enum Stamp { case compute, fixed([UInt8]) }

    var magic: [UInt8] = FormatV1.magic
    var version: UInt16 = FormatV1.version
    /// nil: the header body's length.
    var headerLength: UInt32?
    var headerBody: [UInt8]
    var checksum: Stamp = .compute
    var headerMAC: Stamp = .compute
    /// nil: the manifest body's length.
    var manifestLength: UInt32?
    var manifest: [UInt8]
    var manifestMAC: Stamp = .compute
    /// Record bodies; each is written after its u32 length.
    var records: [[UInt8]]

    init(headerBody: [UInt8], manifest: [UInt8], records: [[UInt8]]) {
        self.headerBody = headerBody
        self.manifest = manifest
        self.records = records
    }

    /// Splits a well-formed file; every stamp is kept as it was.
    init(splitting bytes: [UInt8]) throws {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        var offset = FormatV1.preambleLength
        let headerLength = u32(10)
        headerBody = Array(bytes[offset..<(offset + headerLength)])
        offset += headerLength
        checksum = .fixed(Array(bytes[offset..<(offset + 32)]))
        headerMAC = .fixed(Array(bytes[(offset + 32)..<(offset + 64)]))
        offset += 64
        let manifestLength = u32(offset)
        manifest = Array(bytes[(offset + 4)..<(offset + 4 + manifestLength)])
        offset += 4 + manifestLength
        manifestMAC = .fixed(Array(bytes[offset..<(offset + 32)]))
        offset += 32
        records = []
        while offset < bytes.count {
            let length = u32(offset)
            guard offset + 4 + length <= bytes.count else { throw VectorFileError(description: "record overruns the file") }
            records.append(Array(bytes[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        magic = Array(bytes[0..<8])
        version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
    }

    func assemble(keys: VaultKeys?) throws -> [UInt8] {
        var out = ByteWriter()
        out.bytes(magic)
        out.u16(version)
        out.u32(headerLength ?? UInt32(headerBody.count))
        out.bytes(headerBody)
        let header = out.bytes
        let checksumBytes = try stamp(checksum) { try BLAKE2b.hash(header) }
        let headerMACBytes = try stamp(headerMAC) { try BLAKE2b.mac(header, key: try need(keys).headerKey) }
        out.bytes(checksumBytes)
        out.bytes(headerMACBytes)
        out.u32(manifestLength ?? UInt32(manifest.count))
        out.bytes(manifest)
        let covered = out.bytes
        let manifestMACBytes = try stamp(manifestMAC) { try BLAKE2b.mac(covered, key: try need(keys).manifestKey) }
        out.bytes(manifestMACBytes)
        for record in records {
            out.u32(UInt32(record.count))
            out.bytes(record)
        }
        return out.bytes
    }

    private func stamp(_ stamp: Stamp, _ compute: () throws -> [UInt8]) throws -> [UInt8] {
        switch stamp {
        case .compute: return try compute()
        case .fixed(let bytes): return bytes
        }
    }

    private func need(_ keys: VaultKeys?) throws -> VaultKeys {
        guard let keys else { throw VectorFileError(description: "computing a MAC needs the vault's keys") }
        return keys
    }
}

/// A manifest body (SPEC.md §8): generation, count, then (id, revision, digest) entries.
struct RawManifest {
    struct Entry { var id: [UInt8]; var revision: UInt64; var digest: [UInt8] }
    var generation: UInt64
    var entries: [Entry]

    init(generation: UInt64, entries: [Entry]) {
        self.generation = generation
        self.entries = entries
    }

    init(_ bytes: [UInt8]) {
        var reader = 0
        func take(_ n: Int) -> [UInt8] { defer { reader += n }; return Array(bytes[reader..<(reader + n)]) }
        func le(_ b: [UInt8]) -> UInt64 { b.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } }
        generation = le(take(8))
        let count = Int(le(take(4)))
        entries = (0..<count).map { _ in Entry(id: take(16), revision: le(take(8)), digest: take(32)) }
    }

    /// Lists `records` (bodies) in the given order, with their digests.
    init(generation: UInt64, records: [[UInt8]]) throws {
        self.generation = generation
        entries = try records.map { body in
            let parts = RawRecord(body)
            return Entry(id: parts.id, revision: parts.revision, digest: try BLAKE2b.hash(body))
        }
    }

    var bytes: [UInt8] {
        var w = ByteWriter()
        w.u64(generation)
        w.u32(UInt32(entries.count))
        for e in entries {
            w.bytes(e.id)
            w.u64(e.revision)
            w.bytes(e.digest)
        }
        return w.bytes
    }
}

/// An entry record body (SPEC.md §7), split into its fields.
struct RawRecord {
    var id: [UInt8]
    var revision: UInt64
    var overviewNonce: [UInt8]
    var overviewCiphertext: [UInt8]
    var secretNonce: [UInt8]
    var secretCiphertext: [UInt8]

    init(_ body: [UInt8]) {
        var at = 0
        func take(_ n: Int) -> [UInt8] { defer { at += n }; return Array(body[at..<(at + n)]) }
        func le(_ b: [UInt8]) -> UInt64 { b.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) } }
        id = take(16)
        revision = le(take(8))
        overviewNonce = take(24)
        overviewCiphertext = take(Int(le(take(4))))
        secretNonce = take(24)
        secretCiphertext = take(Int(le(take(4))))
    }

    /// Seals arbitrary plaintexts (already padded, or deliberately not) as a record body.
    init(id: ItemID, revision: UInt64, overviewPlaintext: [UInt8], secretPlaintext: [UInt8],
         vaultID: [UInt8], keys: VaultKeys, entropy: EntropySource) throws {
        self.id = id.bytes
        self.revision = revision
        overviewNonce = try entropy.bytes(FormatV1.nonceLength)
        secretNonce = try entropy.bytes(FormatV1.nonceLength)
        let (oNonce, sNonce) = (overviewNonce, secretNonce)
        overviewCiphertext = try overviewPlaintext.withBytes { (raw) throws(CofferError) in
            try XChaCha20Poly1305.seal(raw, key: keys.overviewKey, nonce: oNonce,
                                       associatedData: EntryRecord.associatedData(vaultID: vaultID, id: id, revision: revision, part: .overview))
        }
        secretCiphertext = try secretPlaintext.withBytes { (raw) throws(CofferError) in
            try XChaCha20Poly1305.seal(raw, key: keys.secretKey, nonce: sNonce,
                                       associatedData: EntryRecord.associatedData(vaultID: vaultID, id: id, revision: revision, part: .secret))
        }
    }

    var bytes: [UInt8] {
        var w = ByteWriter()
        w.bytes(id)
        w.u64(revision)
        w.bytes(overviewNonce)
        w.u32(UInt32(overviewCiphertext.count))
        w.bytes(overviewCiphertext)
        w.bytes(secretNonce)
        w.u32(UInt32(secretCiphertext.count))
        w.bytes(secretCiphertext)
        return w.bytes
    }
}

// MARK: - Building vaults through the format API

/// Builds vault files with the format code itself (key slots, sealed records, the
/// file codec), from a deterministic entropy source, fixed dates and fixed revisions.
final class FormatVaultBuilder {
    let entropy: EntropySource
    let keys: VaultKeys
    var header: VaultHeader
    var generation: UInt64 = 1
    private(set) var records: [ItemID: EntryRecord] = [:]
    private(set) var expected: [ItemID: VectorEntry] = [:]

    var vaultID: [UInt8] { header.vaultID }

    /// A new vault: draws the vault key, then the vault id, then one slot per credential
    /// (the order `Vault.create` uses).
    init(entropy: EntropySource, slots: [(SlotKey, Argon2idParameters)]) throws {
        self.entropy = entropy
        let vaultKey = try entropy.secureBytes(FormatV1.keyLength)
        keys = try VaultKeys(vaultKey: vaultKey)
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        header = VaultHeader(vaultID: vaultID, slots: [], extensions: [])
        for (key, kdf) in slots {
            header.slots.append(try KeySlotRecord.make(for: key, vaultKey: vaultKey, vaultID: vaultID, kdf: kdf, entropy: entropy))
        }
    }

    /// A vault with the same vault key as `other` but its own id (for transplant vectors).
    init(sharingKeyOf other: FormatVaultBuilder, vaultID: [UInt8], entropy: EntropySource, slots: [(SlotKey, Argon2idParameters)]) throws {
        self.entropy = entropy
        keys = other.keys
        header = VaultHeader(vaultID: vaultID, slots: [], extensions: [])
        for (key, kdf) in slots {
            header.slots.append(try KeySlotRecord.make(for: key, vaultKey: keys.vaultKey, vaultID: vaultID, kdf: kdf, entropy: entropy))
        }
    }

    func newID() throws -> ItemID { ItemID(validated: try entropy.bytes(FormatV1.entryIDLength)) }

    /// Seals an item at `revision` (replacing any record with its id).
    @discardableResult
    func put(_ id: ItemID, revision: UInt64, _ attributes: ItemAttributes, _ secrets: ItemSecrets) throws -> EntryRecord {
        let record = try EntryRecord.seal(id: id, revision: revision, attributes: attributes, secrets: secrets,
                                          vaultID: header.vaultID, keys: keys, entropy: entropy)
        records[id] = record
        expected[id] = VectorEntry(id: id, revision: revision, attributes: attributes, secrets: secrets)
        return record
    }

    /// Adds an already sealed record (its expected entry unknown to the builder).
    func insert(_ record: EntryRecord) {
        records[record.id] = record
        expected[record.id] = nil
    }

    func remove(_ id: ItemID) {
        records[id] = nil
        expected[id] = nil
    }

    var sortedRecords: [EntryRecord] { records.values.sorted { $0.id < $1.id } }

    /// The expected entries, in file (id) order.
    var expectedEntries: [VectorEntry] { expected.keys.sorted().compactMap { expected[$0] } }

    func bytes() throws -> [UInt8] {
        try VaultFile.encode(header: header, generation: generation, records: Array(records.values), keys: keys)
    }
}

/// Dates used by the vectors: milliseconds since 1970.
func vectorDate(_ ms: Int64) -> Date { Date(millisecondsSince1970: ms) }

/// A small, seedable generator (SplitMix64) for reproducible property tests.
struct FormatSplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Test entropy: reproducible in debug builds (where the hook exists), the system's otherwise.
func formatTestEntropy(_ label: String) throws -> EntropySource {
    #if DEBUG
    return try EntropySource.deterministic(seed: BLAKE2b.hash(Array("coffer format test: \(label)".utf8)))
    #else
    return .system
    #endif
}

// MARK: - The worked example of SPEC.md §16

/// Every intermediate value of opening `success-raw-key.vec`, and the file cut into
/// its fields. SPEC.md §16 shows both; FormatVectorTests checks SPEC.md against them.
enum WorkedExample {
    static let vectorName = "success-raw-key.vec"

    static func values(_ vector: VectorFile) throws -> [(String, [UInt8])] {
        let raw = try RawVaultFile(splitting: vector.bytes)
        let key = try vector.slotKey()
        let opened = try FormatReader.open(vector.bytes, key: key)
        let header = opened.codec.header
        let slot = header.slots[0]
        let keys = opened.keys
        let kek = try KeySlotRecord.keyEncryptionKey(for: key, kdf: nil, salt: slot.salt)
        let record = RawRecord(raw.records[0])
        let id = ItemID(validated: record.id)
        let overviewAD = EntryRecord.associatedData(vaultID: header.vaultID, id: id, revision: record.revision, part: .overview)
        let secretAD = EntryRecord.associatedData(vaultID: header.vaultID, id: id, revision: record.revision, part: .secret)
        let overviewPlain = try record.overviewCiphertext.withBytes { (c) throws(CofferError) in
            try record.overviewNonce.withBytes { (n) throws(CofferError) in
                try overviewAD.withBytes { (ad) throws(CofferError) in
                    try XChaCha20Poly1305.openPublic(c, key: keys.overviewKey, nonce: n, associatedData: ad)
                }
            }
        }
        let secretPlain = try XChaCha20Poly1305.open(record.secretCiphertext, key: keys.secretKey, nonce: record.secretNonce,
                                                     associatedData: secretAD)
        return [
            ("raw key", vector.rawKey ?? []),
            ("vault id", header.vaultID),
            ("slot salt", slot.salt),
            ("slot KEK", kek.testBytes),
            ("slot AD", KeySlotRecord.associatedData(vaultID: header.vaultID, type: slot.kind.code, params: slot.salt)),
            ("slot nonce", slot.nonce),
            ("vault key", keys.vaultKey.testBytes),
            ("header key", keys.headerKey.testBytes),
            ("manifest key", keys.manifestKey.testBytes),
            ("overview key", keys.overviewKey.testBytes),
            ("secret key", keys.secretKey.testBytes),
            ("entry id", record.id),
            ("overview AD", overviewAD),
            ("overview plaintext", overviewPlain),
            ("secret AD", secretAD),
            ("secret plaintext", secretPlain.testBytes),
            ("record digest", try BLAKE2b.hash(raw.records[0])),
        ]
    }

    /// The file as (comment, bytes) fields, in order.
    static func fields(_ vector: VectorFile) throws -> [(String, [UInt8])] {
        let bytes = vector.bytes
        let raw = try RawVaultFile(splitting: bytes)
        var out: [(String, [UInt8])] = []
        var at = 0
        func take(_ n: Int, _ comment: String) {
            out.append((comment, Array(bytes[at..<(at + n)])))
            at += n
        }
        take(8, "magic \"\\x89COFFER\\n\"")
        take(2, "format version 1 (u16)")
        take(4, "header length \(raw.headerBody.count) (u32)")
        take(16, "vault id")
        take(1, "key slot count 1")
        take(1, "slot 0 type 4 (raw key)")
        take(2, "slot 0 body length 88 (u16)")
        take(16, "slot 0 salt")
        take(24, "slot 0 nonce")
        take(48, "slot 0 wrapped vault key (32 + 16-byte tag)")
        take(2, "extension count 0 (u16)")
        take(32, "header checksum: BLAKE2b-256 of bytes [0, 124)")
        take(32, "header MAC: BLAKE2b-256 keyed with the header key, bytes [0, 124)")
        take(4, "manifest length \(raw.manifest.count) (u32)")
        take(8, "generation 1 (u64)")
        take(4, "entry count 1 (u32)")
        take(16, "entry 0 id")
        take(8, "entry 0 revision 1 (u64)")
        take(32, "entry 0 record digest: BLAKE2b-256 of the record body")
        take(32, "manifest MAC: BLAKE2b-256 keyed with the manifest key, bytes [0, \(at))")
        let record = RawRecord(raw.records[0])
        take(4, "record 0 length \(raw.records[0].count) (u32)")
        take(16, "entry id")
        take(8, "revision 1 (u64)")
        take(24, "overview nonce")
        take(4, "overview ciphertext length \(record.overviewCiphertext.count) (u32)")
        take(record.overviewCiphertext.count, "overview ciphertext (64 + 16-byte tag)")
        take(24, "secret nonce")
        take(4, "secret ciphertext length \(record.secretCiphertext.count) (u32)")
        take(record.secretCiphertext.count, "secret ciphertext (64 + 16-byte tag)")
        guard at == bytes.count else { throw VectorFileError(description: "worked example: \(bytes.count - at) bytes left") }
        return out
    }

    /// The two fenced blocks SPEC.md §16 holds.
    static func render(_ vector: VectorFile) throws -> String {
        var text = "<!-- worked-example-values: \(vectorName) -->\n```text\n"
        for (name, value) in try values(vector) {
            text += "\(name) = \(Hex.encode(value))\n"
        }
        text += "```\n\n<!-- worked-example-file: \(vectorName) -->\n```text\n"
        for (comment, value) in try fields(vector) {
            let hex = Hex.encode(value)
            var lines: [String] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let end = hex.index(index, offsetBy: 64, limitedBy: hex.endIndex) ?? hex.endIndex
                lines.append(String(hex[index..<end]))
                index = end
            }
            let width = 64
            text += lines.enumerated().map { i, line in
                i == 0 ? line.padding(toLength: width, withPad: " ", startingAt: 0) + "  # " + comment : line
            }.joined(separator: "\n") + "\n"
        }
        return text + "```\n"
    }

    /// Reads a block back from SPEC.md: the fenced block after `<!-- marker: vectorName -->`.
    static func block(in spec: String, marker: String) -> [String]? {
        guard let start = spec.range(of: "<!-- \(marker): \(vectorName) -->") else { return nil }
        let rest = spec[start.upperBound...]
        guard let open = rest.range(of: "```text\n"), let close = rest[open.upperBound...].range(of: "```") else { return nil }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }
}

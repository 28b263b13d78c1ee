import Foundation
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

/// Builds format-2 vault files with the format code itself (slots with stanzas, sealed
/// records, the file codec), from a deterministic entropy source, fixed dates, fixed
/// revisions and fixed stamps: the vectors of SPEC.md §15 and the format-2 tests.
final class FormatVaultBuilderV2 {
    let entropy: EntropySource
    var keys: EpochKeys
    var header: VaultHeaderV2
    var generation: UInt64 = 1
    private(set) var records: [ItemID: RecordV2] = [:]
    private(set) var expected: [ItemID: VectorEntry] = [:]

    var vaultID: [UInt8] { header.vaultID }

    /// The replica every item of a builder is written by, unless a test says otherwise.
    static let replica: UInt64 = 0x0123_4567_89AB_CDEF

    /// A new vault: draws the epoch key, then the vault id, then one slot per credential.
    init(entropy: EntropySource, slots: [(VaultCredential, Argon2idParameters)], start: Stamp) throws {
        self.entropy = entropy
        keys = try EpochKeys(epochKey: try entropy.secureBytes(FormatV1.keyLength))
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        header = VaultHeaderV2(vaultID: vaultID, epochID: keys.epochID, epochStart: start, slots: [], extensions: [])
        for (credential, kdf) in slots { try addSlot(credential, kdf) }
    }

    /// A vault with `other`'s epoch key but its own id (for transplant vectors).
    init(sharingKeyOf other: FormatVaultBuilderV2, vaultID: [UInt8], entropy: EntropySource,
         slots: [(VaultCredential, Argon2idParameters)]) throws {
        self.entropy = entropy
        keys = other.keys
        header = VaultHeaderV2(vaultID: vaultID, epochID: keys.epochID, epochStart: other.header.epochStart, slots: [], extensions: [])
        for (credential, kdf) in slots { try addSlot(credential, kdf) }
    }

    func addSlot(_ credential: VaultCredential, _ kdf: Argon2idParameters) throws {
        header.slots.append(try KeySlotV2.make(for: credential, kdf: kdf, vaultID: header.vaultID, epoch: keys, entropy: entropy).slot)
    }

    func newID() throws -> ItemID { ItemID(validated: try entropy.bytes(FormatV1.entryIDLength)) }

    /// The clock of an item one edit wrote: every unkeyed register and every present named
    /// field stamped `stamp` (format 2's implied stamps when there is no named field).
    static func clock(_ stamp: Stamp, _ attributes: ItemAttributes, _ secrets: ItemSecrets) throws -> ItemClock {
        var stamps: [Register: Stamp] = [:]
        for register in Register.all where !register.isKeyed { stamps[register] = stamp }
        let overview = EntryCodec.encodeOverview(attributes).publicBytes
        for register in try ItemParts.registers(ofOverview: overview).union(ItemParts.registers(of: secrets)) where register.isKeyed {
            stamps[register] = stamp
        }
        return ItemClock(versions: VersionVector([stamp.replica: stamp.time]), stamps: stamps)
    }

    /// A stamp whose milliseconds are `ms`: the time a writer at that wall clock gives.
    static func stamp(_ ms: Int64, replica: UInt64 = FormatVaultBuilderV2.replica) -> Stamp {
        Stamp(replica: replica, time: UInt64(ms) << 16)
    }

    /// Seals an item at `revision` with `clock` (default: one edit at its modified date).
    @discardableResult
    func put(_ id: ItemID, revision: UInt64, _ attributes: ItemAttributes, _ secrets: ItemSecrets,
             clock: ItemClock? = nil) throws -> RecordV2 {
        let clock = try clock ?? Self.clock(Self.stamp(attributes.modified.millisecondsSince1970), attributes, secrets)
        let list = EntryCodec.encodeOverview(attributes).publicBytes
        let present = try ItemParts.registers(ofOverview: list).union(ItemParts.registers(of: secrets))
        let overview = list + (try ItemClockCodec.encode(clock, present: present, style: .version2))
        let record = try RecordV2.seal(id: id, revision: revision, overview: overview, secrets: EntryCodec.encodeSecrets(secrets),
                                       vaultID: vaultID, keys: keys, entropy: entropy)
        records[id] = record
        expected[id] = VectorEntry(id: id, revision: revision, attributes: attributes, secrets: secrets)
        return record
    }

    /// Seals the tombstone of a deleted item: its dates and its clock, nothing else.
    @discardableResult
    func tombstone(_ id: ItemID, revision: UInt64, created: Int64, clock: ItemClock) throws -> RecordV2 {
        var list = FieldList()
        list.field(EntryCodec.OverviewTag.created, i64: created)
        list.field(EntryCodec.OverviewTag.modified, i64: Int64(clock.versions.maxTime >> 16))
        let overview = list.publicBytes + (try ItemClockCodec.encode(clock, present: [], style: .version2))
        let record = try RecordV2.seal(id: id, revision: revision, overview: overview, secrets: FieldList(), tombstone: true,
                                       vaultID: vaultID, keys: keys, entropy: entropy)
        records[id] = record
        expected[id] = VectorEntry.tombstone(id: id, revision: revision, created: created, modified: Int64(clock.versions.maxTime >> 16))
        return record
    }

    /// Seals an overview list and a secret list given as they are in memory.
    func insert(id: ItemID, revision: UInt64, overview: [UInt8], secrets: FieldList, tombstone: Bool = false) throws {
        records[id] = try RecordV2.seal(id: id, revision: revision, overview: overview, secrets: secrets, tombstone: tombstone,
                                        vaultID: vaultID, keys: keys, entropy: entropy)
        expected[id] = nil
    }

    /// Records what an inserted record must read back as.
    func expect(_ id: ItemID, _ entry: VectorEntry) { expected[id] = entry }

    /// Adds an already sealed record.
    func insert(_ record: RecordV2) {
        records[record.id] = record
        expected[record.id] = nil
    }

    func remove(_ id: ItemID) {
        records[id] = nil
        expected[id] = nil
    }

    /// A rotation (SPEC.md §11.2, ``EpochRotation``) at `stamp`, records sealed in id order.
    func rotate(at stamp: Stamp) throws {
        let rotated = try EpochRotation.rotate(header: header, records: sortedRecords, keys: keys, at: stamp, entropy: entropy, threads: 1)
        header = rotated.header
        keys = rotated.keys
        records = Dictionary(uniqueKeysWithValues: rotated.records.map { ($0.id, $0) })
    }

    var sortedRecords: [RecordV2] { records.values.sorted { $0.id < $1.id } }

    /// The expected entries, in file (id) order.
    var expectedEntries: [VectorEntry] { expected.keys.sorted().compactMap { expected[$0] } }

    func bytes() throws -> [UInt8] {
        try VaultFileV2.encode(header: header, generation: generation, records: Array(records.values), keys: keys).bytes
    }
}

/// A format-2 file split into its parts (SPEC.md §2), to rebuild it with changes. Each
/// checksum or MAC is kept as it was or computed afresh with the given keys.
struct RawVaultFileV2 {
    enum Stamp { case compute, fixed([UInt8]) }

    var version: UInt16 = FormatV2.version
    var headerLength: UInt32?
    var headerBody: [UInt8]
    var checksum: Stamp = .compute
    var headerMAC: Stamp = .compute
    var manifestLength: UInt32?
    var generation: UInt64
    var count: UInt32?
    var rows: [Row]
    /// Bytes after the last row, inside the manifest.
    var manifestTail: [UInt8] = []
    var manifestMAC: Stamp = .compute
    /// The records' bytes, one after another (overview ciphertext, then secret ciphertext).
    var records: [UInt8]

    /// One row's fields; `raw` overrides them when set.
    struct Row {
        var id: [UInt8]
        var nonce: [UInt8]
        var tag: [UInt8]
        var flags: UInt8
        var revision: UInt64
        var overviewLength: UInt64
        var secretLength: UInt64
        var raw: [UInt8]?

        var bytes: [UInt8] {
            if let raw { return raw }
            var w = ByteWriter()
            w.bytes(id); w.bytes(nonce); w.bytes(tag); w.u8(flags)
            w.varint(revision); w.varint(overviewLength); w.varint(secretLength)
            return w.bytes
        }
    }

    /// Splits a well-formed file; every stamp is kept as it was.
    init(splitting bytes: [UInt8]) throws {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        version = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        var offset = FormatV1.preambleLength
        let headerLength = u32(10)
        headerBody = Array(bytes[offset..<(offset + headerLength)])
        offset += headerLength
        checksum = .fixed(Array(bytes[offset..<(offset + 32)]))
        headerMAC = .fixed(Array(bytes[(offset + 32)..<(offset + 64)]))
        offset += 64
        let manifestLength = u32(offset)
        let manifest = Array(bytes[(offset + 4)..<(offset + 4 + manifestLength)])
        offset += 4 + manifestLength
        manifestMAC = .fixed(Array(bytes[offset..<(offset + 32)]))
        offset += 32
        records = Array(bytes[offset...])
        var reader = ByteReader(UnsafeRawBufferPointer(start: nil, count: 0))
        generation = 0
        rows = []
        try manifest.withUnsafeBytes { raw in
            reader = ByteReader(raw)
            generation = try formatCall { () throws(FormatError) in try reader.u64("") }
            let n = try formatCall { () throws(FormatError) in try reader.u32("") }
            for _ in 0..<n {
                try formatCall { () throws(FormatError) in
                    rows.append(Row(id: try reader.bytes(16, ""), nonce: try reader.bytes(24, ""), tag: try reader.bytes(8, ""),
                                    flags: try reader.u8(""), revision: try reader.varint(limit: .max, ""),
                                    overviewLength: try reader.varint(limit: .max, ""), secretLength: try reader.varint(limit: .max, "")))
                }
            }
        }
    }

    /// Where record `i` starts in ``records``, and its two lengths.
    func record(_ i: Int) -> (start: Int, overview: Int, secret: Int) {
        let start = rows[0..<i].reduce(0) { $0 + Int($1.overviewLength + $1.secretLength) }
        return (start, Int(rows[i].overviewLength), Int(rows[i].secretLength))
    }

    /// The file, with checksum and MACs computed where asked (`keys` nil: only the checksum).
    func assemble(keys: EpochKeys?) throws -> [UInt8] {
        var out = FormatV1.magic
        out += [UInt8(truncatingIfNeeded: version), UInt8(truncatingIfNeeded: version >> 8)]
        var w = ByteWriter()
        w.u32(headerLength ?? UInt32(headerBody.count))
        out += w.bytes + headerBody
        func stamp(_ s: Stamp, _ compute: () throws -> [UInt8]) throws -> [UInt8] {
            switch s { case .fixed(let b): return b; case .compute: return try compute() }
        }
        let headed = out
        out += try stamp(checksum) { try BLAKE2b.hash(headed) }
        out += try stamp(headerMAC) {
            guard let keys else { throw VectorFileError(description: "header MAC needs keys") }
            return try BLAKE2b.mac(headed, key: keys.headerKey)
        }
        var manifest = ByteWriter()
        manifest.u64(generation)
        manifest.u32(count ?? UInt32(rows.count))
        for row in rows { manifest.bytes(row.bytes) }
        manifest.bytes(manifestTail)
        var length = ByteWriter()
        length.u32(manifestLength ?? UInt32(manifest.bytes.count))
        out += length.bytes + manifest.bytes
        let before = out
        out += try stamp(manifestMAC) {
            guard let keys else { throw VectorFileError(description: "manifest MAC needs keys") }
            return try BLAKE2b.mac(before, key: keys.manifestKey)
        }
        return out + records
    }
}

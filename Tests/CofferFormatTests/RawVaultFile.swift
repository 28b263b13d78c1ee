import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

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

import Foundation
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
import CofferTestSupport

/// Every intermediate value of opening `v2-success-raw-key.vec`, and the file cut into its
/// fields: SPEC.md §16 shows both; FormatVectorTests checks SPEC.md against them.
enum WorkedExampleV2 {
    static let vectorName = "v2-success-raw-key.vec"
    static let valuesMarker = "worked-example-v2-values"
    static let fileMarker = "worked-example-v2-file"

    static func values(_ vector: VectorFile) throws -> [(String, [UInt8])] {
        let credential = try vector.credential()
        let opened = try FormatReader.open(vector.bytes, key: credential)
        let codec = try requireValue(opened.codecV2, "not a format-2 file")
        let keys = try requireValue(opened.epochKeys, "no keys")
        let header = codec.header
        let slot = header.slots[0]
        let salt = Array(slot.publicPart[0..<16]), publicKey = Array(slot.publicPart[16..<48])
        let seeds = try requireValue(try slot.seeds(for: credential), "no seeds")
        let scalar = try KeySlotV2.scalar(seeds.seeds[0])
        let ephemeral = Array(slot.stanza[0..<32])
        let shared = try X25519.sharedSecret(scalar, peer: ephemeral)
        let wrapKey = try KeySlotV2.wrapKey(vaultID: header.vaultID, epochID: header.epochID, identity: slot.identity,
                                            ephemeral: ephemeral, publicKeys: [publicKey], shared: [shared])
        let record = codec.records[0]
        let overviewAD = RecordV2.associatedData(vaultID: header.vaultID, id: record.id, part: .overview)
        let secretAD = RecordV2.associatedData(vaultID: header.vaultID, id: record.id, part: .secret)
        let overviewPlain = try XChaCha20Poly1305.open(record.overviewCiphertext, key: keys.overviewKey, nonce: record.nonce.bytes, associatedData: overviewAD)
        let secretPlain = try XChaCha20Poly1305.open(record.secretCiphertext, key: keys.secretKey, nonce: record.nonce.bytes, associatedData: secretAD)
        var tag = ByteWriter()
        tag.u64(record.lookupTag)
        return [
            ("raw key", vector.rawKey ?? []),
            ("vault id", header.vaultID),
            ("slot salt", salt),
            ("slot seed", seeds.seeds[0].testBytes),
            ("slot scalar", scalar.testBytes),
            ("slot public key", publicKey),
            ("slot identity", slot.identity),
            ("stanza ephemeral point", ephemeral),
            ("shared secret", shared.testBytes),
            ("stanza AD", KeySlotV2.stanzaAD(vaultID: header.vaultID, epochID: header.epochID, identity: slot.identity)),
            ("wrap key", wrapKey.testBytes),
            ("epoch key", keys.epochKey.testBytes),
            ("epoch id", keys.epochID),
            ("header key", keys.headerKey.testBytes),
            ("manifest key", keys.manifestKey.testBytes),
            ("overview key", keys.overviewKey.testBytes),
            ("secret key", keys.secretKey.testBytes),
            ("lookup key", keys.lookupKey.testBytes),
            ("entry id", record.id.bytes),
            ("nonce", record.nonce.bytes),
            ("lookup tag", tag.bytes),
            ("overview AD", overviewAD),
            ("overview plaintext", overviewPlain.testBytes),
            ("secret AD", secretAD),
            ("secret plaintext", secretPlain.testBytes),
        ]
    }

    /// The file as (comment, bytes) fields, in order.
    static func fields(_ vector: VectorFile) throws -> [(String, [UInt8])] {
        let bytes = vector.bytes
        let raw = try RawVaultFileV2(splitting: bytes)
        let row = raw.rows[0]
        var out: [(String, [UInt8])] = []
        var at = 0
        func take(_ n: Int, _ comment: String) {
            out.append((comment, Array(bytes[at..<(at + n)])))
            at += n
        }
        let headerEnd = FormatV1.preambleLength + raw.headerBody.count
        take(8, "magic \"\\x89COFFER\\n\"")
        take(2, "format version 2 (u16)")
        take(4, "header length \(raw.headerBody.count) (u32)")
        take(16, "vault id")
        take(16, "epoch id")
        take(8, "epoch start replica (u64)")
        take(8, "epoch start time (u64)")
        take(1, "key slot count 1")
        take(1, "slot 0 type 0x14 (raw key)")
        take(2, "slot 0 public length 48 (u16)")
        take(16, "slot 0 salt")
        take(32, "slot 0 public key")
        take(2, "slot 0 stanza length 80 (u16)")
        take(32, "slot 0 stanza: ephemeral point E")
        take(48, "slot 0 stanza: wrapped epoch key (32 + 16-byte tag)")
        take(2, "extension count 0 (u16)")
        take(32, "header checksum: BLAKE2b-256 of bytes [0, \(headerEnd))")
        take(32, "header MAC: BLAKE2b-256 keyed with the header key, bytes [0, \(headerEnd))")
        let rowLength = row.bytes.count
        take(4, "manifest length \(12 + rowLength) (u32)")
        take(8, "generation 1 (u64)")
        take(4, "entry count 1 (u32)")
        take(16, "row 0 entry id")
        take(24, "row 0 nonce")
        take(8, "row 0 lookup tag")
        take(1, "row 0 flags 0 (live)")
        take(rowLength - 49 - ByteWriter.varintLength(row.overviewLength) - ByteWriter.varintLength(row.secretLength),
             "row 0 revision 1 (varint)")
        take(ByteWriter.varintLength(row.overviewLength), "row 0 overview ciphertext length \(row.overviewLength) (varint)")
        take(ByteWriter.varintLength(row.secretLength), "row 0 secret ciphertext length \(row.secretLength) (varint)")
        take(32, "manifest MAC: BLAKE2b-256 keyed with the manifest key, bytes [0, \(at))")
        take(Int(row.overviewLength), "record 0 overview ciphertext (\(row.overviewLength - 16) + 16-byte tag)")
        take(Int(row.secretLength), "record 0 secret ciphertext (\(row.secretLength - 16) + 16-byte tag)")
        guard at == bytes.count else { throw VectorFileError(description: "worked example: \(bytes.count - at) bytes left") }
        return out
    }

    /// The two fenced blocks of SPEC.md §16.
    static func render(_ vector: VectorFile) throws -> String {
        WorkedExample.renderBlocks(values: try values(vector), fields: try fields(vector), valuesMarker: valuesMarker,
                                   fileMarker: fileMarker, vectorName: vectorName)
    }

    static func block(in spec: String, marker: String) -> [String]? {
        WorkedExample.block(in: spec, marker: marker, vectorName: vectorName)
    }
}

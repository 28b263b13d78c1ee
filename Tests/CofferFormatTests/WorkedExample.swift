import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

/// Every intermediate value of opening `success-raw-key.vec`, and the file cut into
/// its fields. SPEC.md §16 shows both; FormatVectorTests checks SPEC.md against them.
enum WorkedExample {
    static let vectorName = "success-raw-key.vec"

    static func values(_ vector: VectorFile) throws -> [(String, [UInt8])] {
        let raw = try RawVaultFile(splitting: vector.bytes)
        let key = try vector.credential()
        let opened = try FormatReader.open(vector.bytes, key: key)
        let header = opened.codec.header
        let slot = header.slots[0]
        let keys: VaultKeys = opened.keys
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
        try renderBlocks(values: values(vector), fields: fields(vector), valuesMarker: "worked-example-values",
                         fileMarker: "worked-example-file", vectorName: vectorName)
    }

    /// A values block and a file block (64 hex digits a line, each field's comment after it).
    static func renderBlocks(values: [(String, [UInt8])], fields: [(String, [UInt8])], valuesMarker: String,
                             fileMarker: String, vectorName: String) -> String {
        var text = "<!-- \(valuesMarker): \(vectorName) -->\n```text\n"
        for (name, value) in values {
            text += "\(name) = \(Hex.encode(value))\n"
        }
        text += "```\n\n<!-- \(fileMarker): \(vectorName) -->\n```text\n"
        for (comment, value) in fields {
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
    static func block(in spec: String, marker: String, vectorName: String = vectorName) -> [String]? {
        guard let start = spec.range(of: "<!-- \(marker): \(vectorName) -->") else { return nil }
        let rest = spec[start.upperBound...]
        guard let open = rest.range(of: "```text\n"), let close = rest[open.upperBound...].range(of: "```") else { return nil }
        return rest[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }
}

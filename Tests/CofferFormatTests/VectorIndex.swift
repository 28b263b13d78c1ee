import Foundation
import CofferFormat
import CofferTestSupport

/// `Tests/Vectors/index.json` (SPEC.md §15.4): every vector's header lines as JSON, so
/// another implementation runs the vectors without parsing the `.vec` headers.
enum VectorIndex {
    static let fileName = "index.json"

    /// One vector: the same names as its header lines, typed values.
    struct Item: Codable, Equatable, Sendable {
        var file: String
        var vaultOffset: Int
        var expect: String
        var password: String?
        var keyFile: String?
        var rawKey: String?
        var identity: String?
        var sshSeed: String?
        var generation: UInt64?
        var comment: String?
        var entries: [VectorEntry]?
        var mergeWith: [String]?
        var mergeRefused: String?
        var merged: MergedVault?

        enum CodingKeys: String, CodingKey {
            case file, expect, password, identity, generation, comment, entries, merged
            case vaultOffset = "vault-offset", keyFile = "key-file", rawKey = "raw-key", mergeWith = "merge-with"
            case mergeRefused = "merge-refused"
            case sshSeed = "ssh-ed25519-seed"
        }

        init(_ vector: VectorFile, vaultOffset: Int) {
            file = vector.name
            self.vaultOffset = vaultOffset
            expect = vector.expect.rawValue
            password = vector.password
            keyFile = vector.keyFile.map(Hex.encode)
            rawKey = vector.rawKey.map(Hex.encode)
            identity = vector.identity
            sshSeed = vector.sshSeed.map(Hex.encode)
            generation = vector.generation
            comment = vector.comment
            entries = vector.entries
            mergeWith = vector.mergeWith
            mergeRefused = vector.mergeRefused?.rawValue
            merged = vector.merged
        }
    }

    struct Index: Codable, Equatable, Sendable {
        var version: Int
        var vectors: [Item]
    }

    /// The index of `vectors`, one vector per line, keys sorted.
    static func encode(_ vectors: [VectorFile]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let lines = try vectors.sorted { $0.name < $1.name }.map { vector in
            let serialized = try vector.serialized()
            let item = Item(vector, vaultOffset: serialized.count - vector.bytes.count)
            return String(decoding: try encoder.encode(item), as: UTF8.self)
        }
        return Array(("{\"version\": 1, \"vectors\": [\n" + lines.joined(separator: ",\n") + "\n]}\n").utf8)
    }

    static func load() throws -> Index {
        let data = try Data(contentsOf: VectorPaths.directory.appendingPathComponent(fileName))
        return try JSONDecoder().decode(Index.self, from: data)
    }
}

import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

/// One entry as the `entries:` line lists it: every overview attribute and every
/// secret value (SPEC.md §15.1: secret values as ``SecretValue``; attachment data and
/// unknown field values in hex).
struct VectorEntry: Codable, Equatable, Sendable {
    struct Pair: Codable, Equatable, Sendable { var name: String; var value: String }
    struct SecretPair: Codable, Equatable, Sendable { var name: String; var value: SecretValue }
    struct History: Codable, Equatable, Sendable { var password: SecretValue; var replaced: Int64 }
    struct Blob: Codable, Equatable, Sendable { var name: String; var data: String }
    struct Unknown: Codable, Equatable, Sendable { var tag: UInt16; var value: String }
    struct Secrets: Codable, Equatable, Sendable {
        var password: SecretValue?
        var notes: SecretValue?
        var fields: [SecretPair]
        var history: [History]
        var attachments: [Blob]
        var unknown: [Unknown]?
    }

    var id: String
    var revision: UInt64
    /// Absent only for a format-2 tombstone, which keeps no attributes (SPEC.md §7.6), as are
    /// the lists, the favourite flag and the secrets below.
    var kind: String?
    var label: String?
    var service: String?
    var account: String?
    var server: String?
    var `protocol`: String?
    var port: UInt16?
    var path: String?
    var comment: String?
    var urls: [String]?
    var tags: [String]?
    var favorite: Bool?
    var fields: [Pair]?
    /// Milliseconds since 1970-01-01T00:00:00Z.
    var created: Int64
    var modified: Int64
    var unknown: [Unknown]?
    var secrets: Secrets?
    /// True for a deleted item's tombstone (SPEC.md §17.5); omitted otherwise.
    var deleted: Bool?

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
            password: s.password.map(SecretValue.init),
            notes: s.notes.map(SecretValue.init),
            fields: s.fields.map { SecretPair(name: $0.name, value: SecretValue($0.value)) },
            history: s.passwordHistory.map { History(password: SecretValue($0.password), replaced: $0.replaced.millisecondsSince1970) },
            attachments: s.attachments.map { Blob(name: $0.name, data: Hex.encode($0.data.testBytes)) },
            unknown: s.preservedFields.isEmpty ? nil : s.preservedFields.map { Unknown(tag: $0.tag, value: Hex.encode($0.value.testBytes)) })
    }


    /// A format-2 tombstone: its id, revision and dates, and `deleted: true` (SPEC.md §15.1).
    static func tombstone(id: ItemID, revision: UInt64, created: Int64, modified: Int64) -> VectorEntry {
        var entry = VectorEntry(id: id, revision: revision, attributes: ItemAttributes(kind: .genericPassword, created: Date()),
                                secrets: ItemSecrets())
        entry.kind = nil
        entry.urls = nil
        entry.tags = nil
        entry.favorite = nil
        entry.fields = nil
        entry.secrets = nil
        entry.created = created
        entry.modified = modified
        entry.deleted = true
        return entry
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

/// A secret value in the vectors' JSON (SPEC.md §15.1): a string when its bytes are UTF-8,
/// else `{"hex": "<lowercase hex>"}` (secrets need not be text).
enum SecretValue: Codable, Equatable, Sendable {
    case text(String)
    case hex(String)

    init(_ bytes: SecureBytes) {
        if let text = bytes.unsafeStringCopy() { self = .text(text) } else { self = .hex(Hex.encode(bytes.testBytes)) }
    }

    private struct HexForm: Codable { var hex: String }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .hex(try container.decode(HexForm.self).hex)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .hex(let hex): try container.encode(HexForm(hex: hex))
        }
    }
}

import Foundation
import CofferCrypto
@testable import CofferFormat

/// One entry as the `entries:` line lists it: every overview attribute and every
/// secret value (SPEC.md §15.1: secret values as ``SecretValue``; attachment data and
/// unknown field values in hex).
package struct VectorEntry: Codable, Equatable, Sendable {
    package struct Pair: Codable, Equatable, Sendable { var name: String; var value: String }
    package struct SecretPair: Codable, Equatable, Sendable { var name: String; var value: SecretValue }
    package struct History: Codable, Equatable, Sendable { var password: SecretValue; var replaced: Int64 }
    package struct Blob: Codable, Equatable, Sendable { var name: String; var data: String }
    package struct Unknown: Codable, Equatable, Sendable { var tag: UInt16; var value: String }
    package struct Secrets: Codable, Equatable, Sendable {
        package var password: SecretValue?
        package var notes: SecretValue?
        package var fields: [SecretPair]
        package var history: [History]
        package var attachments: [Blob]
        package var unknown: [Unknown]?
    }

    package var id: String
    package var revision: UInt64
    /// Absent only for a format-2 tombstone, which keeps no attributes (SPEC.md §7.6), as are
    /// the lists, the favourite flag and the secrets below.
    package var kind: String?
    package var label: String?
    package var service: String?
    package var account: String?
    package var server: String?
    package var `protocol`: String?
    package var port: UInt16?
    package var path: String?
    package var comment: String?
    package var urls: [String]?
    package var tags: [String]?
    package var favorite: Bool?
    package var fields: [Pair]?
    /// Milliseconds since 1970-01-01T00:00:00Z.
    package var created: Int64
    package var modified: Int64
    /// The expiry date (overview tag 17, SPEC.md §7.2), milliseconds since 1970; omitted when none.
    package var expires: Int64?
    package var unknown: [Unknown]?
    package var secrets: Secrets?
    /// True for a deleted item's tombstone (SPEC.md §17.5); omitted otherwise.
    package var deleted: Bool?

    package init(id: ItemID, revision: UInt64, attributes a: ItemAttributes, secrets s: ItemSecrets) {
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
        expires = a.expires?.millisecondsSince1970
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
    package static func tombstone(id: ItemID, revision: UInt64, created: Int64, modified: Int64) -> VectorEntry {
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

    package static func encodeLine(_ entries: [VectorEntry]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self)
    }

    package static func decodeLine(_ line: String) throws -> [VectorEntry] {
        try JSONDecoder().decode([VectorEntry].self, from: Data(line.utf8))
    }
}

/// A secret value in the vectors' JSON (SPEC.md §15.1): a string when its bytes are UTF-8,
/// else `{"hex": "<lowercase hex>"}` (secrets need not be text).
package enum SecretValue: Codable, Equatable, Sendable {
    case text(String)
    case hex(String)

    package init(_ bytes: SecureBytes) {
        if let text = bytes.unsafeStringCopy() { self = .text(text) } else { self = .hex(Hex.encode(bytes.testBytes)) }
    }

    private struct HexForm: Codable { var hex: String }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else {
            self = .hex(try container.decode(HexForm.self).hex)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .hex(let hex): try container.encode(HexForm(hex: hex))
        }
    }
}

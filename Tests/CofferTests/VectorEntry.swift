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

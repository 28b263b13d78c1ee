import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// Reads Coffer's own JSON export (``CofferJSONExporter``) back, field for field.
///
/// The file must say `"format": "coffer-export"` and `"version": 1`. Missing optional
/// members read as empty; a member of the wrong type is a malformed file, naming its line.
enum CofferJSONImporter {
    static func read(_ bytes: UnsafeRawBufferPointer, into session: ImportSession) throws(CofferError) {
        let json = JSONReader(bytes, formatName: ImportFormat.cofferJSON.displayName)
        let root = try json.parse()
        guard root.isObject else { throw json.malformed(at: root.offset, "the file is not a JSON object") }
        guard try json.string(root["format"], "format") == CofferJSONExporter.formatName else {
            throw json.malformed(at: root.offset, "not a Coffer export (\"format\" is not \"\(CofferJSONExporter.formatName)\")")
        }
        let version = try json.integer(root["version"], "version")
        guard version == Int64(CofferJSONExporter.version) else {
            throw json.malformed(at: root["version"]?.offset ?? root.offset,
                                 "unsupported Coffer export version \(version.map(String.init) ?? "none") (this Coffer reads version 1)")
        }
        guard let items = try json.array(root["items"], "items") else { throw json.malformed(at: root.offset, "no \"items\" array") }
        for (index, node) in items.enumerated() {
            let location = "line \(json.line(of: node.offset)), items[\(index)]"
            guard node.isObject else { throw json.malformed(at: node.offset, "items[\(index)] is not an object") }
            let kindText = try json.string(node["kind"], "kind") ?? ""
            guard let kind = ItemKind(rawValue: kindText) else {
                session.unreadable(location, "unknown item kind \"\(kindText)\"")
                continue
            }
            var a = ItemAttributes(kind: kind)
            a.label = try json.string(node["label"], "label")
            a.service = try json.string(node["service"], "service")
            a.account = try json.string(node["account"], "account")
            a.server = try json.string(node["server"], "server")
            a.protocol = try json.string(node["protocol"], "protocol")
            if let port = try json.integer(node["port"], "port") {
                guard let value = UInt16(exactly: port) else { throw json.malformed(at: node.offset, "port \(port) is out of range") }
                a.port = value
            }
            a.path = try json.string(node["path"], "path")
            a.comment = try json.string(node["comment"], "comment")
            a.urls = try strings(json, node["urls"], "urls")
            a.tags = try strings(json, node["tags"], "tags")
            a.isFavorite = try json.boolean(node["favorite"], "favorite") ?? false
            for field in try json.array(node["fields"], "fields") ?? [] {
                a.fields.append(CustomField(name: try json.string(field["name"], "a field's name") ?? "",
                                            value: try json.string(field["value"], "a field's value") ?? ""))
            }
            a.created = try date(json, node["created"], "created") ?? session.now.roundedToMilliseconds
            a.modified = try date(json, node["modified"], "modified") ?? a.created
            a.expires = try date(json, node["expires"], "expires")

            var s = ItemSecrets()
            s.password = try secret(json, node["password"], "password")
            s.notes = try secret(json, node["notes"], "notes")
            for field in try json.array(node["secretFields"], "secretFields") ?? [] {
                let name = try json.string(field["name"], "a secret field's name") ?? ""
                s.fields.append(SecretField(name: name, value: try .orEmpty(secret(json, field["value"], "a secret field's value"))))
            }
            for entry in try json.array(node["passwordHistory"], "passwordHistory") ?? [] {
                guard let password = try secret(json, entry["password"], "an earlier password") else { continue }
                s.passwordHistory.append(PasswordHistoryEntry(password: password,
                                                              replaced: try date(json, entry["replaced"], "replaced") ?? a.modified))
            }
            for attachment in try json.array(node["attachments"], "attachments") ?? [] {
                let name = try json.string(attachment["name"], "an attachment's name") ?? ""
                let data = try SecureBytes.orEmpty(base64(json, attachment["data"], "an attachment's data"))
                s.attachments.append(Attachment(name: name, data: data))
            }
            try session.add(ImportCandidate(attributes: a, secrets: s, location: location))
        }
    }

    private static func strings(_ json: JSONReader, _ node: JSONReader.Node?, _ what: String) throws(CofferError) -> [String] {
        var result: [String] = []
        for element in try json.array(node, what) ?? [] {
            guard let text = try json.string(element, what) else { throw json.malformed(at: element.offset, "\(what) holds a null") }
            result.append(text)
        }
        return result
    }

    private static func date(_ json: JSONReader, _ node: JSONReader.Node?, _ what: String) throws(CofferError) -> Date? {
        guard let text = try json.string(node, what) else { return nil }
        guard let date = TransferDate.parse(text) else { throw json.malformed(at: node?.offset ?? 0, "\(what) is not an ISO 8601 date: \(text)") }
        return date
    }

    /// A secret: a JSON string, or `{"base64": "…"}` for bytes that are not UTF-8. An
    /// empty string is an empty secret (not nil), so it round-trips.
    private static func secret(_ json: JSONReader, _ node: JSONReader.Node?, _ what: String) throws(CofferError) -> SecureBytes? {
        guard let node, !node.isNull else { return nil }
        if node.isObject { return try base64(json, node["base64"], what) }
        return try .orEmpty(json.secret(node, what))
    }

    /// Decodes a base64 string member with libsodium straight into guarded memory.
    private static func base64(_ json: JSONReader, _ node: JSONReader.Node?, _ what: String) throws(CofferError) -> SecureBytes? {
        guard let node, let text = try json.secret(node, what) else { return nil }
        guard let data = try Base64.decode(text) else { throw json.malformed(at: node.offset, "\(what) is not valid base64") }
        return data
    }
}

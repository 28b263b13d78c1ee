import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// Bitwarden's unencrypted JSON export (`bw export --format json`, or the web vault's
/// "File format: .json").
///
/// | Bitwarden | Coffer |
/// | --- | --- |
/// | login with a URI that has a host | internet password: server, protocol, port, path from the first such URI |
/// | login without one | generic password, service = name |
/// | `name`, `login.username`, `login.password`, `notes` | label, account, password, secret notes |
/// | every `login.uris[].uri` | urls |
/// | `login.totp` | secret field `otp` (a bare secret becomes an otpauth URI) |
/// | `fields`: text, boolean / hidden / linked | custom field / secret field / custom field "linked to …" |
/// | `folderId` (personal) or `collectionIds` (organisation) | tags (the folder or collection name) |
/// | `favorite`, `creationDate`, `revisionDate` | isFavorite, created, modified |
/// | `passwordHistory` | password history |
/// | secure note | secure note |
/// | card, identity, SSH key | secure note holding their fields (card number and code, an identity's SSN, passport and licence numbers, an SSH private key as secret fields; the rest, such as city and country, plain) |
///
/// Items in the trash (`deletedDate` set) are skipped and reported; passkeys
/// (`fido2Credentials`) cannot be moved and are reported as warnings.
enum BitwardenJSONImporter {
    static func read(_ bytes: UnsafeRawBufferPointer, into session: ImportSession) throws(CofferError) {
        let json = JSONReader(bytes, formatName: ImportFormat.bitwardenJSON.displayName)
        let root = try json.parse()
        guard root.isObject else { throw json.malformed(at: root.offset, "the file is not a JSON object") }
        if try json.boolean(root["encrypted"], "encrypted") == true || root["passwordProtected"]?.bool == true {
            throw .unsupportedImport("this Bitwarden export is encrypted; export again choosing the unencrypted .json format")
        }
        guard let items = try json.array(root["items"], "items") else {
            throw json.malformed(at: root.offset, "no \"items\" array: is this a Bitwarden JSON export?")
        }
        var groups: [String: String] = [:]
        for key in ["folders", "collections"] {
            for node in try json.array(root[key], key) ?? [] {
                if let id = try json.string(node["id"], "\(key) id"), let name = try json.nonEmptyString(node["name"], "\(key) name") {
                    groups[id] = name
                }
            }
        }
        for (index, node) in items.enumerated() {
            guard node.isObject else { throw json.malformed(at: node.offset, "items[\(index)] is not an object") }
            let location = "line \(json.line(of: node.offset)), items[\(index)]"
            let name = try json.nonEmptyString(node["name"], "name")
            if try json.string(node["deletedDate"], "deletedDate") != nil {
                session.skip(name ?? "untitled", location, "in Bitwarden's trash")
                continue
            }
            guard let candidate = try item(node, json: json, groups: groups, name: name, location: location, session: session) else { continue }
            try session.add(candidate)
        }
    }

    private static func item(_ node: JSONReader.Node, json: JSONReader, groups: [String: String], name: String?,
                             location: String, session: ImportSession) throws(CofferError) -> ImportCandidate? {
        let type = try json.integer(node["type"], "type")
        var secrets = ItemSecrets(notes: try json.secret(node["notes"], "notes"))
        var attributes: ItemAttributes
        var warnings: [String] = []
        switch type {
        case 1:
            let login = node["login"]
            var urls: [String] = []
            for uri in try json.array(login?["uris"], "login.uris") ?? [] {
                if let text = try json.nonEmptyString(uri["uri"], "login.uris[].uri") { urls.append(text) }
            }
            let username = try json.nonEmptyString(login?["username"], "login.username")
            guard let mapped = ImportMapping.login(title: name, username: username, urls: urls) else {
                session.unreadable(location, "the login has no name and no URI to name it by")
                return nil
            }
            attributes = mapped
            secrets.password = try json.secret(login?["password"], "login.password")
            if let totp = try json.secret(login?["totp"], "login.totp") {
                let (field, warning) = try ImportMapping.otpField(totp, issuer: name, account: username)
                secrets.fields.append(field)
                if let warning { warnings.append(warning) }
            }
            if let passkeys = try json.array(login?["fido2Credentials"], "login.fido2Credentials"), !passkeys.isEmpty {
                warnings.append("\(passkeys.count) passkey(s) of \(name ?? "this login") cannot be moved and were left out")
            }
        case 2:
            attributes = .secureNote(title: name ?? "untitled")
        case 3:
            attributes = .secureNote(title: name ?? "untitled")
            try copyFields(node["card"], json: json, secret: ["number", "code"], into: &attributes, &secrets, prefix: "card")
        case 4:
            attributes = .secureNote(title: name ?? "untitled")
            // The identifying numbers (SSN, passport, licence) are secret fields; name,
            // address, email and phone are plain fields, searchable like Bitwarden's.
            try copyFields(node["identity"], json: json, secret: identitySecrets, into: &attributes, &secrets, prefix: "identity")
        case 5:
            attributes = .secureNote(title: name ?? "untitled")
            try copyFields(node["sshKey"], json: json, secret: ["privateKey"], into: &attributes, &secrets, prefix: "sshKey")
        default:
            session.unreadable(location, "unknown Bitwarden item type \(type.map(String.init) ?? "none")")
            return nil
        }
        for field in try json.array(node["fields"], "fields") ?? [] {
            let fieldName = try json.string(field["name"], "fields[].name") ?? ""
            switch try json.integer(field["type"], "fields[].type") ?? 0 {
            case 1:
                secrets.fields.append(SecretField(name: fieldName, value: try .orEmpty(json.secret(field["value"], "fields[].value"))))
            case 3:
                let linked = try json.integer(field["linkedId"], "fields[].linkedId")
                attributes.fields.append(CustomField(name: fieldName, value: "linked to " + linkedName(linked)))
            default:
                attributes.fields.append(CustomField(name: fieldName, value: try json.scalarText(field["value"], "fields[].value") ?? ""))
            }
        }
        var tags: [String] = []
        if let folder = try json.string(node["folderId"], "folderId"), let folderName = groups[folder] { tags.append(folderName) }
        for id in try json.array(node["collectionIds"], "collectionIds") ?? [] {
            if let id = try json.string(id, "collectionIds[]"), let collection = groups[id] { tags.append(collection) }
        }
        attributes.tags = ImportMapping.unique(tags)
        attributes.isFavorite = try json.boolean(node["favorite"], "favorite") ?? false
        let created = try date(json, node["creationDate"], "creationDate")
        let modified = try date(json, node["revisionDate"], "revisionDate")
        attributes.created = (created ?? modified ?? session.now).roundedToMilliseconds
        attributes.modified = (modified ?? attributes.created).roundedToMilliseconds

        var history: [PasswordHistoryEntry] = []
        for entry in try json.array(node["passwordHistory"], "passwordHistory") ?? [] {
            guard let password = try json.secret(entry["password"], "passwordHistory[].password") else { continue }
            let replaced = try date(json, entry["lastUsedDate"], "passwordHistory[].lastUsedDate") ?? attributes.modified
            history.append(PasswordHistoryEntry(password: password, replaced: replaced))
        }
        secrets.passwordHistory = history.sorted { $0.replaced > $1.replaced }
        return ImportCandidate(attributes: attributes, secrets: secrets, location: location, warnings: warnings)
    }

    /// The members of a Bitwarden identity that are secret fields; the rest are plain.
    static let identitySecrets: Set<String> = ["ssn", "passportNumber", "licenseNumber"]

    /// Copies the members of a card, identity or SSH key into fields: those named in
    /// `secret` (or all, when `secret` is nil) as secret fields, the rest as custom fields.
    private static func copyFields(_ object: JSONReader.Node?, json: JSONReader, secret: Set<String>?,
                                   into attributes: inout ItemAttributes, _ secrets: inout ItemSecrets, prefix: String) throws(CofferError) {
        guard let object, case .object(let members) = object.value else { return }
        for (key, value) in members where !value.isNull {
            if secret == nil || secret?.contains(key) == true {
                guard case .string = value.value, let bytes = try json.secret(value, "\(prefix).\(key)") else { continue }
                secrets.fields.append(SecretField(name: key, value: bytes))
            } else if let text = try json.scalarText(value, "\(prefix).\(key)"), !text.isEmpty {
                attributes.fields.append(CustomField(name: key, value: text))
            }
        }
    }

    private static func linkedName(_ id: Int64?) -> String {
        switch id {
        case 100: return "username"
        case 101: return "password"
        default: return id.map { "field \($0)" } ?? "nothing"
        }
    }

    private static func date(_ json: JSONReader, _ node: JSONReader.Node?, _ what: String) throws(CofferError) -> Date? {
        guard let text = try json.string(node, what), !text.isEmpty else { return nil }
        guard let date = TransferDate.parse(text) else { throw json.malformed(at: node?.offset ?? 0, "\(what) is not an ISO 8601 date: \(text)") }
        return date
    }
}

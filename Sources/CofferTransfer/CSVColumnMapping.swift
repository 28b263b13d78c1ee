import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// Turns CSV rows into items once each header column has a meaning. Shared by the
/// browser CSV and KeePassXC CSV importers, which differ only in their header tables
/// and in what a group column means.
struct CSVColumnMapping {
    enum Target: Hashable {
        case name, url, username, password, notes, otp, tags, folder, favorite, created, modified
        case kind, bitwardenType, service, server, scheme, port, path, comment
        /// KeePassXC's group path, whose first component is the root group.
        case keepassGroup
        /// Bitwarden CSV's `fields`: one `name: value` per line, kept secret.
        case bitwardenFields
        case customField(String)
        case secretField(String)
        case ignored

        /// The name the report gives it.
        var reportName: String {
            switch self {
            case .name: return "label"
            case .url: return "urls"
            case .username: return "account"
            case .password: return "password"
            case .notes: return "notes"
            case .otp: return "otp"
            case .tags: return "tags"
            case .folder, .keepassGroup: return "tags (group)"
            case .favorite: return "isFavorite"
            case .created: return "created"
            case .modified: return "modified"
            case .kind: return "kind"
            case .bitwardenType: return "kind (login or note)"
            case .service: return "service"
            case .server: return "server"
            case .scheme: return "protocol"
            case .port: return "port"
            case .path: return "path"
            case .comment: return "comment"
            case .bitwardenFields: return "secret fields"
            case .customField(let name): return "field:" + name
            case .secretField(let name): return "secret-field:" + name
            case .ignored: return "ignored"
            }
        }
    }

    let reader: CSVReader
    let headers: [String]
    let targets: [Target]

    /// The report's list of columns.
    var reportColumns: [ImportReport.Column] {
        zip(headers, targets).map { ImportReport.Column(column: $0, field: $1.reportName) }
    }

    /// A header reduced for matching: lowercase, without spaces, `_`, `-`.
    static func normalised(_ header: String) -> String {
        header.lowercased().filter { !" _-".contains($0) }
    }

    /// Reads every data row into `session`.
    func importRows(_ rows: ArraySlice<CSVReader.Record>, into session: ImportSession) throws(CofferError) {
        for record in rows {
            let location = "line \(record.line)"
            guard record.fields.count <= targets.count else {
                session.unreadable(location, "\(record.fields.count) fields where the header has \(targets.count) (a quote may be missing)")
                continue
            }
            if let candidate = try item(record, location: location, session: session) { try session.add(candidate) }
        }
    }

    private func item(_ record: CSVReader.Record, location: String, session: ImportSession) throws(CofferError) -> ImportCandidate? {
        var text: [Target: String] = [:]
        var urls: [String] = []
        var tags: [String] = []
        var customFields: [CustomField] = []
        var secretFields: [SecretField] = []
        var password: SecureBytes?, notes: SecureBytes?, otp: SecureBytes?
        var warnings: [String] = []
        var anyValue = false

        for (index, field) in record.fields.enumerated() where !field.isEmpty {
            anyValue = true
            let target = targets[index]
            switch target {
            case .password: password = try reader.secret(field)
            case .notes: notes = try reader.secret(field)
            case .otp: otp = try reader.secret(field)
            case .secretField(let name):
                if let value = try reader.secret(field) { secretFields.append(SecretField(name: name, value: value)) }
            case .bitwardenFields:
                secretFields += try bitwardenFields(field)
            case .customField(let name):
                customFields.append(CustomField(name: name, value: try reader.string(field)))
            case .url:
                let value = try reader.string(field)
                urls += value.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            case .tags:
                tags += ImportMapping.tags(try reader.string(field))
            case .folder:
                let value = try reader.string(field).trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { tags.append(value) }
            case .keepassGroup:
                // "Root/Work/Email": the first component is the root group, not a tag.
                let parts = try reader.string(field).split(separator: "/").map(String.init)
                if parts.count > 1, parts[1] == "Recycle Bin" {
                    var title: String?
                    if let column = targets.firstIndex(of: .name), column < record.fields.count {
                        title = try reader.string(record.fields[column])
                    }
                    session.skip(ImportMapping.nonBlank(title) ?? "untitled", location, "in KeePassXC's Recycle Bin")
                    return nil
                }
                if parts.count > 1 { tags.append(parts.dropFirst().joined(separator: "/")) }
            case .ignored:
                continue
            default:
                text[target] = try reader.string(field)
            }
        }
        guard anyValue else {
            session.unreadable(location, "the row is empty")
            return nil
        }

        let title = ImportMapping.nonBlank(text[.name])
        let username = ImportMapping.nonBlank(text[.username])
        let kindText = text[.kind].map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let declaredKind = kindText.flatMap(ItemKind.init(rawValue:))
        if let kindText, !kindText.isEmpty, declaredKind == nil {
            session.unreadable(location, "unknown kind \"\(kindText)\"")
            return nil
        }
        let isNote = declaredKind == .secureNote
            || text[.bitwardenType].map { $0.lowercased() == "note" } == true
            || (declaredKind == nil && username == nil && password == nil && urls.isEmpty && otp == nil && notes != nil)

        var attributes: ItemAttributes
        if isNote {
            attributes = .secureNote(title: title ?? "untitled")
            attributes.urls = ImportMapping.unique(urls)
        } else if declaredKind == .genericPassword, let service = ImportMapping.nonBlank(text[.service]) {
            attributes = ItemAttributes(kind: .genericPassword, label: title, service: service, account: username)
            attributes.urls = ImportMapping.unique(urls)
        } else if declaredKind == .internetPassword, let server = ImportMapping.nonBlank(text[.server]) {
            var port: UInt16?
            if let portText = ImportMapping.nonBlank(text[.port]) {
                guard let value = UInt16(portText.trimmingCharacters(in: .whitespaces)) else {
                    session.unreadable(location, "the port \(portText) is not a number from 0 to 65535")
                    return nil
                }
                port = value
            }
            attributes = ItemAttributes(kind: .internetPassword, label: title, account: username, server: server,
                                        protocol: ImportMapping.nonBlank(text[.scheme]), port: port,
                                        path: ImportMapping.nonBlank(text[.path]))
            attributes.urls = ImportMapping.unique(urls)
        } else if let login = ImportMapping.login(title: title, username: username, urls: urls) {
            attributes = login
        } else {
            session.unreadable(location, "no name or URL to name the item by")
            return nil
        }
        attributes.comment = ImportMapping.nonBlank(text[.comment])
        attributes.tags = ImportMapping.unique(tags)
        attributes.fields = customFields
        if let flag = text[.favorite]?.trimmingCharacters(in: .whitespaces).lowercased() {
            attributes.isFavorite = ["1", "true", "yes", "y", "x", "favorite", "favourite"].contains(flag)
        }
        let created = try date(text[.created], "created", location: location)
        let modified = try date(text[.modified], "modified", location: location)
        attributes.created = (created ?? modified ?? session.now).roundedToMilliseconds
        attributes.modified = (modified ?? attributes.created).roundedToMilliseconds

        var secrets = ItemSecrets(password: password, notes: notes, fields: secretFields)
        if let otp {
            let (field, warning) = try ImportMapping.otpField(otp, issuer: title ?? attributes.server, account: username)
            secrets.fields.insert(field, at: 0)
            if let warning { warnings.append(warning) }
        }
        return ImportCandidate(attributes: attributes, secrets: secrets, location: location, warnings: warnings)
    }

    /// ISO 8601, or a Unix time in seconds or (Firefox) milliseconds.
    private func date(_ text: String?, _ what: String, location: String) throws(CofferError) -> Date? {
        guard let text = ImportMapping.nonBlank(text)?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let number = Int64(text) {
            return number > 100_000_000_000 ? Date(millisecondsSince1970: number) : Date(millisecondsSince1970: number * 1000)
        }
        guard let date = TransferDate.parse(text) else {
            throw .malformedImport("\(reader.formatName) \(location): \(what) is not a date: \(text)")
        }
        return date
    }

    /// Bitwarden CSV `fields`: lines of `name: value`, each kept as a secret field.
    private func bitwardenFields(_ field: CSVReader.Field) throws(CofferError) -> [SecretField] {
        guard let all = try reader.secret(field) else { return [] }
        var result: [SecretField] = []
        try all.withUnsafeBytes { (bytes) throws(CofferError) in
            var lineStart = 0
            while lineStart < bytes.count {
                var lineEnd = lineStart
                while lineEnd < bytes.count, bytes[lineEnd] != 10 { lineEnd += 1 }
                var end = lineEnd
                if end > lineStart, bytes[end - 1] == 13 { end -= 1 }
                let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<end])
                if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                    let name = String(decoding: line[..<colon], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                    var valueStart = colon + 1
                    if valueStart < line.count, line[valueStart] == 0x20 { valueStart += 1 }
                    let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
                    let secret = try SecureBytes(count: value.count) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
                        if !value.isEmpty { out.copyMemory(from: value) }
                    }
                    result.append(SecretField(name: name, value: secret))
                }
                lineStart = lineEnd + 1
            }
        }
        return result
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
import Foundation

/// The KeePass XML that `keepassxc-cli export --format xml` (and KeePassXC's "Export to
/// XML") writes: `<KeePassFile><Meta>…</Meta><Root><Group>…` with `<Entry>` elements.
///
/// | KeePassXC | Coffer |
/// | --- | --- |
/// | Title | label |
/// | UserName | account |
/// | URL with a host | internet password: server, protocol, port, path; the URL in urls |
/// | no such URL | generic password, service = Title (or the URL text); secure note when the entry has no user name, password, URL or OTP |
/// | Password | password |
/// | Notes | secret notes |
/// | `otp` attribute | secret field `otp` (a bare base32 secret becomes an otpauth URI) |
/// | other attributes | custom fields; protected ones (`ProtectInMemory="True"`) secret fields |
/// | group path below the root group, e.g. `Work/Email` | one tag `Work/Email` |
/// | Tags (`,` or `;` separated) | tags |
/// | Times: CreationTime, LastModificationTime | created, modified (ISO 8601 or KDBX 4 base64) |
/// | Times: Expires + ExpiryTime | expiry date (``ItemAttributes/expires``), when `Expires` is `True` |
/// | History entries | password history (each earlier password, replaced at the next version's time) |
/// | attachments whose data is in the XML (KDBX 3.1, uncompressed) | attachments |
///
/// Entries in the Recycle Bin are skipped and reported. Lost: icons, colours, auto-type,
/// entry UUIDs, group notes; attachments of KDBX 4 databases (their data is not in
/// the XML export) and compressed ones, each reported as a warning.
enum KeePassXCXMLImporter {
    static let standardKeys: Set<String> = ["Title", "UserName", "Password", "URL", "Notes"]

    static func read(_ bytes: UnsafeRawBufferPointer, into session: ImportSession) throws(CofferError) {
        let formatName = ImportFormat.keepassxcXML.displayName
        let root = try XMLTree.parse(bytes, formatName: formatName)
        defer { root.wipe() }
        guard root.name == "KeePassFile" else {
            throw .malformedImport("\(formatName) line \(root.line): the document is <\(root.name)>, not <KeePassFile>: is this a KeePassXC XML export?")
        }
        guard let rootElement = root.child("Root"), let top = rootElement.child("Group") else {
            throw .malformedImport("\(formatName) line \(root.line): <KeePassFile> has no <Root><Group>")
        }
        let meta = root.child("Meta")
        let recycleBin = meta?.child("RecycleBinEnabled")?.text != "False" ? meta?.child("RecycleBinUUID")?.text : nil
        var binaries: [String: XMLTreeNode] = [:]
        for binary in meta?.child("Binaries")?.children("Binary") ?? [] {
            if let id = binary.attributes["ID"] { binaries[id] = binary }
        }
        let context = Context(session: session, recycleBin: recycleBin, binaries: binaries, formatName: formatName)
        // The top group is the database itself: its name is not a tag.
        try walk(top, path: [], inRecycleBin: top.child("UUID")?.text == recycleBin && recycleBin != nil, context)
    }

    private struct Context {
        let session: ImportSession
        let recycleBin: String?
        let binaries: [String: XMLTreeNode]
        let formatName: String
    }

    private static func walk(_ group: XMLTreeNode, path: [String], inRecycleBin: Bool, _ context: Context) throws(CofferError) {
        let groupPath = path.joined(separator: "/")
        for entry in group.children("Entry") {
            let location = "line \(entry.line), entry in " + (groupPath.isEmpty ? "the root group" : "group \(groupPath)")
            if inRecycleBin {
                let title = ImportMapping.nonBlank(strings(of: entry)["Title"]?.text)
                context.session.skip(title ?? "untitled", location, "in KeePassXC's Recycle Bin")
                continue
            }
            if let candidate = try item(entry, groupPath: groupPath, location: location, context) {
                try context.session.add(candidate)
            }
        }
        for child in group.children("Group") {
            let name = child.child("Name")?.text ?? ""
            let isBin = inRecycleBin || (context.recycleBin != nil && child.child("UUID")?.text == context.recycleBin)
            try walk(child, path: path + [name], inRecycleBin: isBin, context)
        }
    }

    /// The entry's `<String>` elements by key: their `<Value>` elements.
    private static func strings(of entry: XMLTreeNode) -> [String: XMLTreeNode] {
        var result: [String: XMLTreeNode] = [:]
        for string in entry.children("String") {
            guard let key = string.child("Key")?.text, let value = string.child("Value") else { continue }
            result[key] = value
        }
        return result
    }

    private static func item(_ entry: XMLTreeNode, groupPath: String, location: String, _ context: Context) throws(CofferError) -> ImportCandidate? {
        let values = strings(of: entry)
        let title = ImportMapping.nonBlank(values["Title"]?.text)
        let username = ImportMapping.nonBlank(values["UserName"]?.text)
        let url = ImportMapping.nonBlank(values["URL"]?.text)?.trimmingCharacters(in: .whitespacesAndNewlines)
        let password = try values["Password"]?.secret()
        let notes = try values["Notes"]?.secret()
        var warnings: [String] = []

        var secretFields: [SecretField] = []
        var customFields: [CustomField] = []
        var otp: SecureBytes?
        // Attributes in document order (KeePassXC writes them sorted by key).
        for string in entry.children("String") {
            guard let key = string.child("Key")?.text, !standardKeys.contains(key), let value = string.child("Value") else { continue }
            if key == TOTP.fieldName {
                otp = try value.secret()
                continue
            }
            let protected = value.attributes["ProtectInMemory"] == "True" || value.attributes["Protected"] == "True"
            if protected {
                secretFields.append(SecretField(name: key, value: try .orEmpty(value.secret())))
            } else {
                customFields.append(CustomField(name: key, value: value.text))
            }
        }

        var attributes: ItemAttributes
        if username == nil && password == nil && url == nil && otp == nil {
            guard title != nil || notes != nil || !secretFields.isEmpty || !customFields.isEmpty else {
                context.session.unreadable(location, "the entry is empty (no title, user name, password, URL or notes)")
                return nil
            }
            attributes = .secureNote(title: title ?? "untitled")
        } else if let login = ImportMapping.login(title: title, username: username, urls: url.map { [$0] } ?? []) {
            attributes = login
        } else {
            attributes = ItemAttributes(kind: .genericPassword, label: nil, service: "untitled", account: username)
            warnings.append("the entry has no title or URL; it was imported with the service \"untitled\"")
        }
        attributes.fields = customFields
        attributes.tags = ImportMapping.unique(ImportMapping.tags(entry.child("Tags")?.text) + (groupPath.isEmpty ? [] : [groupPath]))

        let times = entry.child("Times")
        let created = try date(times?.child("CreationTime"), context)
        let modified = try date(times?.child("LastModificationTime"), context)
        attributes.created = (created ?? modified ?? context.session.now).roundedToMilliseconds
        attributes.modified = (modified ?? attributes.created).roundedToMilliseconds
        if times?.child("Expires")?.text == "True", let expiry = try date(times?.child("ExpiryTime"), context) {
            attributes.expires = expiry
        }

        var secrets = ItemSecrets(password: password, notes: notes)
        if let otp {
            let (field, warning) = try ImportMapping.otpField(otp, issuer: title, account: username)
            secrets.fields.append(field)
            if let warning { warnings.append(warning) }
        }
        secrets.fields += secretFields
        secrets.passwordHistory = try history(entry, current: password, modified: attributes.modified, context)
        for binary in entry.children("Binary") {
            let name = binary.child("Key")?.text ?? "attachment"
            if let attachment = try attachment(binary, name: name, context) {
                secrets.attachments.append(attachment)
            } else {
                warnings.append("attachment \"\(name)\" was not imported: its data is not in the XML export (KDBX 4 keeps it outside the XML) or is compressed; move it by hand")
            }
        }
        return ImportCandidate(attributes: attributes, secrets: secrets, location: location, warnings: warnings)
    }

    /// Earlier passwords, newest first. Each history version whose password differs from
    /// the next version's gives one entry, replaced at the next version's modification time.
    private static func history(_ entry: XMLTreeNode, current: SecureBytes?, modified: Date,
                                _ context: Context) throws(CofferError) -> [PasswordHistoryEntry] {
        var versions: [(password: SecureBytes?, time: Date, order: Int)] = []
        for (index, old) in (entry.child("History")?.children("Entry") ?? []).enumerated() {
            let password = try strings(of: old)["Password"]?.secret()
            let time = try date(old.child("Times")?.child("LastModificationTime"), context) ?? modified
            versions.append((password, time, index))
        }
        guard !versions.isEmpty else { return [] }
        versions.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        versions.append((current, modified, Int.max))
        var result: [PasswordHistoryEntry] = []
        for index in 0..<(versions.count - 1) {
            guard let old = versions[index].password, old.count > 0, old != versions[index + 1].password else { continue }
            result.append(PasswordHistoryEntry(password: old, replaced: versions[index + 1].time))
        }
        return result.reversed()
    }

    /// An attachment whose data the XML carries: `<Value Ref="id"/>` pointing into
    /// `<Meta><Binaries>`, or inline base64. Nil when the data is missing or compressed.
    private static func attachment(_ binary: XMLTreeNode, name: String, _ context: Context) throws(CofferError) -> Attachment? {
        guard let value = binary.child("Value") else { return nil }
        let source: XMLTreeNode
        if let ref = value.attributes["Ref"] {
            guard let stored = context.binaries[ref] else { return nil }
            source = stored
        } else {
            source = value
        }
        guard source.attributes["Compressed"] != "True" else { return nil }
        guard let encoded = try source.secret() else { return Attachment(name: name, data: try SecureBytes(copying: [])) }
        guard let data = try Base64.decode(encoded) else {
            throw .malformedImport("\(context.formatName) line \(source.line): attachment \"\(name)\" is not valid base64")
        }
        return Attachment(name: name, data: data)
    }

    private static func date(_ node: XMLTreeNode?, _ context: Context) throws(CofferError) -> Date? {
        guard let node, node.hasText else { return nil }
        let text = node.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        if let date = TransferDate.parse(text) ?? TransferDate.parseKeePassBase64(text) { return date }
        throw .malformedImport("\(context.formatName) line \(node.line): <\(node.name)> is not a date: \(text)")
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// The CSV that `keepassxc-cli export --format csv` (and KeePassXC's "Export to CSV") writes:
/// `"Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"`.
///
/// | KeePassXC | Coffer |
/// | --- | --- |
/// | Group (`Root/Work/Email`) | tag `Work/Email` (the root group's name is dropped) |
/// | Title, Username, Password, Notes | label, account, password, secret notes |
/// | URL | internet password when it has a host (plus urls), else generic password with service = Title |
/// | TOTP | secret field `otp` |
/// | Last Modified, Created | modified, created |
/// | Icon | ignored |
///
/// An entry with no user name, password, URL or TOTP but with notes becomes a secure note.
/// Entries under `Recycle Bin` are skipped and reported. The CSV has no custom
/// attributes, tags or history: use the XML export to keep those.
enum KeePassXCCSVImporter {
    static let required = ["group", "title", "username", "password", "url", "notes"]

    static func read(_ bytes: UnsafeRawBufferPointer, into session: ImportSession) throws(CofferError) {
        let reader = try CSVReader(bytes, formatName: ImportFormat.keepassxcCSV.displayName)
        guard let header = reader.records.first else { throw .malformedImport("KeePassXC CSV line 1: the file is empty") }
        var headers: [String] = []
        for field in header.fields { headers.append(try reader.string(field).trimmingCharacters(in: .whitespaces)) }
        let normalised = headers.map(CSVColumnMapping.normalised)
        let missing = required.filter { !normalised.contains($0) }
        guard missing.isEmpty else {
            throw .malformedImport("KeePassXC CSV line \(header.line): not a KeePassXC CSV export; the header lacks \(missing.joined(separator: ", "))")
        }
        let targets: [CSVColumnMapping.Target] = zip(headers, normalised).map { original, name in
            switch name {
            case "group": return .keepassGroup
            case "title": return .name
            case "username": return .username
            case "password": return .password
            case "url": return .url
            case "notes": return .notes
            case "totp": return .otp
            case "tags": return .tags
            case "lastmodified": return .modified
            case "created": return .created
            case "icon": return .ignored
            default: return .secretField(original)
            }
        }
        let mapping = CSVColumnMapping(reader: reader, headers: headers, targets: targets)
        session.recognised(mapping.reportColumns)
        try mapping.importRows(reader.records.dropFirst(), into: session)
    }
}

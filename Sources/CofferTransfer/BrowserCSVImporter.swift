import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import CofferOTP
/// A browser's password CSV, or any CSV whose header row names its columns.
///
/// Recognised headers (case, spaces, `_` and `-` ignored):
///
/// | header | Coffer |
/// | --- | --- |
/// | `name`, `title` | label (and the service of a generic password) |
/// | `url`, `uri`, `website`, `login_uri`, `origin` | urls; the first with a host makes an internet password |
/// | `username`, `user`, `login`, `login_username` (`email` when there is no user-name column) | account |
/// | `password`, `login_password` | password |
/// | `note`, `notes`, `extra`, `comments` | secret notes |
/// | `totp`, `otp`, `otpauth`, `login_totp`, `one-time password` | secret field `otp` |
/// | `tags`; `folder`, `group`, `grouping`, `category` | tags |
/// | `favorite`, `fav`, `favorite status` | isFavorite |
/// | `timeCreated`, `created`; `timePasswordChanged`, `modified`, `last modified` | created; modified |
/// | `kind`, `service`, `server`, `protocol`, `port`, `path`, `comment` (Coffer's CSV export) | the same |
/// | `type` (Bitwarden: login / note), `fields` (Bitwarden: `name: value` lines) | kind; secret fields |
/// | `httpRealm`, `formActionOrigin` (Firefox) | custom fields |
/// | `guid`, `timeLastUsed`, `reprompt`, `icon`, `archived status` | ignored |
/// | anything else | a secret field named after the column (unknown data stays secret) |
///
/// Chrome and Edge write `name,url,username,password,note`; Firefox writes
/// `url,username,password,httpRealm,formActionOrigin,guid,timeCreated,timeLastUsed,timePasswordChanged`;
/// Safari writes `Title,URL,Username,Password,Notes,OTPAuth`. The report lists what each column became.
enum BrowserCSVImporter {
    static func read(_ bytes: UnsafeRawBufferPointer, into session: ImportSession) throws(CofferError) {
        let reader = try CSVReader(bytes, formatName: ImportFormat.browserCSV.displayName)
        guard let header = reader.records.first else { throw .malformedImport("CSV line 1: the file is empty") }
        var headers: [String] = []
        for field in header.fields { headers.append(try reader.string(field).trimmingCharacters(in: .whitespaces)) }
        var targets = headers.map(target)
        // `email` is the account only when nothing else is.
        if !targets.contains(.username), let email = headers.firstIndex(where: { CSVColumnMapping.normalised($0) == "email" }) {
            targets[email] = .username
        }
        guard targets.contains(where: { [.password, .url, .name, .username, .notes].contains($0) }) else {
            throw .malformedImport("CSV line \(header.line): the header names no column Coffer knows (expected name, url, username, password or note); is the first line a header?")
        }
        let mapping = CSVColumnMapping(reader: reader, headers: headers, targets: targets)
        session.recognised(mapping.reportColumns)
        try mapping.importRows(reader.records.dropFirst(), into: session)
    }

    static func target(_ header: String) -> CSVColumnMapping.Target {
        switch CSVColumnMapping.normalised(header) {
        case "name", "title": return .name
        case "url", "uri", "urls", "website", "loginuri", "weburl", "origin": return .url
        case "username", "user", "login", "loginusername", "loginname": return .username
        case "password", "loginpassword", "pass": return .password
        case "note", "notes", "extra", "comments": return .notes
        case "totp", "otp", "otpauth", "logintotp", "onetimepassword", "otpurl": return .otp
        case "tags", "labels": return .tags
        case "folder", "group", "grouping", "category", "collections": return .folder
        case "favorite", "favourite", "fav", "favoritestatus": return .favorite
        case "timecreated", "created", "creationdate", "createdat": return .created
        case "timepasswordchanged", "modified", "lastmodified", "revisiondate", "modifiedat", "updatedat": return .modified
        case "kind": return .kind
        case "type": return .bitwardenType
        case "service": return .service
        case "server": return .server
        case "protocol": return .scheme
        case "port": return .port
        case "path": return .path
        case "comment": return .comment
        case "fields": return .bitwardenFields
        case "httprealm", "formactionorigin": return .customField(header)
        case "guid", "timelastused", "reprompt", "icon", "archivedstatus": return .ignored
        default: return .secretField(header)
        }
    }
}

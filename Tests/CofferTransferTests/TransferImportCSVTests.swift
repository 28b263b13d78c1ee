import Foundation
import Testing
@testable import CofferTransfer
import CofferTestSupport

@Suite("Transfer: import browser CSV, and the CSV reader")
struct TransferImportCSVTests {
    @Test("Chrome's CSV: logins, CRLF, quotes, a multi-line note, a duplicate and an empty row")
    func chrome() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("chrome.csv"), format: .browserCSV)
            #expect(report.imported == 3, "\(report)")
            #expect(report.recognisedColumns?.map(\.field) == ["label", "urls", "account", "password", "notes"])
            // Line 6 is line 2's login with another password: a conflict with the item line 2
            // added (skipped by default), not a silent duplicate (issue 28, finding 2).
            #expect(report.skippedDuplicates.isEmpty)
            #expect(report.conflicts.map(\.location) == ["line 6"] && report.conflicts.first?.resolution == .skip)
            #expect(report.unreadable == [ImportReport.Unreadable(location: "line 7", reason: "the row is empty")])

            let (github, githubSecrets) = try itemLabelled("github.com", in: vault)
            #expect(github.kind == .internetPassword && github.server == "github.com" && github.path == "/login")
            #expect(githubSecrets.password?.testString == "hunter2" && githubSecrets.notes == nil)
            let (example, exampleSecrets) = try itemLabelled("example.com", in: vault)
            #expect(example.path == nil && example.account == "alice")
            #expect(exampleSecrets.password?.testString == "pa,ss\"word" && exampleSecrets.notes?.testString == "Line 1")
            let (staging, stagingSecrets) = try itemLabelled("staging.example.com", in: vault)
            #expect(staging.port == 8443 && staging.path == "/app")
            #expect(stagingSecrets.notes?.testString == "multi\r\nline note")
        }
    }

    @Test("Firefox's CSV: no name column, millisecond times, realm and form origin kept, guid ignored")
    func firefox() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("firefox.csv"), format: .browserCSV)
            #expect(report.imported == 3, "\(report)")
            let columns = Dictionary(uniqueKeysWithValues: (report.recognisedColumns ?? []).map { ($0.column, $0.field) })
            #expect(columns == ["url": "urls", "username": "account", "password": "password", "httpRealm": "field:httpRealm",
                                "formActionOrigin": "field:formActionOrigin", "guid": "ignored", "timeCreated": "created",
                                "timeLastUsed": "ignored", "timePasswordChanged": "modified"])
            let accounts = try #require(try vault.firstItem(matching: ItemQuery(server: "accounts.example.com")))
            #expect(accounts.label == nil && accounts.account == "alice@example.com" && accounts.protocol == "https")
            #expect(accounts.fields == [CustomField(name: "formActionOrigin", value: "https://accounts.example.com")])
            #expect(accounts.created == Date(millisecondsSince1970: 1_704_164_645_000))
            #expect(accounts.modified == Date(millisecondsSince1970: 1_706_933_106_000))
            #expect(try vault.secrets(for: accounts.id).password?.testString == "fire-fox-1")
            let intranet = try #require(try vault.firstItem(matching: ItemQuery(server: "intranet.example.com")))
            #expect(intranet.port == 8080 && intranet.fields == [CustomField(name: "httpRealm", value: "Intranet")])
        }
    }

    @Test("other headers: Safari's OTPAuth, Bitwarden's CSV, an unknown column kept secret")
    func otherHeaders() throws {
        let safari = "Title,URL,Username,Password,Notes,OTPAuth,Security question\nShop,https://shop.example,me,pw,,otpauth://totp/Shop:me?secret=JBSWY3DPEHPK3PXP,Maiden name\n"
        let bitwarden = "folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp\n"
            + "Work,1,login,Jira,,\"PIN: 1234\nColour: blue\",0,https://jira.example.com,dev,jira-pw,\n"
            + ",,note,Door code,0000,,0,,,,\n"
        try withImportVault { (vault) throws in
            let report = try importText(safari, format: .browserCSV, into: vault)
            #expect(report.recognisedColumns?.last == ImportReport.Column(column: "Security question", field: "secret-field:Security question"))
            let (_, secrets) = try itemLabelled("Shop", in: vault)
            #expect(secrets.testFields == ["otp": "otpauth://totp/Shop:me?secret=JBSWY3DPEHPK3PXP", "Security question": "Maiden name"])

            let second = try importText(bitwarden, format: .browserCSV, into: vault)
            #expect(second.imported == 2, "\(second)")
            let (jira, jiraSecrets) = try itemLabelled("Jira", in: vault)
            #expect(jira.isFavorite && jira.tags == ["Work"] && jira.server == "jira.example.com")
            #expect(jiraSecrets.testFields == ["PIN": "1234", "Colour": "blue"])
            let (door, doorSecrets) = try itemLabelled("Door code", in: vault)
            #expect(door.kind == .secureNote && doorSecrets.notes?.testString == "0000")
        }
    }

    @Test("a CSV whose header names nothing known is refused")
    func unknownHeader() throws {
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.self) { try importText("a,b,c\n1,2,3\n", format: .browserCSV, into: vault) }
        }
    }

    @Test("an unclosed quote names the line it opened on, and nothing is imported")
    func unclosedQuote() throws {
        let text = "name,url,username,password\nA,https://a.example,u,p\nB,https://b.example,u,\"p\nC,https://c.example,u,p\n"
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText(text, format: .browserCSV, into: vault)
            }
            #expect(try vault.items().isEmpty)
        }
    }

    @Test("a bad date halfway through imports nothing: one transaction")
    func failsHalfway() throws {
        let text = "name,url,username,password,created\nA,https://a.example,u,p,2024-01-01\nB,https://b.example,u,p,soon\n"
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText(text, format: .browserCSV, into: vault)
            }
            #expect(try vault.items().isEmpty)
        }
    }

    @Test("RFC 4180 reader: quotes, escapes, CRLF, embedded newlines, BOM, blank lines, line numbers")
    func reader() throws {
        let text = "\u{FEFF}a,\"b,1\",\"c \"\"q\"\"\"\r\n\r\n\"multi\nline\",,x\n\"\",y,\"z\"\nlast,1,2"
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBytes { raw in
            let reader = try CSVReader(UnsafeRawBufferPointer(raw), formatName: "CSV")
            #expect(reader.records.map(\.line) == [1, 3, 5, 6])
            let rows = try reader.records.map { record in try record.fields.map { try reader.string($0) } }
            #expect(rows == [["a", "b,1", "c \"q\""], ["multi\nline", "", "x"], ["", "y", "z"], ["last", "1", "2"]])
            #expect(try reader.secret(reader.records[0].fields[2])?.testString == "c \"q\"")
            #expect(try reader.secret(reader.records[1].fields[1]) == nil)
        }
        var bad = Array("a,\"b\"x,c\n".utf8)
        _ = bad.withUnsafeMutableBytes { raw in
            #expect(throws: CofferError.malformedImport) {
                try CSVReader(UnsafeRawBufferPointer(raw), formatName: "CSV")
            }
        }
    }

    @Test("a row with more fields than the header is unreadable; the others import")
    func extraFields() throws {
        try withImportVault { (vault) throws in
            let report = try importText("name,password\nA,1\nB,2,3\n", format: .browserCSV, into: vault)
            #expect(report.imported == 1)
            #expect(report.unreadable.first?.location == "line 3")
        }
    }
}

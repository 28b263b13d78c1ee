import Foundation
import Testing
import CofferTransfer
import CofferTestSupport

@Suite("Transfer: import KeePassXC XML and CSV")
struct TransferImportKeePassXCTests {
    @Test("the XML fixture (made by keepassxc-cli) imports every field")
    func xmlFixture() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("keepassxc.xml"), format: .keepassxcXML)
            try KeePassXCExpectations.check(vault, report: report, fromCSV: false)
            #expect(report.recognisedColumns == nil)
        }
    }

    @Test("the CSV fixture (made by keepassxc-cli) imports its columns")
    func csvFixture() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("keepassxc.csv"), format: .keepassxcCSV)
            try KeePassXCExpectations.check(vault, report: report, fromCSV: true)
            let columns = try #require(report.recognisedColumns)
            #expect(columns.map(\.column) == ["Group", "Title", "Username", "Password", "URL", "Notes", "TOTP", "Icon", "Last Modified", "Created"])
            #expect(columns.first { $0.column == "Icon" }?.field == "ignored")
        }
    }

    @Test("importing the same file again skips every item as a duplicate")
    func reimportSkipsDuplicates() throws {
        try withImportVault { (vault) throws in
            _ = try vault.importItems(fromFile: Fixtures.path("keepassxc.xml"), format: .keepassxcXML)
            let again = try vault.importItems(fromFile: Fixtures.path("keepassxc.xml"), format: .keepassxcXML)
            #expect(again.imported == 0)
            #expect(Set(again.skippedDuplicates.map(\.label)) == ["Work Mail", "Bänk", "Router", "Wi-Fi note", "VPN"])
            #expect(again.skippedDuplicates.allSatisfy { $0.location.hasPrefix("line ") && !$0.reason.isEmpty })
            #expect(try vault.items().count == 5)
        }
    }

    @Test("a dry run reports the same and saves nothing")
    func dryRun() throws {
        try withImportVault { (vault) throws in
            let report = try vault.importItems(fromFile: Fixtures.path("keepassxc.xml"), format: .keepassxcXML, dryRun: true)
            #expect(report.imported == 5 && report.dryRun)
            #expect(try vault.items().isEmpty)
            let reopened = try Vault.open(at: vault.path, password: try secure("pw"), options: testOptions)
            #expect(try reopened.items().isEmpty)
        }
    }

    static let minimal = """
        <?xml version="1.0" encoding="UTF-8"?>
        <KeePassFile><Root><Group><Name>Root</Name>
        <Entry><String><Key>Title</Key><Value>A</Value></String><String><Key>Password</Key><Value ProtectInMemory="True">p</Value></String></Entry>
        <Entry><String><Key>Title</Key><Value>B</Value></String>
        """

    @Test("malformed XML names the line and imports nothing")
    func malformedXML() throws {
        try withImportVault { (vault) throws in
            let truncated = Self.minimal + "\n<String><Key>UserName</Key><Value>x</Valu></String></Entry></Group></Root></KeePassFile>"
            do {
                _ = try importText(truncated, format: .keepassxcXML, into: vault)
                Issue.record("expected a malformed file")
            } catch CofferError.malformedImport {
                // The kind is the contract; the detail (which line) is for people.
            }
            #expect(try vault.items().isEmpty)
        }
    }

    @Test("a DOCTYPE (entity expansion, billion laughs) is refused before parsing")
    func refusesDoctype() throws {
        let laughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
            <KeePassFile><Root><Group><Entry><String><Key>Title</Key><Value>&lol2;</Value></String></Entry></Group></Root></KeePassFile>
            """
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText(laughs, format: .keepassxcXML, into: vault)
            }
        }
    }

    /// Foundation's XMLParser passes libxml2's NULL data of `<?x?>` to strlen and the process
    /// dies (found by the inputs fuzzer); such a file is refused before parsing.
    @Test("a processing instruction without data is refused, not a crash; the XML declaration and one with data still read")
    func processingInstructionWithoutData() throws {
        let entry = "<KeePassFile><Root><Group><Entry><String><Key>Title</Key><Value>t</Value></String></Entry></Group></Root></KeePassFile>"
        try withImportVault { (vault) throws in
            for document in ["<a><?x?></a>", "<?xml version=\"1.0\"?>\n<KeePassFile><?pi ?></KeePassFile>", "<?xml version=\"1.0\"?><??>" + entry] {
                #expect(throws: CofferError.malformedImport, "\(document)") {
                    try importText(document, format: .keepassxcXML, into: vault)
                }
            }
            let report = try importText("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<?app some data?>" + entry, format: .keepassxcXML, into: vault)
            #expect(report.imported == 1)
        }
    }

    @Test("XML that is not a KeePass file is refused with its root element named")
    func notKeePass() throws {
        try withImportVault { (vault) throws in
            do {
                _ = try importText("<?xml version=\"1.0\"?>\n<html><body/></html>", format: .keepassxcXML, into: vault)
                Issue.record("expected a malformed file")
            } catch CofferError.malformedImport {
                // The kind is the contract; the detail (which line) is for people.
            }
        }
    }

    @Test("hand-written entries: a bare otp secret, ISO dates, an empty entry, an inline attachment")
    func handWritten() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <KeePassFile>
            <Meta><Binaries><Binary ID="0" Compressed="False">aGVsbG8=</Binary><Binary ID="1" Compressed="True">H4sIAAAA</Binary></Binaries></Meta>
            <Root><Group><Name>My DB</Name>
            <Entry>
              <Tags>a; b</Tags>
              <Times><CreationTime>2023-04-05T06:07:08Z</CreationTime><LastModificationTime>2023-05-06T07:08:09Z</LastModificationTime></Times>
              <String><Key>Title</Key><Value>Shell</Value></String>
              <String><Key>UserName</Key><Value>root</Value></String>
              <String><Key>Password</Key><Value ProtectInMemory="True">  spaced  </Value></String>
              <String><Key>otp</Key><Value ProtectInMemory="True">JBSWY3DPEHPK3PXP</Value></String>
              <Binary><Key>hello.txt</Key><Value Ref="0"/></Binary>
              <Binary><Key>packed.bin</Key><Value Ref="1"/></Binary>
            </Entry>
            <Entry><String><Key>Title</Key><Value></Value></String></Entry>
            </Group></Root></KeePassFile>
            """
        try withImportVault { (vault) throws in
            let report = try importText(xml, format: .keepassxcXML, into: vault)
            #expect(report.imported == 1)
            #expect(report.unreadable.count == 1 && report.unreadable.first?.location.hasPrefix("line 15") == true, "\(report.unreadable)")
            #expect(report.warnings.contains { $0.message.contains("packed.bin") })
            let (item, secrets) = try itemLabelled("Shell", in: vault)
            #expect(item.kind == .genericPassword && item.service == "Shell" && item.account == "root")
            #expect(item.tags == ["a", "b"])
            #expect(item.created == utc("2023-04-05T06:07:08Z") && item.modified == utc("2023-05-06T07:08:09Z"))
            #expect(secrets.password?.testString == "  spaced  ")
            #expect(secrets.attachments.map(\.name) == ["hello.txt"] && secrets.attachments.first?.data.testString == "hello")
            // A bare secret becomes an otpauth URI naming the entry.
            #expect(secrets.field(named: "otp")?.testString == "otpauth://totp/Shell:root?secret=JBSWY3DPEHPK3PXP&issuer=Shell&algorithm=SHA1&digits=6&period=30")
        }
    }

    @Test("a CSV without KeePassXC's header is refused naming the missing columns")
    func csvHeader() throws {
        try withImportVault { (vault) throws in
            #expect(throws: CofferError.malformedImport) {
                try importText("Title,Username,Password,URL\nx,y,z,\n", format: .keepassxcCSV, into: vault)
            }
        }
    }
}

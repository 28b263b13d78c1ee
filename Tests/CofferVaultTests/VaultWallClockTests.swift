import Foundation
import Testing
@testable import CofferVault
import CofferTransfer
import CofferTestSupport

/// One clock (``WallClock``): every date the library writes, and every expiry it checks,
/// reads the vault's clock, so a fixed clock fixes them all.
@Suite("Vault: the one clock")
struct VaultWallClockTests {
    /// 2023-11-14T22:13:20.123Z, far from the time the tests run.
    static let fixed: Int64 = 1_700_000_000_123
    static var fixedDate: Date { Date(millisecondsSince1970: fixed) }

    static func vault(in dir: URL, _ name: String = "v.coffer") throws -> Vault {
        let vault = try Vault.create(at: dir.appendingPathComponent(name).path, password: secure("pw"), options: testOptions)
        vault.wallClock = WallClock { fixed }
        return vault
    }

    @Test("an import dates what the file leaves undated by the vault's clock, in every format")
    func importsReadTheClock() throws {
        try withTemporaryDirectory { dir in
            let files: [(ImportFormat, String)] = [
                (.browserCSV, "name,url,username,password\nCSV,https://csv.example,alice,pw\n"),
                (.keepassxcCSV, "\"Group\",\"Title\",\"Username\",\"Password\",\"URL\",\"Notes\"\n\"Root\",\"KeePass CSV\",\"bob\",\"pw\",\"https://kpcsv.example\",\"\"\n"),
                (.bitwardenJSON, #"{"encrypted": false, "items": [{"type": 1, "name": "Bitwarden", "login": {"username": "carol", "password": "pw", "uris": [{"uri": "https://bw.example"}]}}]}"#),
                (.keepassxcXML, """
                    <?xml version="1.0" encoding="UTF-8"?>
                    <KeePassFile><Root><Group><Name>Root</Name>
                    <Entry><String><Key>Title</Key><Value>KeePass XML</Value></String>
                    <String><Key>UserName</Key><Value>dave</Value></String>
                    <String><Key>Password</Key><Value>pw</Value></String>
                    <String><Key>URL</Key><Value>https://kpxml.example</Value></String></Entry>
                    </Group></Root></KeePassFile>
                    """),
                (.cofferJSON, #"{"format": "coffer-export", "version": 1, "items": [{"kind": "generic-password", "service": "coffer-json", "account": "erin"}]}"#),
            ]
            for (index, (format, text)) in files.enumerated() {
                let vault = try Self.vault(in: dir, "v\(index).coffer")
                let report = try importText(text, format: format, into: vault)
                #expect(report.imported == 1, "\(format): \(report)")
                let item = try #require(try vault.items().first, "\(format)")
                #expect(item.created == Self.fixedDate && item.modified == Self.fixedDate, "\(format): \(item.created)")
            }
        }
    }

    @Test("keeping both passwords of an import conflict dates the replaced one by the vault's clock")
    func conflictHistoryReadsTheClock() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(in: dir)
            let row = { (password: String) in "name,url,username,password\nSite,https://site.example,alice,\(password)\n" }
            _ = try importText(row("first"), format: .browserCSV, into: vault)
            let report = try vault.importItems(from: try SecureBytes(copying: Array(row("second").utf8)), format: .browserCSV,
                                               onConflict: .keepBoth)
            #expect(report.conflicts.count == 1)
            let item = try #require(try vault.items().first)
            let history = try vault.secrets(for: item.id).passwordHistory
            #expect(history.map(\.replaced) == [Self.fixedDate])
            #expect(history.first?.password.unsafeStringCopy() == "second")
        }
    }

    @Test("edits, replaced passwords and a cached unlock's expiry read the vault's clock")
    func editsAndCacheReadTheClock() throws {
        try withTemporaryDirectory { dir in
            let vault = try Self.vault(in: dir)
            // Added before the fixed time: an edit never moves `modified` back (SPEC.md §17.5).
            var attributes = ItemAttributes.genericPassword(service: "s", account: "a")
            attributes.created = Date(millisecondsSince1970: Self.fixed - 86_400_000)
            attributes.modified = attributes.created
            let item = try vault.add(attributes, secrets: ItemSecrets(password: try secure("one")))
            let updated = try vault.update(item.id, secrets: ItemSecrets(password: try secure("two")))
            #expect(updated.modified == Self.fixedDate)
            #expect(try vault.secrets(for: item.id).passwordHistory.map(\.replaced) == [Self.fixedDate])
            let cache = MemoryUnlockCache()
            let cached = try vault.cacheUnlock(in: cache, for: .seconds(60))
            #expect(cached.expires == Date(millisecondsSince1970: Self.fixed + 60_000))
            // The cache's expiry is checked against the clock given, not the system's: at the
            // fixed time it is alive; a minute later it has expired and is forgotten.
            let path = vault.path
            let alive = try Vault.open(at: path, unlockCache: cache, options: testOptions, entropy: .system,
                                       clock: WallClock { Self.fixed + 59_999 })
            #expect(alive?.wallClock.milliseconds() == Self.fixed + 59_999)
            let expired = try Vault.open(at: path, unlockCache: cache, options: testOptions, entropy: .system,
                                         clock: WallClock { Self.fixed + 60_000 })
            #expect(expired == nil && cache.count == 0)
        }
    }
}

import CofferTestSupport
import Foundation
import Testing

/// Issue 28, findings 2 and 3: an import that met a login already in the vault moved its
/// password at most and dropped the rest without a word (custom fields, a protected field,
/// tags, the one-time password); and a login with another URL path, or of another kind,
/// became a second item beside the first.
@Suite("coffer import carries what an existing item lacks")
struct CLIImportCarryTests {
    /// A KeePassXC XML export with one Dropbox entry: fields, a protected field, tags, a
    /// TOTP and an expiry, and the given password.
    static func dropboxXML(password: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <KeePassFile><Meta><Generator>KeePassXC</Generator></Meta><Root><Group><Name>Root</Name>
        <Entry>
          <Times><CreationTime>2024-01-02T03:04:05Z</CreationTime><LastModificationTime>2024-02-03T04:05:06Z</LastModificationTime>
          <ExpiryTime>2031-05-06T07:08:09Z</ExpiryTime><Expires>True</Expires></Times>
          <Tags>cloud,2fa</Tags>
          <String><Key>Title</Key><Value>Dropbox</Value></String>
          <String><Key>UserName</Key><Value>me@example.com</Value></String>
          <String><Key>Password</Key><Value ProtectInMemory="True">\(password)</Value></String>
          <String><Key>URL</Key><Value>https://www.dropbox.com/login</Value></String>
          <String><Key>Notes</Key><Value>recovery codes in the safe</Value></String>
          <String><Key>Recovery email</Key><Value>backup@example.com</Value></String>
          <String><Key>Security answer</Key><Value ProtectInMemory="True">blue-whale-77</Value></String>
          <String><Key>otp</Key><Value ProtectInMemory="True">otpauth://totp/Dropbox:me?secret=JBSWY3DPEHPK3PXP</Value></String>
        </Entry>
        </Group></Root></KeePassFile>
        """
    }

    static func run(_ arguments: [String], _ dir: URL, input: String = "pw\n") throws -> CLIResult {
        try CLI.run(arguments, input: input, in: dir)
    }

    @Test("A conflicting KeePassXC entry carries its fields, secret field, tags, notes and TOTP into the existing login; the report names them")
    func conflictCarriesTheRest() throws {
        try withVault { dir in
            let added = try Self.run(["add", "v.coffer", "--server", "https://www.dropbox.com", "--account", "me@example.com"], dir,
                                     input: "pw\nvault-pass-1\n")
            try #require(added.status == 0, "\(added.err)")
            try Self.dropboxXML(password: "file-pass-2").write(to: dir.appendingPathComponent("kp.xml"), atomically: true, encoding: .utf8)
            let imported = try Self.run(["import", "v.coffer", "--format", "keepassxc-xml", "kp.xml", "--json"], dir)
            #expect(imported.status == 0, "\(imported.err)")
            // Reported: the conflict, and what was carried, by name only.
            #expect(imported.err.contains("1 conflict"), "\(imported.err)")
            #expect(imported.err.contains("carried:") && imported.err.contains("field Recovery email")
                    && imported.err.contains("secret field Security answer") && imported.err.contains("tags cloud, 2fa")
                    && imported.err.contains("one-time password") && imported.err.contains("notes"), "\(imported.err)")
            for secret in ["blue-whale-77", "file-pass-2", "vault-pass-1", "JBSWY3DPEHPK3PXP", "recovery codes"] {
                #expect(!imported.err.contains(secret) && !imported.out.contains(secret), "\(secret) leaked")
            }
            let merged = try #require(try imported.jsonObject()["merged"] as? [[String: Any]])
            #expect(merged.count == 1 && (merged.first?["carried"] as? [String])?.contains("field Recovery email") == true, "\(merged)")
            #expect(try imported.jsonObject()["imported"] as? Int == 0, "no second item")

            // Found as the issue looked for them.
            #expect(try Self.run(["search", "v.coffer", "backup@example.com"], dir).status == 0)
            #expect(try Self.run(["list", "v.coffer", "--tag", "cloud"], dir).status == 0)
            let shown = try Self.run(["show", "v.coffer", "www.dropbox.com", "--reveal"], dir)
            #expect(shown.status == 0, "\(shown.err)")
            #expect(shown.out.contains("Recovery email: backup@example.com") && shown.out.contains("Security answer: blue-whale-77")
                    && shown.out.contains("one-time password:  yes"), "\(shown.out)")
            // The default policy (skip) left the password as it was.
            #expect(try Self.run(["get", "v.coffer", "www.dropbox.com"], dir).out == "vault-pass-1\n")
        }
    }

    @Test("After keep-both, a later update still makes the imported password current")
    func keepBothThenUpdate() throws {
        try withVault { dir in
            let added = try Self.run(["add", "v.coffer", "--server", "https://www.dropbox.com", "--account", "me@example.com"], dir,
                                     input: "pw\nvault-pass-1\n")
            try #require(added.status == 0, "\(added.err)")
            try Self.dropboxXML(password: "file-pass-2").write(to: dir.appendingPathComponent("kp.xml"), atomically: true, encoding: .utf8)
            let kept = try Self.run(["import", "v.coffer", "--format", "keepassxc-xml", "kp.xml", "--on-conflict", "keep-both"], dir)
            #expect(kept.status == 0, "\(kept.err)")
            #expect(try Self.run(["get", "v.coffer", "www.dropbox.com"], dir).out == "vault-pass-1\n")
            let updated = try Self.run(["import", "v.coffer", "--format", "keepassxc-xml", "kp.xml", "--on-conflict", "update", "--json"], dir)
            #expect(updated.status == 0, "\(updated.err)")
            #expect((try updated.jsonObject()["conflicts"] as? [[String: Any]])?.count == 1, "\(updated.out)")
            #expect(try Self.run(["get", "v.coffer", "www.dropbox.com"], dir).out == "file-pass-2\n")
            let history = try Self.run(["history", "v.coffer", "www.dropbox.com", "--show-passwords", "--json"], dir).jsonObject()
            let passwords = (history["passwordHistory"] as? [[String: Any]] ?? []).compactMap { $0["password"] as? String }
            #expect(passwords == ["vault-pass-1"], "\(passwords)")
        }
    }

    @Test("A duplicate that differs only in notes reports them as not carried; the item keeps its own")
    func differingNotesReported() throws {
        try withVault { dir in
            let added = try Self.run(["add", "v.coffer", "--server", "https://www.dropbox.com", "--account", "me@example.com", "--notes"], dir,
                                     input: "pw\nfile-pass-2\nmy own notes\n")
            try #require(added.status == 0, "\(added.err)")
            try Self.dropboxXML(password: "file-pass-2").write(to: dir.appendingPathComponent("kp.xml"), atomically: true, encoding: .utf8)
            let imported = try Self.run(["import", "v.coffer", "--format", "keepassxc-xml", "kp.xml"], dir)
            #expect(imported.status == 0, "\(imported.err)")
            #expect(imported.err.contains("not carried, the item keeps its own: notes (the item's differ)"), "\(imported.err)")
            #expect(!imported.err.contains("conflict"), "same password: no conflict: \(imported.err)")
            #expect(try Self.run(["get", "v.coffer", "www.dropbox.com", "--field", "notes"], dir).out == "my own notes\n")
        }
    }

    @Test("Bitwarden's /login URL and KeePassXC's internet password match the existing login by site, not a second item")
    func siteMatchesAcrossPathAndKind() throws {
        try withVault { dir in
            var result = try Self.run(["add", "v.coffer", "--server", "https://www.netflix.com", "--account", "me"], dir, input: "pw\nnf-1\n")
            try #require(result.status == 0, "\(result.err)")
            result = try Self.run(["add", "v.coffer", "--service", "github.com", "--account", "octocat"], dir, input: "pw\ngh-1\n")
            try #require(result.status == 0, "\(result.err)")
            let bitwarden = """
                {"encrypted": false, "folders": [], "items": [
                  {"type": 1, "name": "Netflix", "notes": null, "favorite": false,
                   "login": {"username": "me", "password": "nf-1", "uris": [{"uri": "https://www.netflix.com/login"}]}}]}
                """
            try bitwarden.write(to: dir.appendingPathComponent("bw.json"), atomically: true, encoding: .utf8)
            result = try Self.run(["import", "v.coffer", "--format", "bitwarden-json", "bw.json", "--json"], dir)
            #expect(result.status == 0, "\(result.err)")
            let report = try result.jsonObject()
            #expect(report["imported"] as? Int == 0, "\(result.out)")
            let merged = report["merged"] as? [[String: Any]] ?? []
            #expect(merged.first?["matchedBy"] as? String == "same site netflix.com and account \"me\"", "\(merged)")
            #expect((merged.first?["carried"] as? [String])?.contains("label") == true, "\(merged)")

            let keepass = """
                <?xml version="1.0" encoding="UTF-8"?>
                <KeePassFile><Root><Group><Name>Root</Name><Entry>
                  <String><Key>Title</Key><Value>GitHub</Value></String>
                  <String><Key>UserName</Key><Value>octocat</Value></String>
                  <String><Key>Password</Key><Value>gh-1</Value></String>
                  <String><Key>URL</Key><Value>https://github.com/session</Value></String>
                </Entry></Group></Root></KeePassFile>
                """
            try keepass.write(to: dir.appendingPathComponent("kp.xml"), atomically: true, encoding: .utf8)
            result = try Self.run(["import", "v.coffer", "--format", "keepassxc-xml", "kp.xml", "--json"], dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try result.jsonObject()["imported"] as? Int == 0, "\(result.out)")
            let listed = try Self.run(["list", "v.coffer", "--json"], dir).jsonArray()
            #expect(listed.count == 2, "no second Netflix or GitHub: \(listed)")
            // The URL of the other kind joined the item's URLs.
            let github = listed.first { $0["service"] as? String == "github.com" }
            #expect((github?["urls"] as? [String]) == ["https://github.com/session"], "\(String(describing: github))")
        }
    }
}

import Foundation
import Testing

/// Issue 20: naming items the way people do, a listing that reads, a whole item on show,
/// safe edits, and a look at the backup before restoring. Every test runs `coffer`.
@Suite("coffer everyday use")
struct CLIEverydayUseTests {
    /// Adds a generic password; the password is `password`.
    static func add(_ dir: URL, service: String, account: String, label: String? = nil, password: String = "p") throws {
        let result = try CLI.run(["add", "v.coffer", "--service", service, "--account", account] + (label.map { ["--label", $0] } ?? []),
                                 input: "pw\n\(password)\n", in: dir)
        try #require(result.status == 0, "add failed: \(result.err)")
    }

    static func names(_ result: CLIResult) -> [String] {
        result.out.split(separator: "\n").dropFirst().map { String($0.split(separator: " ", maxSplits: 1).first ?? "") }
    }

    // MARK: Item 1: list order

    @Test("list reads case-insensitively, numbers as numbers, accents folded")
    func listReadingOrder() throws {
        try withVault { dir in
            for (index, label) in ["zeta", "Beta", "alpha", "item10", "item2", "Émile", "delta"].enumerated() {
                try Self.add(dir, service: "s\(index)", account: "a", label: label)
            }
            let listed = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(listed.status == 0)
            #expect(Self.names(listed) == ["alpha", "Beta", "delta", "Émile", "item2", "item10", "zeta"], "\(listed.out)")
            let json = try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray()
            #expect(json.compactMap { $0["label"] as? String } == ["alpha", "Beta", "delta", "Émile", "item2", "item10", "zeta"])
        }
    }

    // MARK: Item 3: naming

    @Test("A positional name finds an item by service (any case), label, id prefix or pasted URL")
    func positionalNames() throws {
        try withVault { dir in
            try Self.add(dir, service: "github.com", account: "octocat", label: "Code", password: "gh-pw")
            var result = try CLI.run(["add", "v.coffer", "--server", "https://example.com:8443/login", "--account", "al"],
                                     input: "pw\nex-pw\n", in: dir)
            try #require(result.status == 0, "\(result.err)")
            for name in ["github.com", "GitHub.COM", "code", "CODE"] {
                result = try CLI.run(["get", "v.coffer", name], input: "pw\n", in: dir)
                #expect(result.status == 0 && result.out == "gh-pw\n", "\(name): \(result.err)")
            }
            // --label and --service ignore case too.
            #expect(try CLI.run(["get", "v.coffer", "--label", "cODE"], input: "pw\n", in: dir).out == "gh-pw\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "GITHUB.com"], input: "pw\n", in: dir).out == "gh-pw\n")
            // A URL pasted from the browser, with another path and a query, names the login.
            for url in ["https://EXAMPLE.com:8443/account/settings?tab=2#x", "example.com"] {
                result = try CLI.run(["get", "v.coffer", url], input: "pw\n", in: dir)
                #expect(result.status == 0 && result.out == "ex-pw\n", "\(url): \(result.err)")
            }
            result = try CLI.run(["get", "v.coffer", "--server", "https://example.com:8443/other?q=1"], input: "pw\n", in: dir)
            #expect(result.out == "ex-pw\n", "\(result.err)")
            // Another port or scheme is another server.
            #expect(try CLI.run(["get", "v.coffer", "https://example.com/login"], input: "pw\n", in: dir).status == 1)
            #expect(try CLI.run(["get", "v.coffer", "http://example.com:8443/login"], input: "pw\n", in: dir).status == 1)
            // The first 8 digits of the id.
            let id = try #require(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray()
                .first { ($0["service"] as? String) == "github.com" }?["id"] as? String)
            #expect(try CLI.run(["get", "v.coffer", String(id.prefix(8))], input: "pw\n", in: dir).out == "gh-pw\n")
            #expect(try CLI.run(["get", "v.coffer", "--id", String(id.prefix(10))], input: "pw\n", in: dir).out == "gh-pw\n")
        }
    }

    @Test("Two notes with one title: exit 64 lists both by short id, and the short id then names one")
    func ambiguousNotes() throws {
        try withVault { dir in
            for text in ["note-one-71", "note-two-38"] {
                let result = try CLI.run(["note", "v.coffer", "--title", "Meeting"], input: "pw\n\(text)\n", in: dir)
                try #require(result.status == 0, "\(result.err)")
            }
            let ids = try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().compactMap { $0["id"] as? String }
            try #require(ids.count == 2)
            for arguments in [["get", "v.coffer", "meeting"], ["get", "v.coffer", "--title", "Meeting"]] {
                let result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(result.status == 64, "\(result.err)")
                expectOneLineMessage(result, containing: "Meeting")
                for id in ids { #expect(result.err.contains(String(id.prefix(8))), "\(result.err)") }
                #expect(!result.err.contains("note-one") && !result.err.contains("note-two"))
            }
            let second = try #require(ids.first { id in
                try CLI.run(["get", "v.coffer", String(id.prefix(8))], input: "pw\n", in: dir).out == "note-two-38\n"
            })
            #expect(try CLI.run(["get", "v.coffer", "--id", second], input: "pw\n", in: dir).out == "note-two-38\n")
        }
    }

    @Test("An unknown option is reported as such, not as a missing item name")
    func unknownOption() throws {
        try withVault { dir in
            for arguments in [["get", "v.coffer", "--zz", "aws"], ["edit", "v.coffer", "--zz", "aws"], ["show", "v.coffer", "--zz", "x"]] {
                let result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(result.status == 64)
                expectOneLineMessage(result, containing: "nknown option '--zz'")
            }
            // No name at all still says how to name one.
            let result = try CLI.run(["get", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 64)
            expectOneLineMessage(result, containing: "exactly one of NAME")
        }
    }

    // MARK: Item 2: show

    @Test("show prints every attribute and the secret part by name; values only with --reveal")
    func showWholeItem() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "api", "--account", "ci", "--label", "CI token", "--tag", "work",
                                      "--favorite", "--field", "env=prod", "--secret-field", "API token", "--notes"],
                                     input: "pw\nfirst-pw-51\ntoken-value-93\nnote-text-27\n", in: dir)
            try #require(result.status == 0, "\(result.err)")
            result = try CLI.run(["edit", "v.coffer", "api", "--password-stdin"], input: "pw\nsecond-pw-64\n", in: dir)
            try #require(result.status == 0, "\(result.err)")
            result = try CLI.run(["totp", "v.coffer", "api", "--set"], input: "pw\nJBSWY3DPEHPK3PXP\n", in: dir)
            try #require(result.status == 0, "\(result.err)")

            let shown = try CLI.run(["show", "v.coffer", "api"], input: "pw\n", in: dir)
            #expect(shown.status == 0, "\(shown.err)")
            for text in ["CI token", "api", "ci", "#work", "favorite:           yes", "env: prod",
                         "API token", "earlier passwords:  1", "one-time password:  yes", "created:", "modified:", "notes:              yes"] {
                #expect(shown.out.contains(text), "missing \(text): \(shown.out)")
            }
            for secret in ["first-pw-51", "second-pw-64", "token-value-93", "note-text-27", "JBSWY3DPEHPK3PXP"] {
                #expect(!shown.out.contains(secret) && !shown.err.contains(secret))
            }
            let revealed = try CLI.run(["show", "v.coffer", "api", "--reveal"], input: "pw\n", in: dir)
            for secret in ["first-pw-51", "second-pw-64", "token-value-93", "note-text-27"] {
                #expect(revealed.out.contains(secret), "\(secret) not revealed")
            }

            let json = try CLI.run(["show", "v.coffer", "api", "--json"], input: "pw\n", in: dir).jsonObject()
            #expect(Set(json.keys) == ["item", "password", "notes", "secretFields", "passwordHistory", "attachments", "oneTimePassword"])
            let item = try #require(json["item"] as? [String: Any])
            #expect(item["label"] as? String == "CI token" && item["favorite"] as? Bool == true && item["tags"] as? [String] == ["work"])
            #expect(item["created"] is String && item["modified"] is String)
            #expect((json["password"] as? [String: Any])?["present"] as? Bool == true)
            #expect((json["password"] as? [String: Any])?["value"] is NSNull)
            #expect((json["notes"] as? [String: Any])?["present"] as? Bool == true)
            let fields = try #require(json["secretFields"] as? [[String: Any]])
            #expect(Set(fields.compactMap { $0["name"] as? String }) == ["API token", "otp"])
            #expect(fields.allSatisfy { $0["value"] is NSNull })
            #expect((json["passwordHistory"] as? [[String: Any]])?.count == 1)
            #expect(json["oneTimePassword"] as? Bool == true)
            #expect(json["attachments"] as? [Any] != nil)
            let revealedJSON = try CLI.run(["show", "v.coffer", "api", "--json", "--show-secrets"], input: "pw\n", in: dir).jsonObject()
            #expect((revealedJSON["password"] as? [String: Any])?["value"] as? String == "second-pw-64")
            #expect((revealedJSON["passwordHistory"] as? [[String: Any]])?.first?["password"] as? String == "first-pw-51")
        }
    }

    // MARK: Item 6: edit

    @Test("A repeated single-value option is refused, and nothing is saved")
    func repeatedOptionRefused() throws {
        try withVault { dir in
            try Self.add(dir, service: "s", account: "a", label: "Old")
            for arguments in [["edit", "v.coffer", "s", "--label", "A", "--label", "B"],
                              ["edit", "v.coffer", "--service", "s", "--service", "s", "--label", "A"],
                              ["edit", "v.coffer", "s", "--comment=x", "--comment", "y"],
                              ["get", "v.coffer", "--account", "a", "--account", "b", "--service", "s"]] {
                let result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(result.status == 64, "\(arguments): \(result.err)")
                expectOneLineMessage(result, containing: "more than once")
            }
            #expect(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().first?["label"] as? String == "Old")
            // Options that collect values still repeat.
            let tags = try CLI.run(["edit", "v.coffer", "s", "--tag", "a", "--tag", "b"], input: "pw\n", in: dir)
            #expect(tags.status == 0, "\(tags.err)")
        }
    }

    @Test("edit renames the service, account and server, keeping unique keys unique")
    func editRenames() throws {
        try withVault { dir in
            try Self.add(dir, service: "old", account: "me", password: "kept-pw")
            try Self.add(dir, service: "taken", account: "you")
            var result = try CLI.run(["edit", "v.coffer", "old", "--new-service", "new", "--new-account", "myself"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "new", "--account", "myself"], input: "pw\n", in: dir).out == "kept-pw\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "old"], input: "pw\n", in: dir).status == 1)
            // Onto a taken key: exit 2, nothing changed.
            result = try CLI.run(["edit", "v.coffer", "new", "--new-service", "taken", "--new-account", "you"], input: "pw\n", in: dir)
            #expect(result.status == 2, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "new"], input: "pw\n", in: dir).out == "kept-pw\n")
            // An internet password moves to another server.
            result = try CLI.run(["add", "v.coffer", "--server", "https://old.example.com", "--account", "u"], input: "pw\nweb-pw\n", in: dir)
            try #require(result.status == 0)
            result = try CLI.run(["edit", "v.coffer", "old.example.com", "--new-server", "https://new.example.com:8443/login"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            let moved = try #require(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().first { $0["kind"] as? String == "internet-password" })
            #expect(moved["server"] as? String == "new.example.com" && moved["port"] as? Int == 8443 && moved["path"] as? String == "/login")
            // A rename that does not fit the kind.
            #expect(try CLI.run(["edit", "v.coffer", "new", "--new-server", "x.example"], input: "pw\n", in: dir).status == 64)
        }
    }

    @Test("edit --remove-field removes a custom field, secret or not; a missing one is exit 1")
    func editRemovesFields() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a", "--field", "plain=1", "--secret-field", "pin"],
                                     input: "pw\nitem-pw\n1234\n", in: dir)
            try #require(result.status == 0, "\(result.err)")
            result = try CLI.run(["edit", "v.coffer", "s", "--remove-field", "plain", "--remove-field", "pin"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "s", "--field", "pin"], input: "pw\n", in: dir).status == 1)
            #expect(try CLI.run(["get", "v.coffer", "s", "--field", "plain"], input: "pw\n", in: dir).status == 1)
            #expect(try CLI.run(["get", "v.coffer", "s"], input: "pw\n", in: dir).out == "item-pw\n")
            result = try CLI.run(["edit", "v.coffer", "s", "--remove-field", "nope"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            expectOneLineMessage(result, containing: "nope")
        }
    }

    // MARK: Item 5: what the backup holds

    @Test("restore --dry-run lists what restoring would bring back, remove and revert, and changes nothing")
    func restoreDryRun() throws {
        try withVault { dir in
            try Self.add(dir, service: "kept", account: "a")
            try Self.add(dir, service: "deleted", account: "a")
            var result = try CLI.run(["remove", "v.coffer", "deleted"], input: "pw\n", in: dir)
            try #require(result.status == 0, "\(result.err)")
            let before = try Data(contentsOf: dir.appendingPathComponent("v.coffer"))
            result = try CLI.run(["restore", "v.coffer", "--dry-run"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n").map(String.init)
            #expect(lines.count == 1 && lines.first?.hasPrefix("restore ") == true && lines.first?.contains("deleted") == true, "\(result.out)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("v.coffer")) == before)
            // After a new item is added, restoring would remove it.
            try Self.add(dir, service: "added", account: "a")
            result = try CLI.run(["restore", "v.coffer", "--dry-run"], input: "pw\n", in: dir)
            #expect(result.out.split(separator: "\n").contains { $0.hasPrefix("remove") && $0.contains("added") }, "\(result.out)")
        }
    }

    @Test("add --generate --print prints the new password once saved; --print or --clip without --generate is exit 64 (issue 28, finding 10)")
    func addGeneratePrints() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "new", "--account", "me", "--generate", "--length", "24", "--print"],
                                    input: "pw\n", in: dir)
            #expect(added.status == 0, "\(added.err)")
            let stored = try CLI.run(["get", "v.coffer", "new"], input: "pw\n", in: dir)
            #expect(added.out == stored.out && added.out.count == 25, "\(added.out.count)")
            for flag in ["--print", "--clip"] {
                let typed = try CLI.run(["add", "v.coffer", "--service", "typed", flag], input: "pw\nx\n", in: dir)
                #expect(typed.status == 64 && typed.err.contains("needs --generate"), "\(flag): \(typed.err)")
            }
        }
    }

}

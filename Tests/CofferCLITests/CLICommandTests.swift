import Foundation
import Testing
import CofferTestSupport

/// Every command driven through piped stdin, as a script would.
@Suite("coffer commands over pipes")
struct CLICommandTests {
    @Test("init, info (no password), add, get, list, search, remove")
    func itemLifecycle() throws {
        try withVault { dir in
            let info = try CLI.run(["info", "v.coffer"], in: dir)
            #expect(info.status == 0)
            #expect(info.out.contains("format version: 2"))
            #expect(info.out.contains("entries:        0"))

            var result = try CLI.run(["add", "v.coffer", "--service", "github.com", "--account", "octocat",
                                      "--label", "GitHub", "--url", "https://github.com", "--notes",
                                      "--tag", "work", "--tag", "code"],
                                     input: "pw\nhunter2\nrecovery in safe\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.isEmpty, "add prints nothing on stdout")

            result = try CLI.run(["get", "v.coffer", "--service", "github.com", "--account", "octocat"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            #expect(result.out == "hunter2\n")

            // Without --account: the only item of that service.
            result = try CLI.run(["get", "v.coffer", "--service", "github.com"], input: "pw\n", in: dir)
            #expect(result.out == "hunter2\n")

            result = try CLI.run(["get", "v.coffer", "--service", "github.com", "--field", "notes"], input: "pw\n", in: dir)
            #expect(result.out == "recovery in safe\n")

            result = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            #expect(result.out.contains("github.com"))
            #expect(result.out.contains("octocat"))
            #expect(!result.out.contains("hunter2"))

            result = try CLI.run(["list", "v.coffer", "--tag", "code"], input: "pw\n", in: dir)
            #expect(result.out.contains("github.com"))
            result = try CLI.run(["list", "v.coffer", "--service", "github.com"], input: "pw\n", in: dir)
            #expect(result.out.contains("octocat"))

            result = try CLI.run(["search", "v.coffer", "GITHUB"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            #expect(result.out.contains("octocat"))
            #expect(!result.out.contains("hunter2"))

            let infoAfter = try CLI.run(["info", "v.coffer", "--json"], in: dir).jsonObject()
            #expect(infoAfter["entryCount"] as? Int == 1)

            result = try CLI.run(["remove", "v.coffer", "--service", "github.com", "--account", "octocat"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "v.coffer", "--service", "github.com"], input: "pw\n", in: dir)
            #expect(result.status == 1)
        }
    }

    @Test("add --server URL stores host, protocol, port, path and the URL")
    func internetPassword() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--server", "https://example.com:8443/login", "--account", "me"],
                                     input: "pw\nsecret-1\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            let items = try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray()
            let item = try #require(items.first)
            #expect(item["kind"] as? String == "internet-password")
            #expect(item["server"] as? String == "example.com")
            #expect(item["protocol"] as? String == "https")
            #expect(item["port"] as? Int == 8443)
            #expect(item["path"] as? String == "/login")
            #expect(item["urls"] as? [String] == ["https://example.com:8443/login"])

            result = try CLI.run(["get", "v.coffer", "--server", "https://example.com:8443/login"], input: "pw\n", in: dir)
            #expect(result.out == "secret-1\n")
            result = try CLI.run(["get", "v.coffer", "--server", "example.com", "--account", "me"], input: "pw\n", in: dir)
            #expect(result.out == "secret-1\n")
        }
    }

    @Test("note reads its text from stdin; get --title prints it")
    func secureNote() throws {
        try withVault { dir in
            var result = try CLI.run(["note", "v.coffer", "--title", "Wi-Fi", "--tag", "home"],
                                     input: "pw\nSSID: home\nkey: 12345\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "v.coffer", "--title", "Wi-Fi"], input: "pw\n", in: dir)
            #expect(result.out == "SSID: home\nkey: 12345\n")
            let json = try CLI.run(["get", "v.coffer", "--title", "Wi-Fi", "--json"], input: "pw\n", in: dir).jsonObject()
            #expect(json["kind"] as? String == "secure-note")
            #expect(json["notes"] as? String == "SSID: home\nkey: 12345")
            #expect(json["password"] is NSNull)
        }
    }

    @Test("add --generate stores a password following the generator flags")
    func addGenerated() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "api", "--account", "ci", "--generate",
                                      "--length", "32", "--no-symbols"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.isEmpty, "the generated password is not printed by add")
            result = try CLI.run(["get", "v.coffer", "--service", "api"], input: "pw\n", in: dir)
            let password = result.out.dropLast()
            #expect(password.count == 32)
            #expect(password.allSatisfy { $0.isLetter || $0.isNumber })
        }
    }

    @Test("custom fields: --field and --secret-field, read back with get --field")
    func fields() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "bank", "--account", "alice",
                                      "--field", "customer=12-345", "--secret-field", "pin"],
                                     input: "pw\nbank-password\n4321\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "v.coffer", "--service", "bank", "--field", "pin"], input: "pw\n", in: dir)
            #expect(result.out == "4321\n")
            result = try CLI.run(["get", "v.coffer", "--service", "bank", "--field", "customer"], input: "pw\n", in: dir)
            #expect(result.out == "12-345\n")
            result = try CLI.run(["get", "v.coffer", "--service", "bank", "--field", "nothing"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            expectOneLineMessage(result, containing: "no field named nothing")
            let json = try CLI.run(["get", "v.coffer", "--service", "bank", "--field", "pin", "--json"],
                                   input: "pw\n", in: dir).jsonObject()
            #expect(json["field"] as? String == "pin")
            #expect(json["value"] as? String == "4321")
            #expect(json["password"] == nil)
        }
    }

    @Test("edit: --password-stdin, --generate, a piped line, attributes; history keeps going")
    func edit() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\none\n", in: dir)

            var result = try CLI.run(["edit", "v.coffer", "--service", "s", "--account", "a", "--password-stdin"],
                                     input: "pw\ntwo\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "two\n")

            // Without --password-stdin, a stray piped line never becomes the password (issue 20,
            // finding 6: it used to)…
            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--account", "a", "--comment", "c"], input: "pw\nthree\n", in: dir)
            #expect(result.status == 0 && !result.err.contains("new password"), "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "two\n")
            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--account", "a", "--password-stdin"], input: "pw\nthree\n", in: dir)
            #expect(result.status == 0, "\(result.err)")

            // …and without one, the password is kept while attributes change.
            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--account", "a", "--label", "Renamed",
                                  "--tag", "x", "--notes", "--favorite"], input: "pw\nn1\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "three\n")
            let item = try #require(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray().first)
            #expect(item["label"] as? String == "Renamed")
            #expect(item["tags"] as? [String] == ["x"])
            #expect(item["favorite"] as? Bool == true)
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).out == "n1\n")

            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--account", "a", "--generate", "--length", "40"],
                                 input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out.count == 41)

            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--password-stdin"], input: "pw\n", in: dir)
            #expect(result.status == 64, "a missing password line is a usage error")
        }
    }

    @Test("passwd changes the master password")
    func passwd() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\nitem\n", in: dir)
            var result = try CLI.run(["passwd", "v.coffer"], input: "pw\nnew-master\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir)
            #expect(result.status == 77)
            result = try CLI.run(["get", "v.coffer", "--service", "s"], input: "new-master\n", in: dir)
            #expect(result.out == "item\n")
        }
    }

    @Test("init --key-file: password and key file together; add-keyfile and remove-keyfile (and the older keyfile add|remove)")
    func keyFiles() throws {
        try withTemporaryDirectory { dir in
            var result = try CLI.run(["init", "k.coffer", "--key-file", "first.key"] + fastKDF, input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("generated key file first.key"))
            let keyAttributes = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent("first.key").path)
            #expect((keyAttributes[.posixPermissions] as? Int) == 0o600)

            result = try CLI.run(["list", "k.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 64, "the password alone does not open a password+key-file slot")
            expectOneLineMessage(result, containing: "--key-file")
            result = try CLI.run(["list", "k.coffer", "--key-file", "first.key"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["add", "k.coffer", "--key-file", "first.key", "--service", "s"], input: "pw\nitem\n", in: dir)
            #expect(result.status == 0, "\(result.err)")

            // A key-file-only slot (--alone): no password is read.
            result = try CLI.run(["add-keyfile", "k.coffer", "second.key", "--alone", "--key-file", "first.key"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "k.coffer", "--service", "s", "--key-file", "second.key"], in: dir)
            #expect(result.out == "item\n", "\(result.err)")
            let slots = try CLI.run(["info", "k.coffer", "--json"], in: dir).jsonObject()["slots"] as? [[String: Any]]
            #expect(slots?.compactMap { $0["kind"] as? String } == ["password+key-file", "key-file"])

            // The first key file (with the password) still opens the vault.
            result = try CLI.run(["get", "k.coffer", "--service", "s", "--key-file", "first.key"], input: "pw\n", in: dir)
            #expect(result.out == "item\n", "\(result.err)")

            result = try CLI.run(["remove-keyfile", "k.coffer", "second.key", "--key-file", "first.key"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "k.coffer", "--service", "s", "--key-file", "second.key"], input: "pw\n", in: dir)
            #expect(result.status == 77, "the removed key file opens nothing: \(result.err)")

            // The last slot cannot be removed (here through the older spelling, still accepted).
            result = try CLI.run(["keyfile", "remove", "k.coffer", "first.key", "--key-file", "first.key"], input: "pw\n", in: dir)
            #expect(result.status == 64)
            expectOneLineMessage(result, containing: "last key slot")
        }
    }

    @Test("init --key-file --no-password: the key file alone")
    func keyFileOnly() throws {
        try withTemporaryDirectory { dir in
            var result = try CLI.run(["init", "n.coffer", "--key-file", "n.key", "--no-password"] + fastKDF, in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["add", "n.coffer", "--key-file", "n.key", "--service", "s"], input: "item\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["get", "n.coffer", "--key-file", "n.key", "--service", "s"], in: dir)
            #expect(result.out == "item\n")
            result = try CLI.run(["passwd", "n.coffer", "--key-file", "n.key"], in: dir)
            #expect(result.status == 64)
        }
    }

    @Test("check verifies every entry")
    func check() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "a"], input: "pw\n1\n", in: dir)
            try CLI.run(["add", "v.coffer", "--service", "b"], input: "pw\n2\n", in: dir)
            let result = try CLI.run(["check", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.contains("OK"))
            #expect(result.out.contains("2 entries"))
        }
    }

    @Test("get --service with several accounts asks for --account (exit 64)")
    func ambiguous() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "mail", "--account", "alice"], input: "pw\na\n", in: dir)
            try CLI.run(["add", "v.coffer", "--service", "mail", "--account", "bob"], input: "pw\nb\n", in: dir)
            var result = try CLI.run(["get", "v.coffer", "--service", "mail"], input: "pw\n", in: dir)
            #expect(result.status == 64)
            expectOneLineMessage(result, containing: "--account")
            result = try CLI.run(["get", "v.coffer", "--service", "mail", "--account", "bob"], input: "pw\n", in: dir)
            #expect(result.out == "b\n")
        }
    }

    @Test("generate, passphrase and estimate")
    func generators() throws {
        try withTemporaryDirectory { dir in
            var result = try CLI.run(["generate", "--length", "16", "--count", "3", "--no-symbols", "--require-each"], in: dir)
            #expect(result.status == 0)
            let lines = result.out.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.count == 16 && $0.allSatisfy { $0.isLetter || $0.isNumber } })

            result = try CLI.run(["generate", "--length", "12", "--no-upper", "--no-lower", "--no-symbols", "--exclude-similar"], in: dir)
            #expect(result.out.dropLast().allSatisfy { "23456789".contains($0) })

            result = try CLI.run(["passphrase", "--words", "4", "--separator", " ", "--count", "2"], in: dir)
            #expect(result.status == 0)
            let phrases = result.out.split(separator: "\n")
            #expect(phrases.count == 2)
            #expect(phrases.allSatisfy { $0.split(separator: " ").count == 4 })

            result = try CLI.run(["estimate"], input: "password\n", in: dir)
            #expect(result.status == 0)
            #expect(result.out.contains("score:    0/4"))
            #expect(!result.out.contains("password\n"))
        }
    }

    @Test("help for every command, with examples; shell completion")
    func help() throws {
        try withTemporaryDirectory { dir in
            let root = try CLI.run(["--help"], in: dir)
            #expect(root.status == 0)
            for code in ["64", "65", "73", "74", "75", "76", "77"] { #expect(root.out.contains("  \(code) ")) }
            #expect(root.out.contains("--generate-completion-script"))
            let commands = [["init"], ["info"], ["add"], ["note"], ["get"], ["list"], ["search"], ["tags"], ["audit"], ["edit"], ["remove"],
                            ["passwd"], ["add-keyfile"], ["remove-keyfile"], ["keyfile", "add"], ["keyfile", "remove"], ["check"],
                            ["generate"], ["passphrase"], ["estimate"], ["import"], ["export"], ["totp"],
                            ["sync"], ["merge"], ["merge-driver"], ["history"], ["resolve"]]
            for command in commands {
                let result = try CLI.run(command + ["--help"], in: dir)
                #expect(result.status == 0, "\(command)")
                #expect(result.out.contains("EXAMPLES:"), "\(command) --help has examples")
            }
            let bash = try CLI.run(["--generate-completion-script", "bash"], in: dir)
            #expect(bash.status == 0)
            #expect(bash.out.contains("complete"))
            #expect(bash.out.contains("passphrase"))
            for command in ["sync", "merge", "merge-driver", "history", "resolve", "--accept-rollback", "--keep-copies"] {
                #expect(bash.out.contains(command), "the bash completion knows \(command)")
            }
        }
    }
}

/// Issue 20, finding 5: there was no `restore` command, and the library's restore dropped
/// the version it replaced.
@Suite("coffer restore")
struct CLIRestoreTests {
    @Test("restore swaps the vault and its backup: restoring again undoes it; saves work after; a pipe needs --yes")
    func restore() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "a", "--account", "me", "--no-cache"], input: "pw\none\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "b", "--account", "me", "--no-cache"], input: "pw\ntwo\n", in: dir).status == 0)
            let before = try Data(contentsOf: dir.appendingPathComponent("v.coffer"))
            let refused = try CLI.run(["restore", "v.coffer", "--no-cache"], input: "pw\n", in: dir)
            #expect(refused.status == 64 && refused.err.contains("--yes"), "\(refused.err)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("v.coffer")) == before)

            let restored = try CLI.run(["restore", "v.coffer", "--yes", "--no-cache"], input: "pw\n", in: dir)
            #expect(restored.status == 0 && restored.err.contains("restored v.coffer"), "\(restored.err)")
            var listed = try CLI.run(["list", "v.coffer", "--json", "--no-cache"], input: "pw\n", in: dir)
            #expect(try listed.jsonArray().compactMap { $0["service"] as? String } == ["a"])
            #expect(!listed.err.contains("rolled back"), "\(listed.err)")
            #expect(try Data(contentsOf: dir.appendingPathComponent("v.coffer.bak")) == before)

            // Restoring again puts back what the first restore replaced: nothing was lost.
            #expect(try CLI.run(["restore", "v.coffer", "--yes", "--no-cache"], input: "pw\n", in: dir).status == 0)
            listed = try CLI.run(["list", "v.coffer", "--json", "--no-cache"], input: "pw\n", in: dir)
            #expect(try listed.jsonArray().compactMap { $0["service"] as? String }.sorted() == ["a", "b"])
            #expect(try Data(contentsOf: dir.appendingPathComponent("v.coffer")) == before)

            // The user chose the restored version: saving works without --accept-rollback.
            #expect(try CLI.run(["restore", "v.coffer", "--yes", "--no-cache"], input: "pw\n", in: dir).status == 0)
            let added = try CLI.run(["add", "v.coffer", "--service", "c", "--account", "me", "--no-cache"], input: "pw\nthree\n", in: dir)
            #expect(added.status == 0 && !added.err.contains("rolled back"), "\(added.err)")
            listed = try CLI.run(["list", "v.coffer", "--json", "--no-cache"], input: "pw\n", in: dir)
            #expect(try listed.jsonArray().compactMap { $0["service"] as? String }.sorted() == ["a", "c"])
        }
    }
}

/// Issue 20, finding 1: `list` showed the service in NAME but sorted by the hidden label.
@Suite("coffer list names items by their label")
struct CLIListLabelTests {
    @Test("NAME is the label when there is one, so the sort order reads right")
    func labels() throws {
        try withVault { dir in
            for (service, label) in [("zeta.example", "Alpha bank"), ("alpha.example", "Zulu mail")] {
                let added = try CLI.run(["add", "v.coffer", "--service", service, "--account", "me", "--label", label, "--no-cache"],
                                        input: "pw\nsecret\n", in: dir)
                #expect(added.status == 0, "\(added.err)")
            }
            #expect(try CLI.run(["add", "v.coffer", "--service", "mid.example", "--account", "me", "--no-cache"], input: "pw\ns\n", in: dir).status == 0)
            let lines = try CLI.run(["list", "v.coffer", "--no-cache"], input: "pw\n", in: dir).out.split(separator: "\n").dropFirst()
            // Sorted by the label (else the service), which now leads each line.
            #expect(lines.count == 3 && lines[lines.startIndex].hasPrefix("Alpha bank (zeta.example)"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Zulu mail (alpha.example)") } && lines.contains { $0.hasPrefix("mid.example ") }, "\(lines)")
        }
    }
}

import Foundation
import Testing
import CofferTestSupport

/// The documented `--json` shapes: exact key sets and value types.
@Suite("coffer --json shapes")
struct CLIJSONShapeTests {
    @Test("info --json")
    func info() throws {
        try withVault { dir in
            let json = try CLI.run(["info", "v.coffer", "--json"], in: dir).jsonObject()
            #expect(Set(json.keys) == ["path", "formatVersion", "vaultID", "generation", "entryCount", "fileSize", "opensWith",
                                       "keyFileRequired", "slots"])
            #expect(json["opensWith"] as? [String] == ["password"])
            #expect(json["keyFileRequired"] as? Bool == false)
            #expect(json["path"] as? String == "v.coffer")
            #expect(json["formatVersion"] as? Int == 2)
            #expect((json["vaultID"] as? String)?.count == 32)
            #expect(json["generation"] as? Int == 1)
            #expect(json["entryCount"] as? Int == 0)
            #expect((json["fileSize"] as? Int ?? 0) > 0)
            let slot = try #require((json["slots"] as? [[String: Any]])?.first)
            #expect(Set(slot.keys) == ["kind", "kdf"])
            #expect(slot["kind"] as? String == "password")
            let kdf = try #require(slot["kdf"] as? [String: Any])
            #expect(Set(kdf.keys) == ["algorithm", "memoryKiB", "iterations", "parallelism"])
            #expect(kdf["algorithm"] as? String == "argon2id")
            #expect(kdf["memoryKiB"] as? Int == 1024)
            #expect(kdf["iterations"] as? Int == 1)
            #expect(kdf["parallelism"] as? Int == 1)
        }
    }

    @Test("list --json and search --json: attributes, never secrets")
    func list() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "github.com", "--account", "octocat", "--label", "GitHub",
                         "--tag", "work", "--comment", "personal", "--field", "plan=pro", "--notes",
                         "--favorite"], input: "pw\nsecret-password\nsecret-notes\n", in: dir)
            let expectedKeys: Set<String> = ["id", "kind", "label", "service", "account", "server", "protocol", "port",
                                             "path", "urls", "tags", "favorite", "comment", "fields", "created", "modified", "expires"]
            for arguments in [["list", "v.coffer", "--json"], ["search", "v.coffer", "octo", "--json"]] {
                let result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(!result.out.contains("secret-"))
                let items = try result.jsonArray()
                #expect(items.count == 1)
                let item = try #require(items.first)
                #expect(Set(item.keys) == expectedKeys)
                #expect((item["id"] as? String)?.count == 32)
                #expect(item["kind"] as? String == "generic-password")
                #expect(item["label"] as? String == "GitHub")
                #expect(item["service"] as? String == "github.com")
                #expect(item["account"] as? String == "octocat")
                #expect(item["server"] is NSNull)
                #expect(item["port"] is NSNull)
                #expect(item["urls"] as? [String] == [])
                #expect(item["tags"] as? [String] == ["work"])
                #expect(item["favorite"] as? Bool == true)
                #expect(item["comment"] as? String == "personal")
                #expect((item["fields"] as? [[String: String]]) == [["name": "plan", "value": "pro"]])
                let created = try #require(item["created"] as? String)
                let modified = try #require(item["modified"] as? String)
                let isoDate = #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/#
                #expect(created.wholeMatch(of: isoDate) != nil, "\(created)")
                #expect(modified.wholeMatch(of: isoDate) != nil, "\(modified)")
            }
        }
    }

    @Test("get --json: password, escaping, and --field")
    func get() throws {
        try withVault { dir in
            let tricky = "quo\"te\\back\\slash\ttab ünï"
            try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\n\(tricky)\n", in: dir)
            let json = try CLI.run(["get", "v.coffer", "--service", "s", "--json"], input: "pw\n", in: dir).jsonObject()
            #expect(Set(json.keys) == ["id", "kind", "label", "service", "account", "server", "password"])
            #expect(json["password"] as? String == tricky)
            #expect(json["service"] as? String == "s")
            #expect(json["account"] as? String == "a")
            #expect(json["label"] is NSNull)
        }
    }

    @Test("generate --json, passphrase --json, estimate --json")
    func generators() throws {
        try withTemporaryDirectory { dir in
            let generated = try CLI.run(["generate", "--json", "--count", "3", "--length", "24"], in: dir).jsonObject()
            #expect(Set(generated.keys) == ["length", "entropyBits", "characters", "passwords"])
            #expect(generated["length"] as? Int == 24)
            #expect((generated["entropyBits"] as? Double ?? 0) > 150)
            #expect((generated["characters"] as? String)?.count == 94)
            let passwords = try #require(generated["passwords"] as? [String])
            #expect(passwords.count == 3)
            #expect(passwords.allSatisfy { $0.count == 24 })

            // A space separator: four words of EFF's list contain the default "-" themselves.
            let phrase = try CLI.run(["passphrase", "--json", "--words", "5", "--separator", " "], in: dir).jsonObject()
            #expect(Set(phrase.keys) == ["words", "separator", "entropyBits", "passphrases"])
            #expect(phrase["words"] as? Int == 5)
            #expect(phrase["separator"] as? String == " ")
            #expect(abs((phrase["entropyBits"] as? Double ?? 0) - 64.62) < 0.01)
            #expect((phrase["passphrases"] as? [String])?.first?.split(separator: " ").count == 5)

            let estimate = try CLI.run(["estimate", "--json"], input: "qwerty\n", in: dir).jsonObject()
            #expect(Set(estimate.keys) == ["score", "guesses", "guessesLog10", "bits", "warning", "suggestions", "patterns"])
            #expect(estimate["score"] as? Int == 0)
            #expect(estimate["warning"] is String)
            #expect(estimate["suggestions"] is [String])
            let pattern = try #require((estimate["patterns"] as? [[String: Any]])?.first)
            #expect(Set(pattern.keys) == ["kind", "start", "end", "guessesLog10", "dictionary", "reversed", "l33t", "misspelt"])
            #expect(pattern["start"] as? Int == 0)
            #expect(pattern["end"] as? Int == 6)
        }
    }
}

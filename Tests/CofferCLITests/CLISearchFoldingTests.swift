import CofferTestSupport
import Foundation
import Testing

/// Issue 20, finding 9: search was a case-insensitive substring only (`gthub` found
/// nothing, `unicode` did not find `Ünïcödé`), tags were case-sensitive, and tags could
/// not be listed.
@Suite("coffer search and tags: folding, fuzzy matches, tag counts")
struct CLISearchFoldingTests {
    static func names(_ result: CLIResult) throws -> [String] {
        try result.jsonArray().compactMap { $0["service"] as? String }
    }

    @Test("search ignores case and diacritics: unicode finds Ünïcödé, and ÜNICODE does too")
    func diacritics() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "Ünïcödé Bank"], input: "pw\nx\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "other"], input: "pw\ny\n", in: dir).status == 0)
            for text in ["unicode", "ÜNICODE", "bänk"] {
                let result = try CLI.run(["search", "v.coffer", text, "--json"], input: "pw\n", in: dir)
                #expect(result.status == 0, "\(text): \(result.err)")
                #expect(try Self.names(result) == ["Ünïcödé Bank"], "\(text)")
            }
        }
    }

    @Test("get names an item as search finds it: `societe generale` is Société Générale (one folding rule)")
    func getFoldsAsSearch() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "Société Générale"], input: "pw\nbank-pw\n", in: dir).status == 0)
            let found = try CLI.run(["search", "v.coffer", "societe generale", "--json"], input: "pw\n", in: dir)
            #expect(try Self.names(found) == ["Société Générale"])
            let got = try CLI.run(["get", "v.coffer", "societe generale"], input: "pw\n", in: dir)
            #expect(got.status == 0, "\(got.err)")
            #expect(got.out == "bank-pw\n")
        }
    }

    @Test("gthub finds github as a subsequence, listed after the items that contain gthub; short texts are not fuzzy")
    func fuzzyAfterSubstring() throws {
        try withVault { dir in
            for service in ["github.com", "gthub-tools", "gitlab.com"] {
                #expect(try CLI.run(["add", "v.coffer", "--service", service], input: "pw\nx\n", in: dir).status == 0)
            }
            let result = try CLI.run(["search", "v.coffer", "gthub", "--json"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try Self.names(result) == ["gthub-tools", "github.com"])
            let none = try CLI.run(["search", "v.coffer", "zz", "--json"], input: "pw\n", in: dir)
            #expect(none.status == 1)
            let short = try CLI.run(["search", "v.coffer", "gb", "--json"], input: "pw\n", in: dir)
            #expect(short.status == 1, "two letters are not tried as a subsequence: \(short.out)")
        }
    }

    @Test("tags match ignoring case; coffer tags lists each tag with its count")
    func tags() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "a", "--tag", "Work"], input: "pw\nx\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "b", "--tag", "work", "--tag", "bank"], input: "pw\nx\n", in: dir).status == 0)
            #expect(try CLI.run(["add", "v.coffer", "--service", "c", "--tag", "work"], input: "pw\nx\n", in: dir).status == 0)
            let list = try CLI.run(["list", "v.coffer", "--tag", "WORK", "--json"], input: "pw\n", in: dir)
            #expect(list.status == 0, "\(list.err)")
            #expect(try Self.names(list) == ["a", "b", "c"])

            let text = try CLI.run(["tags", "v.coffer"], input: "pw\n", in: dir)
            #expect(text.status == 0, "\(text.err)")
            #expect(text.out == "1  bank\n3  work\n")
            let json = try CLI.run(["tags", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray()
            #expect(json.map { $0["tag"] as? String } == ["bank", "work"])
            #expect(json.map { $0["count"] as? Int } == [1, 3])
        }
    }

    @Test("tags are folders: list --tag Work includes Work/Email, not Workshop; tags shows the tree (issue 28, finding 12)")
    func tagFolders() throws {
        try withVault { dir in
            for (service, tags) in [("a", ["Work"]), ("b", ["Work/Email"]), ("c", ["work/email/Old", "Work/Email"]), ("d", ["Workshop"]),
                                    ("e", ["Home/Bank"]), ("f", ["Work-x"])] {
                let added = try CLI.run(["add", "v.coffer", "--service", service] + tags.flatMap { ["--tag", $0] }, input: "pw\nx\n", in: dir)
                try #require(added.status == 0, "\(added.err)")
            }
            for (tag, expected) in [("Work", ["a", "b", "c"]), ("work/email", ["b", "c"]), ("Work/", ["a", "b", "c"]), ("Home", ["e"])] {
                let list = try CLI.run(["list", "v.coffer", "--tag", tag, "--json"], input: "pw\n", in: dir)
                #expect(try Self.names(list) == expected, "--tag \(tag)")
            }
            let text = try CLI.run(["tags", "v.coffer"], input: "pw\n", in: dir)
            #expect(text.out == "1  Home\n1    Bank\n3  Work\n2    Email\n1      Old\n1  Work-x\n1  Workshop\n", "\(text.out)")
            let json = try CLI.run(["tags", "v.coffer", "--json"], input: "pw\n", in: dir).jsonArray()
            #expect(json.map { $0["tag"] as? String } == ["Home", "Home/Bank", "Work", "Work/Email", "work/email/Old", "Work-x", "Workshop"])
            #expect(json.map { $0["count"] as? Int } == [0, 1, 1, 2, 1, 1, 1])
            #expect(json.map { $0["total"] as? Int } == [1, 1, 3, 2, 1, 1, 1])
        }
    }

}

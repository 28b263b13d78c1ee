import Foundation
import Testing

/// Issue 15, finding 12: names with terminal escape sequences are never printed raw.
@Suite("coffer control characters in names")
struct CLIControlCharacterTests {
    /// ESC ] 0 ; title BEL (retitles a terminal), CSI as a C1 character, DEL, CR, TAB.
    static let hostile = "evil\u{1B}]0;pwned\u{07}-\u{9B}2J-\u{7F}-\r-\t-\u{1B}[31m"
    static let shown = #"evil\u{1B}]0;pwned\u{07}-\u{9B}2J-\u{7F}-\u{0D}-\u{09}-\u{1B}[31m"#

    /// True when `data` holds a C0 control other than "\n", DEL, or a C1 control (UTF-8 C2 80…9F).
    static func hasRawControl(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        for (index, byte) in bytes.enumerated() {
            if (byte < 0x20 && byte != 0x0A) || byte == 0x7F { return true }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return true }
        }
        return false
    }

    func expectClean(_ result: CLIResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!Self.hasRawControl(result.stdout), "\(what): raw control characters on stdout", sourceLocation: sourceLocation)
        #expect(!Self.hasRawControl(result.stderr), "\(what): raw control characters on stderr", sourceLocation: sourceLocation)
    }

    @Test("add, list, search, get errors and duplicate messages escape control characters")
    func commands() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", Self.hostile, "--account", Self.hostile, "--tag", Self.hostile],
                                     input: "pw\nitem-pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            expectClean(result, "add")
            #expect(result.err.contains(Self.shown))

            result = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            expectClean(result, "list")
            #expect(result.out.contains(Self.shown))

            result = try CLI.run(["search", "v.coffer", "pwned"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            expectClean(result, "search")
            #expect(result.out.contains(Self.shown))

            // --json was already escaped, and still round-trips the name.
            result = try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir)
            // (JSON escapes C0 controls; DEL and C1 are valid raw in JSON strings.)
            #expect(!result.stdout.dropLast().contains { $0 < 0x20 }, "list --json: raw C0 controls")
            #expect(try result.jsonArray().first?["service"] as? String == Self.hostile)

            result = try CLI.run(["add", "v.coffer", "--service", Self.hostile, "--account", Self.hostile], input: "pw\nx\n", in: dir)
            #expect(result.status == 2)
            expectClean(result, "duplicate add")
            result = try CLI.run(["get", "v.coffer", "--service", Self.hostile + "x"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            expectClean(result, "get with no match")
            result = try CLI.run(["search", "v.coffer", "\u{1B}]0;nothing\u{07}"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            expectClean(result, "search with no match")
            result = try CLI.run(["edit", "v.coffer", "--service", Self.hostile, "--label", "L\u{1B}[2J"], input: "pw\n", in: dir)
            #expect(result.status == 0)
            expectClean(result, "edit")
        }
    }

    @Test("the import summary escapes control characters in names")
    func importSummary() throws {
        try withVault { dir in
            let csv = "name,url,username,password\n\"\(Self.hostile)\",,\"user\u{1B}]2;t\u{07}\",secret\n"
            try Data(csv.utf8).write(to: dir.appendingPathComponent("in.csv"))
            var result = try CLI.run(["import", "v.coffer", "--format", "csv", "in.csv"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            expectClean(result, "import")
            // The second import reports the entry as a duplicate, by name.
            result = try CLI.run(["import", "v.coffer", "--format", "csv", "in.csv"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            expectClean(result, "import of duplicates")
            #expect(result.err.contains(Self.shown))
        }
    }

    @Test("a backslash is doubled, so an escape is never ambiguous")
    func backslash() throws {
        try withVault { dir in
            let result = try CLI.run(["add", "v.coffer", "--service", #"CORP\u{1B}"#, "--account", #"DOMAIN\alice"#],
                                     input: "pw\nitem-pw\n", in: dir)
            #expect(result.status == 0)
            let list = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(list.out.contains(#"CORP\\u{1B}"#) && list.out.contains(#"DOMAIN\\alice"#))
        }
    }
}

import CofferTestSupport
import Foundation
import Testing

/// Issue 28, finding 6: the model held attachments but the CLI had no way to add, list,
/// read or remove one (`attach`, `attachments`, `get --attachment`, `detach`).
@Suite("coffer attach, attachments, get --attachment, detach")
struct CLIAttachmentTests {
    static func withItem(_ body: (URL) throws -> Void) throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "github.com", "--account", "octocat"], input: "pw\ngh\n", in: dir)
            try #require(added.status == 0, "\(added.err)")
            try body(dir)
        }
    }

    @Test("attach keeps a file's exact bytes; attachments lists it; get --attachment prints it or writes a new 0600 file")
    func roundTrip() throws {
        try Self.withItem { dir in
            let bytes = Data([0, 1, 2, 0xFF, 0x0A, 0x1B] + Array("codes\n".utf8))
            try bytes.write(to: dir.appendingPathComponent("codes.bin"))
            let attached = try CLI.run(["attach", "v.coffer", "github.com", "codes.bin"], input: "pw\n", in: dir)
            #expect(attached.status == 0 && attached.err.contains("attached codes.bin (12 bytes)"), "\(attached.err)")
            // With an option naming the item, the one positional is the file.
            let second = try CLI.run(["attach", "v.coffer", "--service", "github.com", "codes.bin", "--as", "copy.bin"], input: "pw\n", in: dir)
            #expect(second.status == 0, "\(second.err)")

            let listed = try CLI.run(["attachments", "v.coffer", "github"], input: "pw\n", in: dir)
            #expect(listed.out == "12  codes.bin\n12  copy.bin\n", "\(listed.out)")
            let json = try CLI.run(["attachments", "v.coffer", "github.com", "--json"], input: "pw\n", in: dir).jsonArray()
            #expect(json.compactMap { $0["name"] as? String } == ["codes.bin", "copy.bin"] && json.first?["size"] as? Int == 12)

            let printed = try CLI.run(["get", "v.coffer", "github.com", "--attachment", "codes.bin"], input: "pw\n", in: dir)
            #expect(printed.status == 0 && printed.stdout == bytes, "\(printed.err)")
            let written = try CLI.run(["get", "v.coffer", "github.com", "--attachment", "codes.bin", "--output", "out.bin"], input: "pw\n", in: dir)
            #expect(written.status == 0 && written.out.isEmpty, "\(written.err)")
            let out = dir.appendingPathComponent("out.bin")
            #expect(try Data(contentsOf: out) == bytes)
            #expect((try FileManager.default.attributesOfItem(atPath: out.path)[.posixPermissions] as? Int) == 0o600)
            let again = try CLI.run(["get", "v.coffer", "github.com", "--attachment", "codes.bin", "--output", "out.bin"], input: "pw\n", in: dir)
            #expect(again.status == 73, "never over an existing file: \(again.err)")
            let missing = try CLI.run(["get", "v.coffer", "github.com", "--attachment", "nope.bin"], input: "pw\n", in: dir)
            #expect(missing.status == 1)
            expectOneLineMessage(missing, containing: "has no attachment named nope.bin")
        }
    }

    @Test("A name already attached is exit 2 unless --replace; detach removes one, a missing one is exit 1; too large a file is refused before the password")
    func replaceDetachAndBounds() throws {
        try Self.withItem { dir in
            try Data("one".utf8).write(to: dir.appendingPathComponent("a.txt"))
            #expect(try CLI.run(["attach", "v.coffer", "github.com", "a.txt"], input: "pw\n", in: dir).status == 0)
            try Data("two!".utf8).write(to: dir.appendingPathComponent("a.txt"))
            let twice = try CLI.run(["attach", "v.coffer", "github.com", "a.txt"], input: "pw\n", in: dir)
            #expect(twice.status == 2)
            expectOneLineMessage(twice, containing: "add --replace")
            #expect(try CLI.run(["attach", "v.coffer", "github.com", "a.txt", "--replace"], input: "pw\n", in: dir).status == 0)
            #expect(try CLI.run(["get", "v.coffer", "github.com", "--attachment", "a.txt"], input: "pw\n", in: dir).out == "two!")

            let detached = try CLI.run(["detach", "v.coffer", "github.com", "a.txt"], input: "pw\n", in: dir)
            #expect(detached.status == 0, "\(detached.err)")
            #expect(try CLI.run(["attachments", "v.coffer", "github"], input: "pw\n", in: dir).out.isEmpty)
            let gone = try CLI.run(["detach", "v.coffer", "github.com", "a.txt"], input: "pw\n", in: dir)
            #expect(gone.status == 1)

            let big = dir.appendingPathComponent("big.bin")
            try Data(count: 16 << 20 + 1).write(to: big)
            let tooLarge = try CLI.run(["attach", "v.coffer", "github.com", "big.bin"], input: "", in: dir)
            #expect(tooLarge.status == 64, "\(tooLarge.err)")
            #expect(!tooLarge.err.contains("Master password"), "refused before the password: \(tooLarge.err)")
            let noFile = try CLI.run(["attach", "v.coffer", "github"], input: "pw\n", in: dir)
            #expect(noFile.status == 64)
        }
    }
}

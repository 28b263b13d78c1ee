import CofferTestSupport
import Foundation
import Testing

/// Issue 20, finding 4: `add-keyfile` added a slot that the file alone opened, a way in
/// that needs no password. Now the default slot needs the password and the file (a second
/// factor); `--alone` asks for a file-only slot, and the message says which was added.
@Suite("coffer add-keyfile: a second factor by default, --alone for the file alone")
struct CLIKeyFileSlotTests {
    @Test("The default slot does not open with the file alone, and opens with the password and the file")
    func secondFactorByDefault() throws {
        try withVault(password: "master pw") { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "s"], input: "master pw\nitem\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["add-keyfile", "v.coffer", "f.key"], input: "master pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("password+key-file slot"), "\(result.err)")
            #expect(result.err.contains("needs the master password and the key file"), "\(result.err)")
            let slots = try CLI.run(["info", "v.coffer", "--json"], in: dir).jsonObject()["slots"] as? [[String: Any]]
            #expect(slots?.compactMap { $0["kind"] as? String } == ["password", "password+key-file"])

            // The file alone: a password is needed, and none is given.
            result = try CLI.run(["get", "v.coffer", "--service", "s", "--key-file", "f.key", "--no-cache"], input: "", in: dir)
            #expect(result.status != 0)
            #expect(result.out.isEmpty)
            // With a wrong password, the file does not open it either.
            result = try CLI.run(["get", "v.coffer", "--service", "s", "--key-file", "f.key", "--no-cache"], input: "wrong\n", in: dir)
            #expect(result.status == 77, "\(result.err)")
            // The password and the file together open it.
            result = try CLI.run(["get", "v.coffer", "--service", "s", "--key-file", "f.key", "--no-cache"], input: "master pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "item\n")
        }
    }

    @Test("--alone adds a slot that the file alone opens, and says so")
    func alone() throws {
        try withVault(password: "master pw") { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "s"], input: "master pw\nitem\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["add-keyfile", "v.coffer", "f.key", "--alone"], input: "master pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.err.contains("key-file slot"), "\(result.err)")
            #expect(result.err.contains("opens with the key file alone"), "\(result.err)")
            result = try CLI.run(["get", "v.coffer", "--service", "s", "--key-file", "f.key", "--no-cache"], input: "", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out == "item\n")
        }
    }

    @Test("A vault opened by a key file alone gets no password+file slot without --alone (exit 64, no file generated)")
    func noPasswordToPair() throws {
        try withTemporaryDirectory { dir in
            var result = try CLI.run(["init", "n.coffer", "--key-file", "n.key", "--no-password"] + fastKDF, in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["add-keyfile", "n.coffer", "other.key", "--key-file", "n.key"], in: dir)
            #expect(result.status == 64)
            expectOneLineMessage(result, containing: "--alone")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("other.key").path))
        }
    }
}

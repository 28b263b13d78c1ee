import Foundation
import Testing
import CofferTestSupport
/// Each documented exit code, triggered for real.
@Suite("coffer exit codes")
struct CLIExitCodeTests {
    @Test("1: no item matched")
    func noMatch() throws {
        try withVault { dir in
            var result = try CLI.run(["get", "v.coffer", "--service", "nothing"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            expectOneLineMessage(result, containing: "no item matched")
            result = try CLI.run(["remove", "v.coffer", "--service", "nothing", "--account", "x"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            result = try CLI.run(["search", "v.coffer", "nothing"], input: "pw\n", in: dir)
            #expect(result.status == 1)
            result = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 0, "an unfiltered list of an empty vault is not a failure")
        }
    }

    @Test("2: item already exists")
    func duplicate() throws {
        try withVault { dir in
            var result = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\none\n", in: dir)
            #expect(result.status == 0)
            result = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\ntwo\n", in: dir)
            #expect(result.status == 2)
            expectOneLineMessage(result, containing: "already exists")
            #expect(!result.err.contains("two"))
        }
    }

    @Test("64: usage errors, from ArgumentParser and from validation")
    func usage() throws {
        try withTemporaryDirectory { dir in
            let cases: [[String]] = [
                ["get"],                                            // missing VAULT
                ["frobnicate"],                                     // unknown command
                ["list", "v.coffer", "--bogus"],                    // unknown flag
                ["init", "v.coffer", "--kdf-memory", "0"],          // out of range
                ["init", "v.coffer", "--kdf-iterations", "65"],
                ["init", "v.coffer", "--kdf-parallelism", "0"],
                ["init", "v.coffer", "--kdf-memory", "lots"],       // not a number
                ["add", "v.coffer", "--account", "a"],              // neither --service nor --server
                ["add", "v.coffer", "--service", "s", "--length", "10"], // generator flag without --generate
                ["get", "v.coffer", "--service", "s", "--id", "00"],
                ["generate", "--length", "2"],
                ["generate", "--no-upper", "--no-lower", "--no-digits", "--no-symbols"],
                ["passphrase", "--separator", "x"],
            ]
            for arguments in cases {
                let result = try CLI.run(arguments, in: dir)
                #expect(result.status == 64, "\(arguments): \(result.err)")
                expectOneLineMessage(result)
            }
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("v.coffer").path))
        }
        try withVault { dir in
            // Missing password line on a pipe.
            let result = try CLI.run(["list", "v.coffer"], input: "", in: dir)
            #expect(result.status == 64)
            expectOneLineMessage(result, containing: "master password")
            // init refuses an empty password.
            let empty = try CLI.run(["init", "w.coffer"] + fastKDF, input: "\n", in: dir)
            #expect(empty.status == 64)
        }
    }

    @Test("65: not a Coffer file, or tampered with")
    func unreadable() throws {
        try withVault { dir in
            try Data("this is not a vault, just some text\n".utf8).write(to: dir.appendingPathComponent("garbage.coffer"))
            var result = try CLI.run(["list", "garbage.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 65)
            expectOneLineMessage(result, containing: "not a Coffer vault")
            result = try CLI.run(["info", "garbage.coffer"], in: dir)
            #expect(result.status == 65)

            try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\nitem\n", in: dir)
            let url = dir.appendingPathComponent("v.coffer")
            var bytes = [UInt8](try Data(contentsOf: url))
            bytes[bytes.count - 40] ^= 0x01
            try Data(bytes).write(to: url)
            result = try CLI.run(["check", "v.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 65, "\(result.err)")
            expectOneLineMessage(result)
        }
    }

    @Test("73: cannot create — the file exists, or its folder is missing")
    func cannotCreate() throws {
        try withVault { dir in
            var result = try CLI.run(["init", "v.coffer"] + fastKDF, input: "pw\n", in: dir)
            #expect(result.status == 73)
            expectOneLineMessage(result, containing: "exists")
            result = try CLI.run(["init", "missing/folder/v.coffer"] + fastKDF, input: "pw\n", in: dir)
            #expect(result.status == 73)
            expectOneLineMessage(result, containing: "missing/folder")
        }
    }

    @Test("74: I/O error — the vault path is a folder, or the file is missing")
    func ioError() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("folder.coffer"), withIntermediateDirectories: true)
            var result = try CLI.run(["list", "folder.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 74)
            expectOneLineMessage(result)
            result = try CLI.run(["list", "absent.coffer"], input: "pw\n", in: dir)
            #expect(result.status == 74)
            expectOneLineMessage(result, containing: "absent.coffer")
        }
    }

    @Test("75: busy — another process holds the write lock")
    func busy() throws {
        try withVault { dir in
            let lockPath = dir.appendingPathComponent("v.coffer.lock").path
            let fd = open(lockPath, O_RDWR | O_CREAT, 0o600)
            try #require(fd >= 0)
            defer { close(fd) }
            try #require(flock(fd, LOCK_EX) == 0)
            let started = Date()
            let result = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a", "--lock-timeout", "0.3"],
                                     input: "pw\nitem\n", in: dir)
            #expect(result.status == 75)
            expectOneLineMessage(result, containing: "lock")
            #expect(Date().timeIntervalSince(started) < 10)
            flock(fd, LOCK_UN)
            let again = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\nitem\n", in: dir)
            #expect(again.status == 0)
        }
    }

    @Test("77: wrong password or key")
    func wrongCredential() throws {
        try withVault { dir in
            var result = try CLI.run(["list", "v.coffer"], input: "not-the-password\n", in: dir)
            #expect(result.status == 77)
            #expect(result.err == "coffer: wrong password or key for v.coffer\n")
            #expect(!result.err.contains("not-the-password"))

            let key = dir.appendingPathComponent("random.key")
            try Data((0..<64).map { _ in UInt8.random(in: 0...255) }).write(to: key)
            result = try CLI.run(["remove-keyfile", "v.coffer", "random.key"], input: "pw\n", in: dir)
            #expect(result.status == 77, "a key file that opens no slot: \(result.err)")
        }
    }
}

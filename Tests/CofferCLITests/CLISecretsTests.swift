import Foundation
import Testing

/// Secrets at rest and on the way out.
@Suite("coffer secrets")
struct CLISecretsTests {
    @Test("the plaintext of a secret and of its service name never appear in the vault file's bytes")
    func nothingInPlaintext() throws {
        try withVault(password: "master-pass-phrase") { dir in
            let service = "zebra-service-7d1f.example"
            let password = "hunter2-plaintext-9c4e"
            let note = "note-body-plaintext-51aa"
            var result = try CLI.run(["add", "v.coffer", "--service", service, "--account", "account-plain-33f0"],
                                     input: "master-pass-phrase\n\(password)\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            result = try CLI.run(["note", "v.coffer", "--title", "title-plain-0b9d"], input: "master-pass-phrase\n\(note)\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            for file in ["v.coffer", "v.coffer.bak"] {
                let bytes = try Data(contentsOf: dir.appendingPathComponent(file))
                for plaintext in [service, password, note, "account-plain-33f0", "title-plain-0b9d", "master-pass-phrase"] {
                    #expect(bytes.range(of: Data(plaintext.utf8)) == nil, "\(plaintext) found in \(file)")
                }
            }
        }
    }

    @Test("messages never carry secrets; only get prints the password")
    func noSecretsInMessages() throws {
        try withVault { dir in
            let secret = "very-secret-item-password"
            var result = try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\n\(secret)\n", in: dir)
            #expect(!result.out.contains(secret) && !result.err.contains(secret))
            for arguments in [["list", "v.coffer"], ["search", "v.coffer", "s"], ["check", "v.coffer"], ["list", "v.coffer", "--json"]] {
                result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(!result.out.contains(secret) && !result.err.contains(secret), "\(arguments)")
                #expect(!result.err.contains("pw"), "\(arguments)")
            }
        }
    }

    @Test("get --clip copies with a clipboard tool and clears it afterwards")
    func clipboard() throws {
        try withVault { dir in
            try CLI.run(["add", "v.coffer", "--service", "s", "--account", "a"], input: "pw\nclip-secret\n", in: dir)
            // A stand-in xclip that writes what it receives to a file.
            let bin = dir.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let clip = dir.appendingPathComponent("clipboard.txt")
            let tool = bin.appendingPathComponent("xclip")
            try Data("#!/bin/sh\ncat > '\(clip.path)'\n".utf8).write(to: tool)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)

            var environment = ProcessInfo.processInfo.environment
            environment["PATH"] = bin.path + ":/usr/bin:/bin"
            environment["DISPLAY"] = ":99"
            environment["WAYLAND_DISPLAY"] = nil
            let result = try CLI.run(["get", "v.coffer", "--service", "s", "--clip", "--clear-after", "1"],
                                     input: "pw\n", in: dir, environment: environment)
            #expect(result.status == 0, "\(result.err)")
            #expect(result.out.isEmpty, "nothing on stdout with --clip")
            #expect(try String(contentsOf: clip, encoding: .utf8) == "clip-secret")
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, (try? Data(contentsOf: clip))?.isEmpty == false { usleep(100_000) }
            #expect(try Data(contentsOf: clip).isEmpty, "the clipboard was cleared")

            // No tool, no display: a clear failure.
            environment["PATH"] = dir.appendingPathComponent("empty").path
            environment["DISPLAY"] = nil
            let none = try CLI.run(["get", "v.coffer", "--service", "s", "--clip"], input: "pw\n", in: dir, environment: environment)
            #expect(none.status == 74)
            expectOneLineMessage(none, containing: "no clipboard tool")
        }
    }
}

import Foundation
import Testing

/// Issue 15, finding 6: notes are secrets, read from the prompt or stdin, never from argv.
@Suite("coffer --notes")
struct CLINotesTests {
    @Test("add --notes reads the rest of stdin after the other lines; argv never holds the notes")
    func addReadsNotesFromStdin() throws {
        try withVault { dir in
            let binary = try #require(CLI.binary)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["add", "v.coffer", "--service", "s", "--account", "a", "--secret-field", "pin", "--notes"]
            process.currentDirectoryURL = dir
            process.environment = CLI.environment
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data("pw\nitem-pw\n1234\nfirst-note-line-7c1e\n".utf8))
            // While it waits for the rest of the notes, what `ps` shows holds none of them.
            // (Process.run may return while the child is still in execve, whose cmdline reads
            // as empty for a moment: wait for it.)
            var cmdline = Data()
            for _ in 0..<200 {
                cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/cmdline"))
                if !cmdline.isEmpty { break }
                usleep(10_000)
            }
            #expect(cmdline.range(of: Data("note-line".utf8)) == nil)
            #expect(cmdline.split(separator: 0).last == Data("--notes".utf8))
            input.fileHandleForWriting.write(Data("second line\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)

            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).out
                    == "first-note-line-7c1e\nsecond line\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "item-pw\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "pin"], input: "pw\n", in: dir).out == "1234\n")
            // With --generate, the notes follow the master password.
            let result = try CLI.run(["add", "v.coffer", "--service", "g", "--generate", "--notes"], input: "pw\ngenerated notes\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "g", "--field", "notes"], input: "pw\n", in: dir).out == "generated notes\n")
        }
    }

    @Test("--notes TEXT and --notes=TEXT are refused with exit 64, without echoing or storing the text")
    func valueOnCommandLineRefused() throws {
        try withVault { dir in
            let text = "argv-note-secret-4f2a"
            for arguments in [["add", "v.coffer", "--service", "s", "--notes", text],
                              ["add", "v.coffer", "--notes", text, "--service", "s"],
                              ["add", "v.coffer", "--service", "s", "--notes=\(text)"]] {
                let result = try CLI.run(arguments, input: "pw\nitem-pw\n", in: dir)
                #expect(result.status == 64, "\(arguments): \(result.err)")
                expectOneLineMessage(result, containing: "stdin")
                #expect(!result.err.contains(text) && !result.out.contains(text))
            }
            #expect(try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir).out.isEmpty, "nothing was stored")

            #expect(try CLI.run(["add", "v.coffer", "--service", "s"], input: "pw\nitem-pw\n", in: dir).status == 0)
            for arguments in [["edit", "v.coffer", "--service", "s", "--notes", text],
                              ["edit", "v.coffer", "--service", "s", "--notes=\(text)"]] {
                let result = try CLI.run(arguments, input: "pw\n", in: dir)
                #expect(result.status == 64, "\(arguments): \(result.err)")
                #expect(!result.err.contains(text))
            }
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).status == 1)
        }
    }

    @Test("edit --notes: the notes follow the master password (or the new password and secret fields); empty removes them")
    func editReadsNotes() throws {
        try withVault { dir in
            #expect(try CLI.run(["add", "v.coffer", "--service", "s"], input: "pw\nitem-pw\n", in: dir).status == 0)
            var result = try CLI.run(["edit", "v.coffer", "--service", "s", "--notes"], input: "pw\nnew notes\nmore\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).out == "new notes\nmore\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "item-pw\n", "the password is kept")

            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--password-stdin", "--secret-field", "pin", "--notes"],
                                 input: "pw\nnew-pw\n99\nthird notes\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s"], input: "pw\n", in: dir).out == "new-pw\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "pin"], input: "pw\n", in: dir).out == "99\n")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).out == "third notes\n")

            result = try CLI.run(["edit", "v.coffer", "--service", "s", "--notes"], input: "pw\n", in: dir)
            #expect(result.status == 0, "\(result.err)")
            #expect(try CLI.run(["get", "v.coffer", "--service", "s", "--field", "notes"], input: "pw\n", in: dir).status == 1)
        }
    }
}

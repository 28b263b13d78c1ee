import CofferTestSupport
import Foundation
import Testing

/// `coffer run`: secrets into a real command's environment or standard input (issue 31).
@Suite("coffer run: secrets into a command's environment")
struct CLIRunTests {
    /// A vault with an API token (a generic password with a secret field) and a note.
    func withTokenVault(_ body: (URL) throws -> Void) throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--service", "api", "--account", "ci", "--secret-field", "token"],
                                    input: "pw\ns3cret pass\ntok-123\n", in: dir)
            try #require(added.status == 0, "add: \(added.err)")
            try body(dir)
        }
    }

    @Test("--env sets the password and a field; the command's test passes and its status is run's")
    func environment() throws {
        try withTokenVault { dir in
            let passed = try CLI.run(["run", "v.coffer", "--env", "PASS=api", "--env", "TOKEN=api:token", "--",
                                      "sh", "-c", #"test "$TOKEN" = tok-123 && test "$PASS" = "s3cret pass""#],
                                     input: "pw\n", in: dir)
            #expect(passed.status == 0, "\(passed.err)")
            let failed = try CLI.run(["run", "v.coffer", "--env", "TOKEN=api:token", "--", "sh", "-c", #"test "$TOKEN" = other"#],
                                     input: "pw\n", in: dir)
            #expect(failed.status == 1)
            let status = try CLI.run(["run", "v.coffer", "--env", "T=api", "--", "sh", "-c", "exit 42"], input: "pw\n", in: dir)
            #expect(status.status == 42)
            // The rest of the environment is inherited; stdout is the command's.
            let echoed = try CLI.run(["run", "v.coffer", "--env", "T=api", "--", "sh", "-c", #"printf '%s' "$XDG_STATE_HOME""#],
                                     input: "pw\n", in: dir)
            #expect(echoed.out == CLI.stateHome)
        }
    }

    @Test("--env-file holds references; --stdin hands a secret on standard input")
    func envFileAndStdin() throws {
        try withTokenVault { dir in
            try Data("# for the deploy script\n\nTOKEN=api:token\r\n  PASS=api\n".utf8).write(to: dir.appendingPathComponent("refs"))
            let passed = try CLI.run(["run", "v.coffer", "--env-file", "refs", "--", "sh", "-c",
                                      #"test "$TOKEN" = tok-123 && test "$PASS" = "s3cret pass""#], input: "pw\n", in: dir)
            #expect(passed.status == 0, "\(passed.err)")
            let piped = try CLI.run(["run", "v.coffer", "--stdin", "api:token", "--", "sh", "-c", #"read -r line && test "$line" = tok-123"#],
                                    input: "pw\n", in: dir)
            #expect(piped.status == 0, "\(piped.err)")
        }
    }

    @Test("Bad references, a missing item or field, a missing command: clear refusals before any command runs")
    func refusals() throws {
        try withTokenVault { dir in
            let marker = dir.appendingPathComponent("ran")
            let touch = ["--", "touch", marker.path]
            for (arguments, status, text) in [
                (["--env", "1X=api"], Int32(64), "not an environment variable name"),
                (["--env", "NOEQUALS"], 64, "is not NAME=ITEM"),
                (["--env", "T="], 64, "names no item"),
                (["--env", "T=nothing"], 1, "no item matched"),
                (["--env", "T=api:nofield"], 1, "has no field named nofield"),
                (["--env-file", "missing"], 74, "missing"),
            ] as [([String], Int32, String)] {
                let result = try CLI.run(["run", "v.coffer"] + arguments + touch, input: "pw\n", in: dir)
                #expect(result.status == status, "\(arguments): \(result.err)")
                expectOneLineMessage(result, containing: text)
            }
            try Data("TOKEN=api\nnot a line\n".utf8).write(to: dir.appendingPathComponent("bad"))
            let bad = try CLI.run(["run", "v.coffer", "--env-file", "bad"] + touch, input: "pw\n", in: dir)
            #expect(bad.status == 64)
            expectOneLineMessage(bad, containing: "bad, line 2")
            #expect(!FileManager.default.fileExists(atPath: marker.path))
            let notFound = try CLI.run(["run", "v.coffer", "--env", "T=api", "--", "no-such-command-coffer"], input: "pw\n", in: dir)
            #expect(notFound.status == 127)
            expectOneLineMessage(notFound, containing: "not found")
            // On a pipe, input after the master password line would be lost to the command: refused.
            let piped = try runPiped(["run", "v.coffer", "--env", "T=api", "--", "touch", marker.path], input: "pw\nfor the command\n", in: dir)
            #expect(piped.status == 64, "\(piped.err)")
            #expect(piped.err.contains("more than the master password line"), "\(piped.err)")
            #expect(!FileManager.default.fileExists(atPath: marker.path))
            let pipedAlone = try runPiped(["run", "v.coffer", "--env", "T=api", "--", "sh", "-c", #"test "$T" = "s3cret pass""#], input: "pw\n", in: dir)
            #expect(pipedAlone.status == 0, "\(pipedAlone.err)")
            let noCommand = try CLI.run(["run", "v.coffer", "--env", "T=api"], input: "pw\n", in: dir)
            #expect(noCommand.status == 64)
        }
    }

    @Test("ITEM[:field]: a port or a URL is not a field")
    func referenceSplitting() throws {
        try withVault { dir in
            let added = try CLI.run(["add", "v.coffer", "--server", "https://example.com:8443/login", "--account", "me"],
                                    input: "pw\nweb-pass\n", in: dir)
            try #require(added.status == 0, "add: \(added.err)")
            for reference in ["https://example.com:8443/login", "example.com:8443"] {
                let result = try CLI.run(["run", "v.coffer", "--env", "P=\(reference)", "--", "sh", "-c", #"test "$P" = web-pass"#],
                                         input: "pw\n", in: dir)
                #expect(result.status == 0, "\(reference): \(result.err)")
            }
        }
    }

    /// `coffer arguments…` with `input` on a pipe (``CLI/run(_:input:in:environment:timeout:)`` gives a file, which can seek back).
    func runPiped(_ arguments: [String], input: String, in dir: URL) throws -> ProcessResult {
        let script = dir.appendingPathComponent("input.txt")
        try Data(input.utf8).write(to: script)
        let binary = try #require(CLI.binary)
        var env = CLI.environment
        env["C"] = binary
        return try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "cat input.txt | \"$C\" \"$@\"", "sh"] + arguments,
                              in: dir, environment: env, timeout: 30)
    }
}

import CofferTestSupport
import Foundation
import Testing

/// Runs `coffer arguments…` with `input` written into a pipe by `printf`, so reads of
/// stdin cannot seek back (what a shell pipeline gives).
func runPiped(_ arguments: [String], input: String, in directory: URL, timeout: TimeInterval = 30) throws -> CLIResult {
    let binary = try #require(CLI.binary, "the coffer binary is not built")
    let script = #"input=$1; shift; printf '%s' "$input" | "$@""#
    let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, "sh", input, binary] + arguments,
                                in: directory, environment: CLI.environment, timeout: timeout)
    if result.timedOut { Issue.record("coffer \(arguments.joined(separator: " ")) timed out") }
    return CLIResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
}

/// Issue 15, finding 9: secret lines are bounded and read in blocks.
@Suite("coffer secret lines")
struct CLISecretLineTests {
    @Test("endless stdin without a newline (/dev/zero) ends promptly with exit 64")
    func devZero() throws {
        try withVault { dir in
            let binary = try #require(CLI.binary)
            let result = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", #"exec "$0" list v.coffer < /dev/zero"#, binary],
                                        in: dir, environment: CLI.environment, timeout: 20)
            #expect(!result.timedOut)
            #expect(result.status == 64, "\(String(decoding: result.stderr, as: UTF8.self))")
            #expect(String(decoding: result.stderr, as: UTF8.self).contains("longer than 64 KiB"))
        }
    }

    @Test("a 70 KiB line is refused with exit 64, from a file and from a pipe")
    func longLine() throws {
        try withVault { dir in
            let line = String(repeating: "x", count: 70 * 1024) + "\n"
            for result in [try CLI.run(["list", "v.coffer"], input: line, in: dir),
                           try runPiped(["list", "v.coffer"], input: line, in: dir)] {
                #expect(result.status == 64)
                expectOneLineMessage(result, containing: "longer than 64 KiB")
            }
            // A line just under the cap is read whole (and is then the wrong password).
            let under = String(repeating: "x", count: 60 * 1024) + "\n"
            #expect(try CLI.run(["list", "v.coffer"], input: under, in: dir).status == 77)
        }
    }

    @Test("lines after the first stay available: add, passwd, edit --password-stdin and note through a pipe and a file")
    func multiLine() throws {
        for piped in [true, false] {
            try withVault { dir in
                func run(_ arguments: [String], _ input: String) throws -> CLIResult {
                    piped ? try runPiped(arguments, input: input, in: dir) : try CLI.run(arguments, input: input, in: dir)
                }
                var result = try run(["add", "v.coffer", "--service", "s", "--account", "a", "--secret-field", "pin"],
                                     "pw\nitem-pw\n1234\n")
                #expect(result.status == 0, "\(result.err)")
                #expect(try run(["get", "v.coffer", "--service", "s"], "pw\n").out == "item-pw\n")
                #expect(try run(["get", "v.coffer", "--service", "s", "--field", "pin"], "pw\n").out == "1234\n")
                result = try run(["edit", "v.coffer", "--service", "s", "--password-stdin", "--secret-field", "pin"],
                                 "pw\nnew-item-pw\n5678\n")
                #expect(result.status == 0, "\(result.err)")
                #expect(try run(["get", "v.coffer", "--service", "s"], "pw\n").out == "new-item-pw\n")
                #expect(try run(["get", "v.coffer", "--service", "s", "--field", "pin"], "pw\n").out == "5678\n")
                result = try run(["passwd", "v.coffer"], "pw\nnew-master\n")
                #expect(result.status == 0, "\(result.err)")
                let body = String(repeating: "line of the note\n", count: 1000) + "last"
                result = try run(["note", "v.coffer", "--title", "n"], "new-master\n" + body + "\n")
                #expect(result.status == 0, "\(result.err)")
                result = try run(["get", "v.coffer", "--title", "n", "--json"], "new-master\n")
                #expect(try result.jsonObject()["notes"] as? String == body)
            }
        }
    }
}

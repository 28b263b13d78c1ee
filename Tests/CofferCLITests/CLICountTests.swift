import CofferTestSupport
import Foundation
import Testing

/// Issue 15, finding 7: `generate` and `passphrase` stream any count.
@Suite("coffer generate/passphrase --count")
struct CLICountTests {
    /// Runs coffer under /usr/bin/time when it is there; returns the result and the peak RSS in KiB.
    private func runMeasured(_ arguments: [String], in dir: URL) throws -> (CLIResult, Int?) {
        let binary = try #require(CLI.binary)
        let time = "/usr/bin/time"
        guard FileManager.default.isExecutableFile(atPath: time) else {
            return (try CLI.run(arguments, in: dir, timeout: 600), nil)
        }
        let run = try runProcess(URL(fileURLWithPath: time), ["-f", "maxrss-kib=%M", binary] + arguments, in: dir, timeout: 600)
        #expect(!run.timedOut)
        let err = String(decoding: run.stderr, as: UTF8.self)
        let peak = err.split(separator: "\n").last { $0.hasPrefix("maxrss-kib=") }.flatMap { Int($0.dropFirst("maxrss-kib=".count)) }
        return (CLIResult(status: run.status, stdout: run.stdout, stderr: run.stderr), peak)
    }

    @Test("generate --count 1000000 prints a million passwords of the right length, in bounded memory")
    func millionPasswords() throws {
        try withTemporaryDirectory { (dir: URL) throws in
            let (result, peak) = try runMeasured(["generate", "--count", "1000000", "--length", "16"], in: dir)
            #expect(result.status == 0, "\(result.err)")
            let lines = result.stdout.split(separator: 10, omittingEmptySubsequences: false)
            #expect(lines.count == 1_000_001 && lines.last?.isEmpty == true, "one password a line")
            #expect(lines.dropLast().allSatisfy { $0.count == 16 })
            let sample = lines.prefix(1000) + lines.dropLast().suffix(1000)
            #expect(Set(sample).count == 2000, "distinct passwords")
            if let peak { #expect(peak < 200 * 1024, "peak RSS \(peak) KiB") }
        }
    }

    @Test("passphrase --count 20000 prints 20,000 passphrases, in bounded memory")
    func manyPassphrases() throws {
        try withTemporaryDirectory { (dir: URL) throws in
            let (result, peak) = try runMeasured(["passphrase", "--count", "20000", "--words", "5", "--separator", " "], in: dir)
            #expect(result.status == 0, "\(result.err)")
            let lines = result.out.split(separator: "\n")
            #expect(lines.count == 20_000)
            #expect(lines.allSatisfy { $0.split(separator: " ").count == 5 })
            #expect(Set(lines.prefix(2000)).count == 2000)
            if let peak { #expect(peak < 200 * 1024, "peak RSS \(peak) KiB") }
        }
    }

    @Test("--json with a large count streams one valid JSON object")
    func largeJSON() throws {
        try withTemporaryDirectory { (dir: URL) throws in
            var result = try CLI.run(["generate", "--count", "100000", "--length", "12", "--json"], in: dir, timeout: 300)
            #expect(result.status == 0, "\(result.err)")
            var object = try result.jsonObject()
            let passwords = try #require(object["passwords"] as? [String])
            #expect(passwords.count == 100_000 && passwords.allSatisfy { $0.count == 12 })
            #expect(object["length"] as? Int == 12)
            #expect(result.out.hasSuffix("}\n") && result.out.split(separator: "\n").count == 1)

            result = try CLI.run(["passphrase", "--count", "5000", "--json", "--separator", "\\"], in: dir, timeout: 300)
            #expect(result.status == 0, "\(result.err)")
            object = try result.jsonObject()
            let phrases = try #require(object["passphrases"] as? [String])
            #expect(phrases.count == 5000 && phrases.allSatisfy { $0.split(separator: "\\").count == 6 })
            #expect(object["separator"] as? String == "\\")
        }
    }

    @Test("--count 0 is a usage error")
    func zeroCount() throws {
        try withTemporaryDirectory { (dir: URL) throws in
            #expect(try CLI.run(["generate", "--count", "0"], in: dir).status == 64)
            #expect(try CLI.run(["passphrase", "--count", "-1"], in: dir).status == 64)
        }
    }
}

import Coffer
import CofferTestSupport
import Foundation
import Testing

/// `coffer` refuses a vault whose key derivation costs more than the limit before it
/// asks for the password, and `--max-kdf-memory`/`--max-kdf-passes` raise the limit.
@Suite struct CLIKDFLimitTests {
    static let gib: UInt32 = 1024 * 1024
    static let cheap = Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1)

    @Test func aKDFBombIsRefusedBeforeThePasswordPrompt() throws {
        try withTemporaryDirectory { dir in
            try KDFTestVault.write(to: dir.appendingPathComponent("bomb.coffer").path, good: nil,
                                   claims: Array(repeating: Argon2idParameters(memoryKiB: 4 * Self.gib, iterations: 64, lanes: 1), count: 32))
            // Empty stdin: a command that asked for the password would complain about the missing line.
            let result = try CLI.run(["list", "bomb.coffer"], input: "", in: dir, timeout: 20)
            #expect(result.status == 65, "stderr: \(result.err)")
            expectOneLineMessage(result, containing: "32 slots of Argon2id 4096 MiB × 64 passes")
            #expect(result.err.contains("--max-kdf-memory"), "stderr: \(result.err)")
            #expect(!result.err.contains("standard input"), "stderr: \(result.err)")
        }
    }

    @Test func maxKDFMemoryRaisesTheLimit() throws {
        try withTemporaryDirectory { dir in
            // 2 GiB is over the default; the cheap slot opens first, so no 2 GiB KDF runs.
            try KDFTestVault.write(to: dir.appendingPathComponent("big.coffer").path, good: Self.cheap,
                                   claims: [Argon2idParameters(memoryKiB: 2 * Self.gib, iterations: 1, lanes: 1)])
            let refused = try CLI.run(["list", "big.coffer"], input: "pw\n", in: dir, timeout: 20)
            #expect(refused.status == 65, "stderr: \(refused.err)")
            expectOneLineMessage(refused, containing: "2 slots of Argon2id up to 2048 MiB × 1 pass")
            let opened = try CLI.run(["list", "big.coffer", "--max-kdf-memory", "2048"], input: "pw\n", in: dir, timeout: 20)
            #expect(opened.status == 0, "stderr: \(opened.err)")
            let info = try CLI.run(["info", "big.coffer"], input: "", in: dir, timeout: 20)
            #expect(info.status == 0, "stderr: \(info.err)")
            let bad = try CLI.run(["list", "big.coffer", "--max-kdf-memory", "5000"], input: "pw\n", in: dir, timeout: 20)
            #expect(bad.status == 64, "stderr: \(bad.err)")
        }
    }

    @Test func maxKDFPassesRaisesTheLimitAndInitRefusesAboveIt() throws {
        try withTemporaryDirectory { dir in
            let refused = try CLI.run(["init", "v.coffer", "--kdf-memory", "1", "--kdf-iterations", "12"], input: "pw\npw\n", in: dir)
            #expect(refused.status == 64, "stderr: \(refused.err)")
            expectOneLineMessage(refused, containing: "1 slot of Argon2id 1 MiB × 12 passes")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("v.coffer").path))
            let created = try CLI.run(["init", "v.coffer", "--kdf-memory", "1", "--kdf-iterations", "12", "--max-kdf-passes", "12"],
                                      input: "pw\npw\n", in: dir)
            #expect(created.status == 0, "stderr: \(created.err)")
            let list = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(list.status == 65, "stderr: \(list.err)")
            let raised = try CLI.run(["list", "v.coffer", "--max-kdf-passes", "12"], input: "pw\n", in: dir)
            #expect(raised.status == 0, "stderr: \(raised.err)")
        }
    }

    @Test func helpNamesTheFlags() throws {
        try withTemporaryDirectory { dir in
            let help = try CLI.run(["list", "--help"], in: dir)
            #expect(help.out.contains("--max-kdf-memory") && help.out.contains("--max-kdf-passes"), "\(help.out)")
        }
    }
}

@testable import CofferCLI
import Coffer
import Foundation
import Testing

/// The exit codes are written once, in `ExitStatus`; README's table must say the same.
@Suite("coffer: the exit-code table")
struct CLIExitCodeTableTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The rows of the table under "### Exit codes": (code, meaning).
    static func readmeRows() throws -> [(Int32, String)] {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "### Exit codes"), "README.md has no \"### Exit codes\" section")
        var rows: [(Int32, String)] = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| ") else { if rows.isEmpty { continue } else { break } }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .dropFirst().dropLast().map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, let code = Int32(cells[0]) else { continue }   // the header and the rule
            rows.append((code, cells[1]))
        }
        return rows
    }

    @Test("README's Exit codes table lists ExitStatus's codes and meanings, in order")
    func readmeMatchesExitStatus() throws {
        let rows = try Self.readmeRows()
        #expect(rows.map(\.0) == ExitStatus.allCases.map(\.rawValue))
        for (row, status) in zip(rows, ExitStatus.allCases) {
            #expect(row.1 == status.meaning, "exit \(status.rawValue)")
        }
    }

    @Test("coffer --help lists every exit code")
    func helpListsEveryCode() throws {
        for status in ExitStatus.allCases {
            #expect(ExitStatus.helpTable.contains("\n  \(status.rawValue) "), "exit \(status.rawValue)")
        }
    }

    /// Issue 27, finding 8: an item edited by more writers than the format's clock names
    /// failed as `invalidItem`, a usage error (64), although no argument was wrong.
    @Test("A bound of the format that the vault's data reached is not a usage error")
    func formatLimitIsNotUsage() {
        let failure = CLIFailure(CofferError(.formatLimit, detail: "an item's values were written by 256 writers"), vault: "v.coffer")
        #expect(failure.status == .vaultUnreadable)
        #expect(failure.message.contains("v.coffer"))
        #expect(!CofferError.Kind.formatLimit.isBadRequest)
    }
}

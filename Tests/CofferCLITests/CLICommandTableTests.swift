@testable import CofferCLI
import ArgumentParser
import Foundation
import Testing

/// Issue 20: README's "Commands and flags" table names every command `coffer --help` lists.
@Suite("coffer: the command table")
struct CLICommandTableTests {
    @Test("README's command table has a row for every listed subcommand")
    func readmeListsEveryCommand() throws {
        let text = try String(contentsOf: CLIExitCodeTableTests.readme, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex(of: "### Commands and flags"))
        // The first cell of each row: "`get VAULT [NAME]`", "`add-keyfile VAULT PATH`, `remove-keyfile …`".
        var named = Set<String>()
        for line in lines[(start + 1)...] {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| `") else { continue }
            let firstCell = line.split(separator: "|").first.map(String.init) ?? ""
            for code in firstCell.split(separator: "`").enumerated().filter({ $0.offset % 2 == 1 }).map(\.element) {
                if let word = code.split(separator: " ").first { named.insert(String(word)) }
            }
        }
        let listed = CofferCommand.configuration.subcommands
            .filter { $0.configuration.shouldDisplay }
            .map { $0._commandName }
        #expect(listed.contains("show"))
        for command in listed {
            #expect(named.contains(command), "README's command table lacks `\(command)`")
        }
    }
}

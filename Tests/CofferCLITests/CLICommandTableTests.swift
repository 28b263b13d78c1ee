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

    @Test("--help lists the commands in groups: every command in exactly one group, each shown under its group's header")
    func helpGroupsEveryCommand() throws {
        let configuration = CofferCommand.configuration
        #expect(configuration.ungroupedSubcommands.isEmpty)
        let grouped = configuration.groupedSubcommands.flatMap(\.subcommands).map { $0._commandName }
        #expect(grouped.count == Set(grouped).count, "a command is in two groups")
        #expect(Set(grouped) == Set(configuration.subcommands.map { $0._commandName }))
        let help = CofferCommand.helpMessage(columns: 200)
        let headers = configuration.groupedSubcommands.map { "\($0.name.uppercased()) SUBCOMMANDS:" }
        for (index, group) in configuration.groupedSubcommands.enumerated() {
            let shown = group.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }
            #expect(!shown.isEmpty, "group \(group.name) shows no command")
            let start = try #require(help.range(of: headers[index]), "no header for \(group.name)")
            let end = index + 1 < headers.count ? help.range(of: headers[index + 1])?.lowerBound ?? help.endIndex : help.endIndex
            #expect(start.upperBound <= end, "group \(group.name) is out of order")
            let section = help[start.upperBound..<max(start.upperBound, end)]
            let listed = section.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), !line.hasPrefix("   "), !line.hasPrefix("  See ") else { return nil }   // not the closing hint
                return line.split(separator: " ").first.map(String.init)
            }
            #expect(listed == shown, "\(group.name)")
        }
        #expect(!help.contains("\nSUBCOMMANDS:"), "no flat list of commands")
    }
}

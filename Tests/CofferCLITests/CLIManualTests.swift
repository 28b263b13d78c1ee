import Coffer
import CofferTestSupport
import Foundation
import Testing

/// `coffer --version` and the committed man page (coffer.1, `make man`) against the
/// command model the binary reports (`--experimental-dump-help`, what `generate-manual` reads).
@Suite("coffer --version and the man page")
struct CLIManualTests {
    /// One command of the model: its path of names, its abstract, and each option's long
    /// names (an option may have aliases; the page shows one of them).
    struct Command {
        var path: [String]
        var abstract: String
        var longOptions: [[String]]
    }

    static func commands(_ node: [String: Any], path: [String] = []) -> [Command] {
        let name = node["commandName"] as? String ?? ""
        let here = path.isEmpty ? [] : path   // the root is the page itself
        var result: [Command] = []
        if !here.isEmpty {
            let arguments = node["arguments"] as? [[String: Any]] ?? []
            let longs = arguments.map { argument in
                (argument["names"] as? [[String: Any]] ?? []).compactMap { name in
                    name["kind"] as? String == "long" ? name["name"] as? String : nil
                }
            }.filter { !$0.isEmpty }
            result.append(Command(path: here, abstract: node["abstract"] as? String ?? "", longOptions: longs))
        }
        for sub in node["subcommands"] as? [[String: Any]] ?? [] {
            let subName = sub["commandName"] as? String ?? ""
            result += commands(sub, path: (path.isEmpty ? [name] : path) + [subName])
        }
        return result
    }

    @Test("coffer --version prints the library's version")
    func version() throws {
        try withTemporaryDirectory { dir in
            let result = try CLI.run(["--version"], in: dir)
            #expect(result.status == 0)
            #expect(result.out == CofferRelease.version + "\n")
            #expect(CofferRelease.version.split(separator: ".").count == 3)
        }
    }

    @Test("CHANGELOG.md has a section for the current version")
    func changelog() throws {
        let text = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(text.contains("\n## [\(CofferRelease.version)] - "), "CHANGELOG.md has no section for \(CofferRelease.version)")
    }

    @Test("coffer.1 shows every command, its abstract and its options, and no command the tool lacks (else run `make man`)")
    func manualIsCurrent() throws {
        let page = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("coffer.1"), encoding: .utf8)
        let lines = page.components(separatedBy: "\n")
        let model = try withTemporaryDirectory { dir in try CLI.run(["--experimental-dump-help"], in: dir) }
        #expect(model.status == 0)
        let root = try #require(try model.jsonObject()["command"] as? [String: Any])
        let commands = Self.commands(root)
        #expect(commands.count > 25)
        #expect(page.contains(".Dt COFFER 1"))

        // The page's command entries, `.It Em NAME`, in order, against the model's, in order.
        let entries = lines.filter { $0.hasPrefix(".It Em ") }.map { String($0.dropFirst(".It Em ".count)) }
        #expect(entries == commands.map { $0.path.last! }, "the page's commands differ from coffer's: run `make man`")

        // The n-th entry is the n-th command (checked above): by position, not by name, since
        // a subcommand may share its name with a command (`keyfile add`, `add`).
        let starts = lines.indices.filter { lines[$0].hasPrefix(".It Em ") }
        for (command, start) in zip(commands, starts) {
            let name = command.path.dropFirst().joined(separator: " ")
            let rest = lines[(start + 1)...]
            let end = rest.firstIndex { $0.hasPrefix(".It Em ") } ?? lines.count
            let section = lines[start..<end].joined(separator: "\n")
            let abstract = command.abstract.replacingOccurrences(of: "\\", with: "\\\\")
            #expect(abstract.isEmpty || page.contains(abstract), "the page lacks the abstract of \(name): run `make man`")
            for names in command.longOptions where names != ["help"] {
                #expect(names.contains { section.contains("Fl -\($0)") },
                        "the page lacks \(name) --\(names.joined(separator: "/")): run `make man`")
            }
        }
    }
}

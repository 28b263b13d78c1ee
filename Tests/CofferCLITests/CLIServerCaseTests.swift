import Coffer
import Foundation
import Testing

/// One URL normaliser: scheme and host are lowercased wherever a server is read
/// (`--server`, importers, ``ItemQuery``), so the same site is one server.
@Suite("coffer: server names ignore case")
struct CLIServerCaseTests {
    @Test("an item added with --server https://GitHub.com and one imported for https://github.com find each other")
    func cliAndImportAgree() throws {
        try withVault { dir in
            let add = try CLI.run(["add", "v.coffer", "--server", "https://GitHub.com", "--account", "octocat"],
                                  input: "pw\nhunter2\n", in: dir)
            #expect(add.status == 0, "\(add.err)")
            // The importer reads the same site: the same item (a conflict, as the passwords
            // differ, left as it is), not a second item.
            let csv = dir.appendingPathComponent("in.csv")
            try Data("name,url,username,password,note\nGitHub,https://github.com,octocat,other,\n".utf8).write(to: csv)
            let imported = try CLI.run(["import", "v.coffer", "--format", "csv", csv.path, "--json"], input: "pw\n", in: dir)
            #expect(imported.status == 0, "\(imported.err)")
            let report = try imported.jsonObject()
            #expect(report["imported"] as? Int == 0)
            #expect((report["conflicts"] as? [[String: Any]])?.count == 1)
            // And either spelling names the one item.
            for server in ["https://github.com", "https://GITHUB.COM", "HTTPS://GitHub.com"] {
                let get = try CLI.run(["get", "v.coffer", "--server", server, "--account", "octocat"], input: "pw\n", in: dir)
                #expect(get.status == 0 && get.out == "hunter2\n", "\(server): \(get.err)")
            }
        }
    }
}

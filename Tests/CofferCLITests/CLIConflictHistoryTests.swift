import CofferTestSupport
import Foundation
import Testing

/// `coffer history` and `list --conflicts` after a merge (issue 27, finding 13): a losing
/// password stays listed through edits of other fields, and a removed field is named.
@Suite("coffer history: conflicts stay listed and named")
struct CLIConflictHistoryTests {
    @Test("A losing removal of a custom field is printed with the field's name; a losing password stays listed after another edit")
    func namedAndKept() throws {
        try withTemporaryDirectory { root in
            let a = Device("a", root: root), b = Device("b", root: root)
            let (folderA, folderB) = try deviceFolders(in: root)
            try a.ok(["init", "vault.coffer"] + fastKDF, in: folderA)
            try a.ok(["add", "vault.coffer", "--service", "mail", "--account", "me", "--field", "f1=v1"], input: "pw\nmail-0\n", in: folderA)
            try FileManager.default.copyItem(at: folderA.appendingPathComponent("vault.coffer"), to: folderB.appendingPathComponent("vault.coffer"))
            try a.ok(["edit", "vault.coffer", "--service", "mail", "--remove-field", "f1"], in: folderA)
            try a.ok(["edit", "vault.coffer", "--service", "mail", "--password-stdin"], input: "pw\nfrom-a\n", in: folderA)
            Thread.sleep(forTimeInterval: 0.01)
            try b.ok(["edit", "vault.coffer", "--service", "mail", "--field", "f1=w1"], in: folderB)
            try b.ok(["edit", "vault.coffer", "--service", "mail", "--password-stdin"], input: "pw\nfrom-b\n", in: folderB)
            try a.ok(["merge", "vault.coffer", folderB.appendingPathComponent("vault.coffer").path], in: folderA)

            // Another field edited: the losing password is still a conflict.
            try a.ok(["edit", "vault.coffer", "--service", "mail", "--comment", "later"], in: folderA)
            #expect(try a.ok(["list", "vault.coffer", "--conflicts"], in: folderA).out.contains("mail"))
            let history = try a.ok(["history", "vault.coffer", "--service", "mail", "--json", "--show-passwords"], in: folderA).jsonObject()
            let conflicts = try #require(history["conflicts"] as? [[String: Any]])
            let removal = try #require(conflicts.first { $0["field"] as? String == "fields" })
            #expect(removal["name"] as? String == "f1")
            #expect(removal["removed"] as? Bool == true)
            let password = try #require(conflicts.first { $0["field"] as? String == "password" })
            #expect(password["name"] is NSNull)
            #expect(password["value"] as? String == "from-a")
            let earlier = (history["passwordHistory"] as? [[String: Any]] ?? []).compactMap { $0["password"] as? String }
            #expect(earlier.filter { $0 == "from-a" }.count == 1, "\(earlier)")
            let text = try a.ok(["history", "vault.coffer", "--service", "mail"], in: folderA).out
            #expect(text.contains("fields f1: (removed)"), "\(text)")
        }
    }
}

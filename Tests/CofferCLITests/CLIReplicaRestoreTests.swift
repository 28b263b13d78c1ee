import CofferTestSupport
import Foundation
import Testing

/// Restores are edits (issue 27, finding 11): what `restore` puts back, and every edit made
/// on it, never hides an edit another copy of the vault holds.
@Suite("coffer restore among replicas")
struct CLIReplicaRestoreTests {
    /// The reproduction, through the CLI: A adds an item, B copies the vault; A edits
    /// the tags (X) and B merges A; A restores its backup (the version before X) and edits
    /// another field (Y); A and B merge both ways. Before the fix the restore kept A's replica
    /// id and clock, so Y's stamp claimed to have seen X: both ended with the old tags, no
    /// conflict, X gone from every copy.
    @Test("restore, then an edit of the same item, loses no edit another copy holds")
    func restoreThenEdit() throws {
        try withTemporaryDirectory { root in
            let a = Device("a", root: root), b = Device("b", root: root)
            let (folderA, folderB) = try deviceFolders(in: root)
            try a.ok(["init", "vault.coffer"] + fastKDF, in: folderA)
            try a.ok(["add", "vault.coffer", "--service", "mail", "--account", "me", "--tag", "old", "--field", "f1=v1"],
                     input: "pw\nmail-0\n", in: folderA)
            try FileManager.default.copyItem(at: folderA.appendingPathComponent("vault.coffer"), to: folderB.appendingPathComponent("vault.coffer"))

            try a.ok(["edit", "vault.coffer", "--service", "mail", "--tag", "new"], in: folderA)                 // X
            try b.ok(["merge", "vault.coffer", folderA.appendingPathComponent("vault.coffer").path], in: folderB)
            try a.ok(["restore", "vault.coffer", "--yes"], in: folderA)
            try a.ok(["edit", "vault.coffer", "--service", "mail", "--remove-field", "f1"], in: folderA)          // Y

            // Both ways, each from the other's file as it was before either merge.
            let snapA = root.appendingPathComponent("a.coffer"), snapB = root.appendingPathComponent("b.coffer")
            try FileManager.default.copyItem(at: folderA.appendingPathComponent("vault.coffer"), to: snapA)
            try FileManager.default.copyItem(at: folderB.appendingPathComponent("vault.coffer"), to: snapB)
            try a.ok(["merge", "vault.coffer", snapB.path], in: folderA)
            try b.ok(["merge", "vault.coffer", snapA.path], in: folderB)

            for (device, folder) in [(a, folderA), (b, folderB)] {
                let mail = try #require(try itemsByName(try device.ok(["list", "vault.coffer", "--json"], in: folder))["mail"])
                // X (tags ["new"]) and Y (f1 removed) are both there.
                #expect(mail["tags"] as? [String] == ["new"], "\(mail)")
                let fields = (mail["fields"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                #expect(!fields.contains("f1"), "\(mail)")
            }
        }
    }
}

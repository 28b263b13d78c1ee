import CofferTestSupport
import Foundation
import Testing

/// Issue 28, finding 8: only one `.bak` existed, so an edit before the last was lost to
/// undo. Several versions are kept in the device's state folder, with `restore --list`,
/// `restore --version N` and `--dry-run`.
@Suite("coffer restore --list / --version: earlier versions kept on this device")
struct CLIUndoVersionTests {
    @Test("Each save keeps the version it replaced in the state folder; --list, --version N --dry-run and --version N restore it; restore undoes that")
    func versions() throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            let folder = root.appendingPathComponent("Sync")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try device.ok(["init", "v.coffer"] + fastKDF, in: folder)
            for service in ["a", "b", "c"] {
                try device.ok(["add", "v.coffer", "--service", service], input: "pw\n\(service)-pw\n", in: folder)
            }
            // Kept out of the synced folder: only the vault and its backup are there.
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") && !$0.hasSuffix(".lock") })
                    == ["v.coffer", "v.coffer.bak"])

            let list = try device.ok(["restore", "v.coffer", "--list"], in: folder)
            let lines = list.out.split(separator: "\n")
            #expect(lines.count == 3, "\(list.out)")
            #expect(lines.map { $0.split(separator: " ").first.map(String.init) } == ["1", "2", "3"])
            #expect(lines.first?.contains("generation 3") == true && lines.last?.contains("generation 1") == true, "\(list.out)")

            let before = try Data(contentsOf: folder.appendingPathComponent("v.coffer"))
            let preview = try device.ok(["restore", "v.coffer", "--version", "3", "--dry-run"], in: folder)
            #expect(preview.out.split(separator: "\n").map { $0.prefix(7) } == ["remove ", "remove ", "remove "], "\(preview.out)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("v.coffer")) == before, "a dry run changes nothing")

            let piped = try device.run(["restore", "v.coffer", "--version", "2"], in: folder)
            #expect(piped.status == 64, "on a pipe, --yes confirms: \(piped.err)")
            try device.ok(["restore", "v.coffer", "--version", "2", "--yes"], in: folder)
            let restored = try device.ok(["list", "v.coffer", "--json"], in: folder).jsonArray().compactMap { $0["service"] as? String }
            #expect(restored == ["a"], "version 2 is the vault before b was added")
            // The replaced version is the backup: `restore` undoes the restore.
            try device.ok(["restore", "v.coffer", "--yes"], in: folder)
            let back = try device.ok(["list", "v.coffer", "--json"], in: folder).jsonArray().compactMap { $0["service"] as? String }
            #expect(back == ["a", "b", "c"])
            let missing = try device.run(["restore", "v.coffer", "--version", "40"], in: folder)
            #expect(missing.status == 1, "\(missing.err)")
        }
    }

    @Test("A password change or a rekey drops every kept version: none opens with the replaced password or key")
    func passwordChangeDropsVersions() throws {
        try withTemporaryDirectory { root in
            let device = Device("laptop", root: root)
            try device.ok(["init", "v.coffer"] + fastKDF, in: root)
            try device.ok(["add", "v.coffer", "--service", "a"], input: "pw\nx\n", in: root)
            #expect(try device.ok(["restore", "v.coffer", "--list"], in: root).out.split(separator: "\n").count == 1)
            try device.ok(["passwd", "v.coffer"], input: "pw\nnew-master-pass-phrase\n", in: root)
            let after = try device.ok(["restore", "v.coffer", "--list"], input: "new-master-pass-phrase\n", in: root)
            #expect(after.out.isEmpty && after.err.contains("no earlier versions"), "\(after.out)\(after.err)")
            let versions = root.appendingPathComponent("state-laptop/coffer/versions")
            let left = (try? FileManager.default.subpathsOfDirectory(atPath: versions.path))?.filter { $0.hasSuffix(".coffer") } ?? []
            #expect(left.isEmpty, "\(left)")
            // A key rotation (rekey) drops them too: none is sealed under the old key.
            try device.ok(["add", "v.coffer", "--service", "b"], input: "new-master-pass-phrase\nx\n", in: root)
            #expect(try device.ok(["restore", "v.coffer", "--list"], input: "new-master-pass-phrase\n", in: root).out.split(separator: "\n").count == 1)
            try device.ok(["rekey", "v.coffer"], input: "new-master-pass-phrase\n", in: root)
            let rotated = try device.ok(["restore", "v.coffer", "--list"], input: "new-master-pass-phrase\n", in: root)
            #expect(rotated.out.isEmpty, "\(rotated.out)")
        }
    }
}

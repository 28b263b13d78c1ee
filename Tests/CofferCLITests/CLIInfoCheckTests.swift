import Foundation
import Testing
import CofferTestSupport

/// `coffer info` runs every check of SPEC.md §10 that needs no key (steps 1–9): what they
/// reject, it rejects with exit status 65, as opening would (issue 19).
@Suite("coffer info checks the file")
struct CLIInfoCheckTests {
    /// The vault bytes of `Tests/Vectors/<name>` (after the header's blank line, SPEC.md §15.1).
    static func vault(_ name: String) throws -> Data {
        let data = try Data(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Tests/Vectors/\(name)"))
        let bytes = [UInt8](data)
        guard let blank = (0..<max(0, bytes.count - 1)).first(where: { bytes[$0] == 0x0A && bytes[$0 + 1] == 0x0A }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return Data(bytes[(blank + 2)...])
    }

    @Test("Files refused by steps 7 to 9 (manifest and records) make info fail with 65 and name the class",
          arguments: [
              ("truncated-in-manifest.vec", "truncated"),
              ("truncated-in-manifest-mac.vec", "truncated"),
              ("truncated-manifest-wrong-length.vec", "truncated"),
              ("truncated-in-record.vec", "truncated"),
              ("truncated-record-longest.vec", "truncated"),
              ("truncated-secret-past-record.vec", "truncated"),
              ("malformed-manifest-order.vec", "malformed"),
              ("malformed-manifest-duplicate-id.vec", "malformed"),
              ("malformed-manifest-revision-zero.vec", "malformed"),
              ("malformed-extra-record.vec", "malformed"),
              ("malformed-trailing-byte.vec", "malformed"),
              ("malformed-record-too-long.vec", "malformed"),
              ("malformed-record-revision-zero.vec", "malformed"),
              ("malformed-ciphertext-length.vec", "malformed"),
          ])
    func refused(_ name: String, _ word: String) throws {
        try withTemporaryDirectory { dir in
            try Self.vault(name).write(to: dir.appendingPathComponent("v.coffer"))
            for arguments in [["info", "v.coffer"], ["info", "v.coffer", "--json"]] {
                let result = try CLI.run(arguments, in: dir)
                #expect(result.status == 65, "\(name) \(arguments): exit \(result.status), \(result.out)")
                #expect(result.out.isEmpty, "\(name): nothing is printed for a refused file")
                expectOneLineMessage(result, containing: word)
            }
        }
    }

    @Test("A valid vault, and files that only a key can reject, still give their info")
    func accepted() throws {
        try withTemporaryDirectory { dir in
            // Success; a record whose digest fails (step 13); an overview that does not decode (step 15).
            for name in ["success-items.vec", "entry-ciphertext-flipped.vec", "malformed-overview-kind.vec"] {
                try Self.vault(name).write(to: dir.appendingPathComponent("v.coffer"))
                let result = try CLI.run(["info", "v.coffer", "--json"], in: dir)
                #expect(result.status == 0, "\(name): \(result.err)")
                #expect(try result.jsonObject()["entryCount"] as? Int == (name == "malformed-overview-kind.vec" ? 1 : 3), "\(name)")
            }
        }
    }
}

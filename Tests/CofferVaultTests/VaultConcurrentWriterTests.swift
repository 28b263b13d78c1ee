import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// Concurrent writers (RELIABILITY.md): separate processes saving the same vault file
/// under its lock. Nothing is lost: additions all arrive, and two edits of one item either
/// both survive or one writer is told `conflict` and its edit is not on disk.
@Suite("Vault: concurrent writer processes", .serialized)
struct VaultConcurrentWriterTests {
    static let password = "concurrency-test-password"

    static func makeVault(_ dir: URL) throws -> (Vault, String) {
        let path = dir.appendingPathComponent("shared.coffer").path
        return (try Vault.create(at: path, password: try secure(password), options: testOptions), path)
    }

    @Test("4 processes adding 50 items each end with exactly 200 items, every secret intact")
    func fourWritersAdd() async throws {
        let writers = Reliability.setting("COFFER_RELIABILITY_WRITERS", 4)
        let perWriter = Reliability.setting("COFFER_RELIABILITY_ITEMS", 50)
        try await withTemporaryDirectoryAsync { dir in
            let (vault, path) = try Self.makeVault(dir)
            let results = try await withThrowingTaskGroup(of: (Int, Int32, String).self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        let result = try runProduct("CofferTestWriter", ["add", path, "w\(writer)", "\(perWriter)"],
                                                      stdin: Self.password + "\n")
                        return (writer, result.status, result.err)
                    }
                }
                var all: [(Int, Int32, String)] = []
                for try await result in group { all.append(result) }
                return all
            }
            for (writer, status, stderr) in results { #expect(status == 0, "writer \(writer): \(stderr)") }
            try vault.refresh()
            let items = try vault.items()
            #expect(items.count == writers * perWriter)
            let expected = Set((0..<writers).flatMap { w in (0..<perWriter).map { "w\(w)-\($0)" } })
            #expect(Set(items.compactMap(\.service)) == expected)
            // Every item's secret part opens and is the one its writer stored.
            for item in items {
                #expect(try vault.secrets(for: item.id).password?.testString == "secret-\(item.service ?? "")")
            }
            #expect(vault.generation == UInt64(writers * perWriter) + 1, "one save per item")
            #expect(Reliability.temporaryFiles(in: dir.path).isEmpty)
            Reliability.figure("concurrent adds", "\(writers) processes x \(perWriter) items -> \(items.count) items, "
                               + "generation \(vault.generation), every secret checked")
        }
    }

    /// Two processes open the vault, wait at a barrier, then edit different fields of one item.
    static func raceTwoEdits(_ dir: URL, round: Int, retry: Bool) throws -> (statuses: [Int32], fields: [String: String]) {
        let folder = dir.appendingPathComponent("round-\(round)-\(retry)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (vault, path) = try makeVault(folder)
        let item = try vault.add(.genericPassword(service: "shared", account: "a"), secrets: ItemSecrets(password: try secure("p")))
        let barrier = dir.appendingPathComponent("go-\(round)-\(retry)").path
        let flags = (retry ? ["--retry"] : []) + ["--wait-for", barrier]
        let first = try ReliabilityChild("CofferTestWriter", ["set-field", path, "shared", "a", "left", "L\(round)"] + flags,
                                         stdin: password + "\n")
        let second = try ReliabilityChild("CofferTestWriter", ["set-field", path, "shared", "a", "right", "R\(round)"] + flags,
                                          stdin: password + "\n")
        let ready = first.waitForLine("ready") && second.waitForLine("ready")
        _ = FileManager.default.createFile(atPath: barrier, contents: Data())
        let results = [first.finish(), second.finish()]
        #expect(ready, "\(results.map(\.stderr))")
        try vault.refresh()
        let fields = Dictionary(try vault.item(item.id).fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(try vault.secrets(for: item.id).password?.testString == "p")
        return (results.map(\.status), fields)
    }

    @Test("2 processes editing different fields of one item at once: both edits are kept, every time")
    func twoEditorsSameItem() throws {
        let rounds = Reliability.setting("COFFER_RELIABILITY_EDIT_ROUNDS", 10)
        try withTemporaryDirectory { dir in
            for retry in [false, true] {
                for round in 0..<rounds {
                    // Both writers read the same state before either saved: the second to save
                    // merges the first's edit (another field) instead of refusing.
                    let (statuses, fields) = try Self.raceTwoEdits(dir, round: round, retry: retry)
                    #expect(statuses == [0, 0], "round \(round): \(statuses)")
                    #expect(fields["left"] == "L\(round)" && fields["right"] == "R\(round)", "round \(round): \(fields)")
                }
            }
            Reliability.figure("concurrent edits", "\(2 * rounds) races of two processes editing two fields of one item: both edits kept every time")
        }
    }
}

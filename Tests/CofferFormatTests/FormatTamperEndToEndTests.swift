import Foundation
import Testing
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

/// The tamper matrix (RELIABILITY.md) on vaults made by the public `Vault` API, opened
/// through the public API (every item's secrets read) and through the `coffer get` binary:
/// every single-byte flip, every truncation, two entries swapped, an entry replayed from
/// an older version of the same vault and an entry transplanted from another vault. Each
/// gives the documented error (SPEC.md §10; the region classes of `FormatTamperTests`),
/// `coffer get` exits 65 and prints nothing, and nothing crashes.
///
/// FormatTamperTests runs flips and truncations on a vault built by the format code; this
/// matrix adds the vault API and the CLI on top, and the entry-level cases.
@Suite("Format: tamper matrix through the library and `coffer get`", .serialized)
struct FormatTamperEndToEndTests {
    static let password = "tamper-matrix-password"
    static let secret = "the-secret-of-site-one"

    struct Files {
        /// The vault with one item (the flip and truncation matrix).
        var single: [UInt8]
        /// A vault with two items, and its previous version (before `site` was updated).
        var current: [UInt8]
        var older: [UInt8]
        /// A vault made separately with the same password and the same kind of items.
        var other: [UInt8]
    }

    static func makeFiles(_ dir: URL) throws -> Files {
        func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
        let single = try Vault.create(at: path("single.coffer"), password: try secure(password), options: testOptions)
        try single.add(.genericPassword(service: "site", account: "alice"), secrets: ItemSecrets(password: try secure(secret)))

        // A fixed wall clock for both vaults: each edit's time is one more than the last, so
        // the records' sizes do not depend on how long the test takes.
        let clock = WallClock { 1_717_243_200_000 }
        let vault = try Vault.create(at: path("pair.coffer"), credentials: [.password(try secure(password))], options: testOptions,
                                     entropy: .system, clock: clock)
        vault.wallClock = clock
        // Two edits of one comment, of the same length: the record replayed from the older
        // version has the same shape and lengths (format 2's rows give each record's lengths).
        let site = try vault.add(.genericPassword(service: "site", account: "alice"), secrets: ItemSecrets(password: try secure(secret)))
        try vault.add(.genericPassword(service: "other", account: "bob"), secrets: ItemSecrets(password: try secure("bob's")))
        try vault.update(site.id) { attributes, _ in attributes.comment = "version 1" }
        let older = try #require(Reliability.contents(path("pair.coffer")))
        try vault.update(site.id) { attributes, _ in attributes.comment = "version 2" }

        let other = try Vault.create(at: path("other.coffer"), credentials: [.password(try secure(password))], options: testOptions,
                                     entropy: .system, clock: clock)
        other.wallClock = clock
        let otherSite = try other.add(.genericPassword(service: "site", account: "alice"),
                                      secrets: ItemSecrets(password: try secure("transplanted-pw-of-si1")))
        try other.update(otherSite.id) { attributes, _ in attributes.comment = "version 1" }
        try other.update(otherSite.id) { attributes, _ in attributes.comment = "version 2" }
        try other.add(.genericPassword(service: "other", account: "bob"), secrets: ItemSecrets(password: try secure("bob's")))
        return Files(single: try #require(Reliability.contents(path("single.coffer"))),
                     current: try #require(Reliability.contents(path("pair.coffer"))),
                     older: older, other: try #require(Reliability.contents(path("other.coffer"))))
    }

    /// The records of a format-2 file (SPEC.md §2): each one's manifest row and its bytes'
    /// range in the file (the records follow the manifest MAC, in the rows' order).
    static func records(_ bytes: [UInt8]) throws -> [(row: RawVaultFileV2.Row, range: Range<Int>)] {
        let raw = try RawVaultFileV2(splitting: bytes)
        let start = bytes.count - raw.records.count
        return raw.rows.indices.map { i in
            let (at, overview, secret) = raw.record(i)
            return (raw.rows[i], (start + at)..<(start + at + overview + secret))
        }
    }

    /// The entry-level cases: name and file. Records keep their rows (the manifest MAC
    /// holds): each is then read under another record's nonce, or sealed by another copy
    /// or vault, and fails its AEAD.
    static func entryCases(_ files: Files) throws -> [(String, [UInt8])] {
        let current = files.current
        let records = try Self.records(current)
        try #require(records.count == 2)
        var swapped = Array(current[..<records[0].range.lowerBound])
        swapped += current[records[1].range] + current[records[0].range]

        // The entry of `site` at revision 2, replaced by its revision-1 record from the older
        // file (the same lengths: the old password has the new one's length).
        let site = try #require(records.max { $0.row.revision < $1.row.revision })
        let old = try #require(try Self.records(files.older).first { $0.row.id == site.row.id })
        try #require(old.range.count == site.range.count, "the older record has another length")
        var replayed = current
        replayed.replaceSubrange(site.range, with: files.older[old.range])

        // The same entry replaced by the other vault's record of the same lengths (another vault, another key).
        let others = try Self.records(files.other)
        let other = try #require(others.first {
            $0.row.overviewLength == site.row.overviewLength && $0.row.secretLength == site.row.secretLength
        }, "no record of \(site.row.overviewLength) + \(site.row.secretLength) bytes in \(others.map { ($0.row.overviewLength, $0.row.secretLength) })")
        var transplanted = current
        transplanted.replaceSubrange(site.range, with: files.other[other.range])
        return [("entries swapped", swapped), ("entry replayed from the older version", replayed),
                ("entry transplanted from another vault", transplanted)]
    }

    /// Opens `bytes` through the public API and reads every item's secrets; the class of the
    /// error, or nil (with an issue) if it opened.
    static func libraryOutcome(_ bytes: [UInt8], at path: String, _ what: String) throws -> (VectorExpectation?, CofferError?) {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            let vault = try Vault.open(at: path, password: try secure(password), options: testOptions)
            try vault.verifyAll()
            var read: [String] = []
            for item in try vault.items() { read.append(try vault.secrets(for: item.id).password?.testString ?? "-") }
            Issue.record("\(what): opened and read \(read.count) secrets")
            return (nil, nil)
        } catch let error as CofferError {
            return (VectorExpectation(error: error), error)
        }
    }

    @Test("Library: every flip (xor 0x01 and 0xff), every truncation and the entry-level cases give the documented error")
    func libraryMatrix() throws {
        try withTemporaryDirectory { dir in
            let files = try Self.makeFiles(dir)
            let path = dir.appendingPathComponent("tampered.coffer").path
            var cases = 0
            // Untouched, the files open and hold what was written.
            for bytes in [files.single, files.current] {
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                let vault = try Vault.open(at: path, password: try secure(Self.password), options: testOptions)
                #expect(try vault.password(matching: ItemQuery(service: "site")).testString == Self.secret)
            }
            for offset in files.single.indices {
                let allowed = try FormatTamperTests.allowedClasses(at: offset, in: files.single)
                for mask: UInt8 in [0x01, 0xFF] {
                    var changed = files.single
                    changed[offset] ^= mask
                    let (outcome, error) = try Self.libraryOutcome(changed, at: path, "byte \(offset) ^ \(mask)")
                    #expect(outcome.map(allowed.contains) == true, "byte \(offset) ^ \(mask): \(String(describing: error)), allowed \(allowed)")
                    cases += 1
                }
            }
            for length in 0..<files.single.count {
                let (outcome, error) = try Self.libraryOutcome(Array(files.single.prefix(length)), at: path, "cut at \(length)")
                #expect(outcome == .truncated, "cut at \(length): \(String(describing: error))")
                cases += 1
            }
            for (name, bytes) in try Self.entryCases(files) {
                let (outcome, error) = try Self.libraryOutcome(bytes, at: path, name)
                #expect(outcome == .entryFailure, "\(name): \(String(describing: error))")
                cases += 1
            }
            Reliability.figure("tamper library", "\(cases) tampered files (\(files.single.count)-byte vault: \(2 * files.single.count) flips, "
                               + "\(files.single.count) truncations; 3 entry-level cases), each the documented error, none opened")
        }
    }

    /// Runs `coffer get FILE --service site --account alice` with the password on stdin.
    static func cliGet(_ path: String, password: String = password) throws -> ProcessResult {
        try runProduct("coffer", ["get", path, "--service", "site", "--account", "alice"], stdin: password + "\n")
    }

    @Test("coffer get: every flip, every truncation and the entry-level cases exit 65 and print nothing")
    func cliMatrix() async throws {
        // COFFER_RELIABILITY_CLI_STRIDE=k runs every k-th flip and truncation only (for quick local runs).
        let stride = Reliability.setting("COFFER_RELIABILITY_CLI_STRIDE", 1)
        try await withTemporaryDirectoryAsync { dir in
            let files = try Self.makeFiles(dir)
            var cases: [(String, [UInt8])] = []
            for offset in Swift.stride(from: 0, to: files.single.count, by: stride) {
                var changed = files.single
                changed[offset] ^= 0xFF
                cases.append(("byte \(offset) ^ 0xff", changed))
            }
            for length in Swift.stride(from: 0, to: files.single.count, by: stride) {
                cases.append(("cut at \(length)", Array(files.single.prefix(length))))
            }
            cases += try Self.entryCases(files)

            // Controls: the untouched file prints the secret; a wrong password exits 77.
            let intact = dir.appendingPathComponent("intact.coffer").path
            try Data(files.current).write(to: URL(fileURLWithPath: intact))
            let good = try Self.cliGet(intact)
            #expect(good.status == 0 && good.out == Self.secret + "\n", "\(good.status) \(good.err)")
            let wrong = try Self.cliGet(intact, password: "not-the-password")
            #expect(wrong.status == 77 && wrong.stdout.isEmpty, "\(wrong.status) \(wrong.err)")

            // Two at a time (this machine has two cores).
            let results = try await withThrowingTaskGroup(of: [(String, Int32, Bool, String, String)].self) { group in
                for worker in 0..<2 {
                    let mine = cases.enumerated().filter { $0.offset % 2 == worker }
                    group.addTask {
                        var out: [(String, Int32, Bool, String, String)] = []
                        for (index, (name, bytes)) in mine {
                            let path = dir.appendingPathComponent("tampered-\(index).coffer").path
                            try Data(bytes).write(to: URL(fileURLWithPath: path))
                            let result = try Self.cliGet(path)
                            out.append((name, result.status, result.killed, result.out, result.err))
                            try? FileManager.default.removeItem(atPath: path)
                        }
                        return out
                    }
                }
                var all: [(String, Int32, Bool, String, String)] = []
                for try await part in group { all += part }
                return all
            }
            #expect(results.count == cases.count)
            for (name, status, killed, stdout, stderr) in results {
                #expect(!killed && status == 65, "\(name): exit \(status)\(killed ? " (signal)" : ""): \(stderr)")
                #expect(stdout.isEmpty, "\(name): printed \(stdout.utf8.count) bytes")
            }
            let exit65 = results.filter { $0.1 == 65 && !$0.2 && $0.3.isEmpty }.count
            Reliability.figure("tamper coffer get", "\(results.count) tampered files through `coffer get` "
                               + "(\(files.single.count)-byte vault, stride \(stride)): \(exit65) exit 65 with empty stdout, "
                               + "0 exit 0, 0 crashes; controls: intact exit 0 with the secret, wrong password exit 77")
        }
    }
}

import Foundation
import Testing
import CofferFormat
import CofferTransfer
import CofferTestSupport

/// The fuzz targets' entry points (FuzzEntryPoints.swift) in the ordinary test
/// run: every crasher kept in `Fuzz/Regressions/<target>/` is replayed and must give a typed
/// error or success with no broken invariant; and the seed corpus derived from
/// `Tests/Vectors` must reach the deep stages, so that the fuzzers start from real vaults.
@Suite("Format: fuzz regressions and seeds")
struct FormatFuzzTests {
    static var regressions: URL { Reliability.repositoryRoot.appendingPathComponent("Fuzz/Regressions", isDirectory: true) }

    static func files(_ target: String) throws -> [(String, [UInt8])] {
        let folder = regressions.appendingPathComponent(target, isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { name in
            (name, Array(try Data(contentsOf: folder.appendingPathComponent(name))))
        }
    }

    @Test("Every kept crasher of the vault decoder gives a typed error, no broken invariant")
    func vaultRegressions() throws {
        let files = try Self.files("vault")
        for (name, bytes) in files {
            let report = FuzzEntryPoints.vault(bytes)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
        }
        Reliability.figure("fuzz regressions vault", "\(files.count) kept inputs replayed")
    }

    @Test("Every kept crasher of the other parsers gives a typed error or success, no broken invariant")
    func inputRegressions() throws {
        let files = try Self.files("inputs")
        for (name, bytes) in files {
            let report = FuzzEntryPoints.inputs(bytes)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
            #expect(report.deepest == .opened || !report.errors.isEmpty, "\(name): neither success nor a typed error")
        }
        Reliability.figure("fuzz regressions inputs", "\(files.count) kept inputs replayed")
    }

    @Test("Every kept input of the merge target gives a typed error or a merge, no broken invariant")
    func mergeRegressions() throws {
        let fixture = try FuzzEntryPoints.MergeFixture(vectors: VectorPaths.directory)
        let files = try Self.files("merge")
        for (name, bytes) in files {
            let report = FuzzEntryPoints.merge(bytes, fixture: fixture)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
            #expect(report.deepest == .opened || !report.errors.isEmpty, "\(name): neither merged nor a typed error")
            expectInMemoryAgrees(bytes, fixture, report, name)
        }
        Reliability.figure("fuzz regressions merge", "\(files.count) kept inputs replayed")
    }

    @Test("The merge target: every format-2 merge vector merges into the fixed vault with every invariant kept")
    func mergeSeeds() throws {
        let fixture = try FuzzEntryPoints.MergeFixture(vectors: VectorPaths.directory)
        let seeds = try FuzzEntryPoints.mergeSeeds(vectors: VectorPaths.directory)
        #expect(seeds.count >= 3)
        for (name, bytes) in seeds {
            let report = FuzzEntryPoints.merge(bytes, fixture: fixture)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
            #expect(report.deepest == .opened, "\(name): \(report.errors)")
            expectInMemoryAgrees(bytes, fixture, report, name)
        }
    }

    /// The fuzz binary's in-memory merge check (MergeFastFuzzEntryPoints.swift) on the same
    /// input as the file path gave `slow`: no broken invariant, and the same outcome (merged,
    /// or refused with the same kind), so that the fast target checks what `Vault.merge` does.
    func expectInMemoryAgrees(_ bytes: [UInt8], _ fixture: FuzzEntryPoints.MergeFixture, _ slow: FuzzEntryPoints.Report, _ name: String) {
        let fast = FuzzEntryPoints.mergeInMemory(bytes, fixture: fixture)
        #expect(fast.violations.isEmpty, "\(name), in memory: \(fast.violations)")
        #expect(fast.deepest == slow.deepest && fast.errors.first?.kind == slow.errors.first?.kind,
                "\(name): in memory \(fast.deepest) \(fast.errors), through the file \(slow.deepest) \(slow.errors)")
    }

    /// The custom mutator in the ordinary test run: seeded mutations of the merge vectors
    /// (most of them past authentication) merge or are refused with every invariant kept.
    @Test("The merge target's mutator: seeded mutations of the merge vectors keep every invariant")
    func mergeMutations() throws {
        let fixture = try FuzzEntryPoints.MergeFixture(vectors: VectorPaths.directory)
        var corpus = try FuzzEntryPoints.mergeSeeds(vectors: VectorPaths.directory).map(\.1)
        let random = SeededRandom("merge mutations")
        let runs = Int(ProcessInfo.processInfo.environment["COFFER_MERGE_MUTATIONS"] ?? "") ?? 100
        var merged = 0
        for run in 0..<runs {
            let input = corpus[Int(random.next() % UInt64(corpus.count))]
            let mutated = FuzzEntryPoints.mutateMerge(input, maxSize: 1 << 20, seed: UInt32(truncatingIfNeeded: random.next()),
                                                      fixture: fixture) { bytes, maxSize in
                // A stand-in for libFuzzer's byte mutator: a few bytes changed, maybe a cut.
                for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                }
                if random.next() % 4 == 0 { bytes.removeLast(Int(random.next() % UInt64(bytes.count + 1))) }
                bytes = Array(bytes.prefix(maxSize))
            }
            let report = FuzzEntryPoints.merge(mutated, fixture: fixture)
            // A broken invariant keeps its input (the mutations depend on the nonces merges
            // draw, so a run cannot be repeated): in COFFER_MERGE_DUMP, else the temporary folder.
            var kept = ""
            if !report.violations.isEmpty {
                let folder = ProcessInfo.processInfo.environment["COFFER_MERGE_DUMP"] ?? NSTemporaryDirectory()
                let file = URL(fileURLWithPath: folder).appendingPathComponent("coffer-merge-violation-\(getpid())-\(run)")
                try Data(mutated).write(to: file)
                kept = " (input kept in \(file.path); replay it from Fuzz/Regressions/merge)"
            }
            #expect(report.violations.isEmpty, "mutation \(run): \(report.violations)\(kept)")
            expectInMemoryAgrees(mutated, fixture, report, "mutation \(run)")
            if report.deepest == .opened {
                merged += 1
                corpus.append(mutated)
            }
        }
        // Most mutations get past authentication to the merge itself.
        #expect(merged * 3 >= runs, "\(merged) of \(runs) mutated replicas merged")
        Reliability.figure("fuzz merge mutations", "\(merged) of \(runs) mutated replicas merged, every invariant kept")
    }

    /// Found by fuzzing the KeePassXC XML importer: Foundation's XMLParser trapped (killing
    /// the process) on names, comments and processing instructions that are not UTF-8.
    @Test("KeePassXC XML that is not UTF-8: malformedImport naming the line, no crash", arguments: [
        Array("<KeePassFile>\n<Root><".utf8) + [0xFF] + Array("l/></Root></KeePassFile>".utf8),
        Array("<a x".utf8) + [0xFF] + Array("=\"1\">t</a>".utf8),
        Array("<a>\n\n<!--".utf8) + [0xFF] + Array("--></a>".utf8),
        Array("<a><?p".utf8) + [0xFF] + Array(" x?></a>".utf8),
        Array("<a".utf8) + [0xC0, 0x80] + Array(">t</a>".utf8),
    ])
    func xmlNotUTF8(bytes: [UInt8]) throws {
        #expect(throws: CofferError.malformedImport) {
            try FuzzEntryPoints.importVault.importItems(from: try SecureBytes(copying: bytes), format: .keepassxcXML, dryRun: true)
        }
    }

    @Test("The seeds from Tests/Vectors: success vectors open completely, every other seed runs clean")
    func seeds() throws {
        let seeds = try FuzzEntryPoints.seeds(vectors: VectorPaths.directory,
                                              resources: Reliability.repositoryRoot.appendingPathComponent("Sources/CofferGenerator/Resources"))
        let vectors = try VectorFile.loadAll()
        #expect(seeds.vault.count == vectors.count)
        var opened = 0
        for (name, bytes) in seeds.vault {
            let report = FuzzEntryPoints.vault(bytes)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
            if vectors.first(where: { $0.name == name + ".vec" })?.expect == .success {
                #expect(report.deepest == .opened, "\(name) reached only \(report.deepest)")
                opened += 1
            }
        }
        #expect(opened >= 10)
        var accepted = 0
        var refused: [String] = []
        // The preamble parser is format 1's (`VaultFile.checkPreamble`): it refuses format 2's version.
        // Keys Coffer refuses on purpose (a passphrase, RSA, ECDSA) are seeds too.
        let failures = Set(vectors.filter { $0.expect != .success || $0.name.hasPrefix("v2-") }.map { "preamble-" + $0.name.dropLast(4) })
            .union(["id_ed25519_passphrase", "id_rsa", "id_ecdsa"].map { "openSSHKey-" + $0 })
        for (name, bytes) in seeds.inputs {
            let report = FuzzEntryPoints.inputs(bytes)
            #expect(report.violations.isEmpty, "\(name): \(report.violations)")
            if report.deepest == .opened { accepted += 1 } else if !failures.contains(name) { refused.append(name) }
        }
        // Everything derived from a success vector parses; only the preambles of failure vectors and of format 2, and the keys
        // refused on purpose, may not.
        #expect(refused.isEmpty, "\(accepted) of \(seeds.inputs.count) input seeds accepted; refused: \(refused.prefix(20))")
        Reliability.figure("fuzz seeds", "\(seeds.vault.count) vault seeds (\(opened) open completely), "
                           + "\(seeds.inputs.count) input seeds (\(accepted) accepted)")
    }

    @Test("Changed success vectors: a quick in-process pass over single-byte changes finds no broken invariant")
    func quickMutations() throws {
        let vectors = try VectorFile.loadAll().filter { $0.expect == .success }
        var runs = 0
        for vector in vectors.prefix(3) {
            for offset in Swift.stride(from: 0, to: vector.bytes.count, by: 7) {
                var changed = vector.bytes
                changed[offset] ^= 0x5A
                let report = FuzzEntryPoints.vault(changed)
                #expect(report.violations.isEmpty, "\(vector.name) byte \(offset): \(report.violations)")
                runs += 1
            }
        }
        #expect(runs > 100)
    }
}

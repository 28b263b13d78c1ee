import Foundation
import Testing
@testable import CofferFormat
import CofferVault
import CofferTestSupport

/// Runs every `Tests/Vectors/*.vec` file (SPEC.md §15) and checks SPEC.md against them.
@Suite("Format: vectors")
struct FormatVectorTests {
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: VectorPaths.directory.path)) ?? [])
        .filter { $0.hasSuffix(".vec") }
        .sorted()

    static func load(_ name: String) throws -> VectorFile {
        let data = try Data(contentsOf: VectorPaths.directory.appendingPathComponent(name))
        return try VectorFile.parse(name: name, contents: Array(data))
    }

    @Test("The vector set is complete: at least 15 files, every outcome class present")
    func catalogue() throws {
        let vectors = try VectorFile.loadAll()
        #expect(vectors.count >= 15)
        let classes = Set(vectors.map(\.expect))
        // "slot limit" and "other epoch" refuse a merge of two files, never one file: the
        // refused merge vectors name them.
        let mergeOnly: [VectorExpectation] = [.slotLimit, .otherEpoch]
        for expectation in VectorExpectation.allCases where !mergeOnly.contains(expectation) {
            #expect(classes.contains(expectation), "no vector expects \(expectation.rawValue)")
        }
        for expectation in mergeOnly {
            #expect(!classes.contains(expectation), "a file alone is never refused as \(expectation.rawValue)")
            #expect(vectors.contains { $0.mergeRefused == expectation }, "no refused merge vector names \(expectation.rawValue)")
        }
        for vector in vectors where vector.expect == .success {
            #expect(vector.entries != nil, "\(vector.name): a success vector lists its entries")
            #expect(vector.generation != nil, "\(vector.name): a success vector states its generation")
        }
        for vector in vectors where vector.expect != .success {
            #expect(vector.entries == nil, "\(vector.name): only success vectors list entries")
        }
    }

    @Test("Merge vectors: the replicas merged in every order give the merged result")
    func merges() throws {
        let vectors = try VectorFile.loadAll().filter { $0.mergeWith != nil && $0.mergeRefused == nil }
        #expect(!vectors.isEmpty, "no merge vector")
        for vector in vectors {
            let expected = try #require(vector.merged, "\(vector.name): merge-with without merged")
            let replicas = [vector] + (try (vector.mergeWith ?? []).map(Self.load))
            var orders: [[Int]] = [[]]
            for _ in replicas { orders = orders.flatMap { order in replicas.indices.filter { !order.contains($0) }.map { order + [$0] } } }
            // Across a rotation the result depends on which side holds the key (SPEC.md §15.3, §17.8):
            // merged into this file, in the listed order.
            if vector.name.hasPrefix("v2-merge-rotation-") { orders = [Array(replicas.indices)] }
            for order in orders {
                try withTemporaryDirectory { dir in
                    for index in replicas.indices {
                        try Data(replicas[index].bytes).write(to: dir.appendingPathComponent("\(index).coffer"))
                    }
                    let vault = try Vault.open(at: dir.appendingPathComponent("\(order[0]).coffer").path, credential: try vector.credential(),
                                               options: testOptions)
                    for index in order.dropFirst() { try vault.merge(contentsOf: dir.appendingPathComponent("\(index).coffer").path) }
                    var merged = try MergedVault(vault)
                    // Slots come in the order of the replica merged into; compare them as a set.
                    merged.slots.sort()
                    var wanted = expected
                    wanted.slots.sort()
                    if merged != wanted {
                        // Name what differs: the items, the conflicts, the deleted ids or the slots.
                        let differing = zip(merged.items, wanted.items).filter { $0 != $1 }.map { "got \($0)\n    want \($1)" }
                        let what: String = "\(vector.name): merge order \(order.map { replicas[$0].name }) differs: "
                            + differing.joined(separator: "\n  ")
                            + " conflicts \(merged.conflicts) / \(wanted.conflicts), deleted \(merged.deleted) / \(wanted.deleted), "
                            + "slots \(merged.slots) / \(wanted.slots)"
                        Issue.record(Comment(rawValue: what))
                    }
                }
            }
        }
    }

    @Test("Refused merge vectors: merged with each merge-with file, either way (across epochs: that file into this one), refused with the class named, both files unchanged")
    func refusedMerges() throws {
        let vectors = try VectorFile.loadAll().filter { $0.mergeRefused != nil }
        #expect(!vectors.isEmpty, "no refused merge vector")
        for vector in vectors {
            #expect(vector.merged == nil, "\(vector.name): a refused merge has no result")
            for other in try (vector.mergeWith ?? []).map(Self.load) {
                // Across epochs a refusal has a direction (SPEC.md §15.1): the listed copy into this file.
                let directions = vector.name.hasPrefix("v2-merge-rotation-refused-") ? [(vector, other)] : [(vector, other), (other, vector)]
                for (into, from) in directions {
                    try withTemporaryDirectory { dir in
                        let intoPath = dir.appendingPathComponent("into.coffer").path, fromPath = dir.appendingPathComponent("from.coffer").path
                        try Data(into.bytes).write(to: URL(fileURLWithPath: intoPath))
                        try Data(from.bytes).write(to: URL(fileURLWithPath: fromPath))
                        let vault = try Vault.open(at: intoPath, credential: try into.credential(), options: testOptions)
                        let error = #expect(throws: CofferError.self, "\(from.name) into \(into.name)") { try vault.merge(contentsOf: fromPath) }
                        #expect(error.flatMap(VectorExpectation.init(error:)) == vector.mergeRefused, "\(from.name) into \(into.name): \(error.map { "\($0)" } ?? "merged")")
                        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: intoPath))) == into.bytes)
                        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: fromPath))) == from.bytes)
                    }
                }
            }
        }
    }

    @Test("Each vector gives exactly its expected outcome", arguments: names)
    func outcome(_ name: String) throws {
        let vector = try Self.load(name)
        let key = try vector.credential()
        let (outcome, error, opened) = FormatReader.outcome(vector.bytes, key: key)
        #expect(outcome == vector.expect, "\(name): expected \(vector.expect.rawValue), got \(error.map { "\($0)" } ?? "success")")
        guard vector.expect == .success, let opened else { return }

        #expect(opened.entries == vector.entries ?? [], "\(name): entries differ")
        #expect(opened.generation == vector.generation, "\(name): generation")
        if let codec = opened.codecV2, let keys = opened.epochKeys {
            try Self.roundTripV2(codec, keys: keys, vector: vector)
            return
        }

        // Decoding then encoding reproduces the file byte for byte.
        let encoded = try VaultFile.encode(header: opened.codec.header, generation: opened.codec.manifest.generation,
                                                records: opened.codec.records, keys: opened.keys)
        #expect(encoded == vector.bytes, "\(name): decode/encode round trip differs")

        // And each decrypted plaintext re-encodes to itself (canonical TLV and padding).
        for record in opened.codec.records {
            let raw = RawRecord(Array(record.body))
            let vaultID = opened.codec.header.vaultID
            let overviewPlain = try open(raw.overviewCiphertext, nonce: raw.overviewNonce, key: opened.keys.overviewKey,
                                         ad: EntryRecord.associatedData(vaultID: vaultID, id: record.id, revision: record.revision, part: .overview))
            let secretPlain = try open(raw.secretCiphertext, nonce: raw.secretNonce, key: opened.keys.secretKey,
                                       ad: EntryRecord.associatedData(vaultID: vaultID, id: record.id, revision: record.revision, part: .secret))
            let list = try record.openOverviewList(vaultID: vaultID, keys: opened.keys)
            if let clock = try ItemClockCodec.decode(overview: list) {
                // With merge fields (SPEC.md §17.3): the parts put back together give the same lists.
                let parts = try ItemParts(overview: list, secrets: try record.openSecretList(vaultID: vaultID, keys: opened.keys))
                #expect(try Padding.pad(V1ClockFields.toV1(parts.overviewList(clock: clock, keepingDeletedContents: true)), blockSize: 64) == overviewPlain,
                        "\(name): overview of \(record.id) does not re-encode to itself")
                #expect(try parts.secretList().paddedSecureBytes(blockSize: 64).testBytes == secretPlain,
                        "\(name): secrets of \(record.id) do not re-encode to itself")
                continue
            }
            let attributes = try record.openOverview(vaultID: vaultID, keys: opened.keys)
            let secrets = try record.openSecrets(vaultID: vaultID, keys: opened.keys)
            #expect(try Padding.pad(EntryCodec.encodeOverview(attributes).publicBytes, blockSize: 64) == overviewPlain,
                    "\(name): overview of \(record.id) does not re-encode to itself")
            #expect(try EntryCodec.encodeSecrets(secrets).paddedSecureBytes(blockSize: 64).testBytes == secretPlain,
                    "\(name): secrets of \(record.id) do not re-encode to itself")
        }
    }

    @Test("Vectors give the same outcome through the public Vault API", arguments: names)
    func publicAPI(_ name: String) throws {
        let vector = try Self.load(name)
        guard Self.vaultReads(vector) else { return }
        let credential = try Self.credential(vector)
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("vault.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            var outcome: VectorExpectation?
            var items: [VectorEntry] = []
            var failure: CofferError?
            do {
                let vault = try Vault.open(at: path, credential: credential, options: testOptions)
                for item in try vault.items().sorted(by: { $0.id < $1.id }) {
                    // Reading every secret part authenticates it (as verifyAll would, without re-reading the file).
                    items.append(VectorEntry(id: item.id, revision: item.revision, attributes: item.attributes,
                                             secrets: try vault.secrets(for: item.id)))
                }
                outcome = .success
            } catch let error as CofferError {
                failure = error
                outcome = VectorExpectation(error: error)
            }
            #expect(outcome == vector.expect, "\(name): expected \(vector.expect.rawValue), got \(failure.map { "\($0)" } ?? "success")")
            if vector.expect == .success {
                // The API lists live items only: tombstones stay in the file (SPEC.md §17.5).
                #expect(items == (vector.entries ?? []).filter { $0.deleted != true }, "\(name): entries differ")
            }
        }
    }

    @Test("Vault.info over the whole file refuses a vector only with the vector's own outcome (SPEC.md §10 steps 1-9)", arguments: names)
    func infoWholeFile(_ name: String) throws {
        let vector = try Self.load(name)
        guard Self.vaultReads(vector) else { return }
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("vault.coffer").path
            try Data(vector.bytes).write(to: URL(fileURLWithPath: path))
            do {
                let info = try Vault.info(at: path, scope: .wholeFile)
                // What is left needs a key: these classes are decided before any key is used.
                #expect(![.notACofferFile, .unsupportedVersion, .kdfOutOfBounds].contains(vector.expect), "\(name): info accepted it")
                #expect(info.fileSize == vector.bytes.count)
            } catch let error as CofferError {
                #expect(VectorExpectation(error: error) == vector.expect, "\(name): info gave \(error), the vector expects \(vector.expect.rawValue)")
            }
        }
    }

    @Test("SPEC.md's worked example is success-raw-key.vec, value by value")
    func workedExample() throws {
        let spec = try String(contentsOf: VectorPaths.repositoryRoot.appendingPathComponent("SPEC.md"), encoding: .utf8)
        let vector = try Self.load(WorkedExample.vectorName)

        let valueLines = try #require(WorkedExample.block(in: spec, marker: "worked-example-values"), "values block missing")
        let expected = try WorkedExample.values(vector)
        #expect(valueLines.count == expected.count)
        for (line, (name, value)) in zip(valueLines, expected) {
            #expect(line == "\(name) = \(Hex.encode(value))", "SPEC.md §16 value \(name)")
        }

        let fileLines = try #require(WorkedExample.block(in: spec, marker: "worked-example-file"), "file block missing")
        let hex = fileLines.map { line in line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? "" }
            .joined().filter { !$0.isWhitespace }
        #expect(hex == Hex.encode(vector.bytes), "SPEC.md §16 file bytes")
    }

    @Test("SPEC.md's worked example of format 2 is v2-success-raw-key.vec, value by value")
    func workedExampleV2() throws {
        let spec = try String(contentsOf: VectorPaths.repositoryRoot.appendingPathComponent("SPEC.md"), encoding: .utf8)
        let vector = try Self.load(WorkedExampleV2.vectorName)
        let valueLines = try #require(WorkedExampleV2.block(in: spec, marker: WorkedExampleV2.valuesMarker), "values block missing")
        let expected = try WorkedExampleV2.values(vector)
        #expect(valueLines.count == expected.count)
        for (line, (name, value)) in zip(valueLines, expected) {
            #expect(line == "\(name) = \(Hex.encode(value))", "SPEC.md §16 value \(name)")
        }
        let fileLines = try #require(WorkedExampleV2.block(in: spec, marker: WorkedExampleV2.fileMarker), "file block missing")
        let hex = fileLines.map { line in line.split(separator: "#", maxSplits: 1).first.map(String.init) ?? "" }
            .joined().filter { !$0.isWhitespace }
        #expect(hex == Hex.encode(vector.bytes), "SPEC.md §16 file bytes")
    }

    @Test("SPEC.md §10.1 defines exactly the outcome classes the vectors use")
    func specDefinesClasses() throws {
        let spec = try String(contentsOf: VectorPaths.repositoryRoot.appendingPathComponent("SPEC.md"), encoding: .utf8)
        let section = try #require(spec.components(separatedBy: "### 10.1 Outcome classes").dropFirst().first?
            .components(separatedBy: "\n## ").first, "SPEC.md has no §10.1")
        // Table rows of §10.1: | "class" | meaning |
        let defined = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| \""), let end = line.dropFirst(3).firstIndex(of: "\"") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
        #expect(Set(defined) == Set(VectorExpectation.allCases.map(\.rawValue)))
        #expect(defined.count == VectorExpectation.allCases.count)
    }

    @Test("SPEC.md lists every vector file")
    func specListsVectors() throws {
        let spec = try String(contentsOf: VectorPaths.repositoryRoot.appendingPathComponent("SPEC.md"), encoding: .utf8)
        for name in Self.names {
            #expect(spec.contains("`\(name)`"), "SPEC.md §15 does not list \(name)")
        }
    }

    @Test("index.json lists every vector with its header, and each gives the outcome the index declares")
    func index() throws {
        let index = try VectorIndex.load()
        #expect(index.version == 1)
        #expect(index.vectors.map(\.file) == Self.names, "index.json and the .vec files differ")
        for item in index.vectors {
            let data = try Array(Data(contentsOf: VectorPaths.directory.appendingPathComponent(item.file)))
            let vector = try VectorFile.parse(name: item.file, contents: data)
            // The index says what the file's header says, and where the vault starts.
            #expect(item == VectorIndex.Item(vector, vaultOffset: data.count - vector.bytes.count), "\(item.file): index differs from its header")
            #expect(Array(data[min(item.vaultOffset, data.count)...]) == vector.bytes, "\(item.file): vault-offset")
            // Run it from the index's inputs alone.
            var fromIndex = vector
            fromIndex.password = item.password
            fromIndex.keyFile = item.keyFile.map(Hex.decode)
            fromIndex.rawKey = item.rawKey.map(Hex.decode)
            fromIndex.identity = item.identity
            fromIndex.sshSeed = item.sshSeed.map(Hex.decode)
            fromIndex.bytes = Array(data[min(item.vaultOffset, data.count)...])
            let expected = try #require(VectorExpectation(rawValue: item.expect), "\(item.file): unknown class \(item.expect)")
            let (outcome, error, opened) = FormatReader.outcome(fromIndex.bytes, key: try fromIndex.credential())
            #expect(outcome == expected, "\(item.file): expected \(item.expect), got \(error.map { "\($0)" } ?? "success")")
            if expected == .success {
                #expect(opened?.entries == item.entries, "\(item.file): entries")
                #expect(opened?.generation == item.generation, "\(item.file): generation")
            }
        }
    }

    /// Format 2: the file encodes back to itself, and every plaintext to itself (SPEC.md §11).
    static func roundTripV2(_ codec: VaultFileV2, keys: EpochKeys, vector: VectorFile) throws {
        let name = vector.name
        let encoded = try VaultFileV2.encode(header: codec.header, generation: codec.generation, records: codec.records, keys: keys).bytes
        #expect(encoded == vector.bytes, "\(name): decode/encode round trip differs")
        let vaultID = codec.header.vaultID
        for record in codec.records {
            let overview = try record.openOverviewList(vaultID: vaultID, keys: keys)
            let secrets = try record.openSecretList(vaultID: vaultID, keys: keys, overview: overview)
            let present = try ItemParts.registers(ofOverview: overview).union(
                secrets.withUnsafeBytes { (raw) throws(FormatError) in try ItemParts.registers(ofSecretList: raw) })
            let cipher = Array(record.overviewCiphertext), nonce = record.nonce.bytes
            let ad = RecordV2.associatedData(vaultID: vaultID, id: record.id, part: .overview)
            let overviewPlain = try cipher.withBytes { (c) throws(CofferError) in
                try nonce.withBytes { (n) throws(CofferError) in
                    try ad.withBytes { (a) throws(CofferError) in try XChaCha20Poly1305.openPublic(c, key: keys.overviewKey, nonce: n, associatedData: a) }
                }
            }
            #expect(Padme.pad(try CompactOverview.compact(from: overview, tombstone: record.isTombstone, present: present)) == overviewPlain,
                    "\(name): overview of \(record.id) does not re-encode to itself")
            guard !record.isTombstone else { continue }
            let secretPlain = try XChaCha20Poly1305.open(record.secretCiphertext, key: keys.secretKey, nonce: record.nonce.bytes,
                                                         associatedData: RecordV2.associatedData(vaultID: vaultID, id: record.id, part: .secret))
            #expect(try CompactFieldList.compact(from: .secret(secrets), schema: .secret).padmeSecureBytes().testBytes == secretPlain.testBytes,
                    "\(name): secrets of \(record.id) do not re-encode to itself")
        }
    }

    /// Whether the vault API can open this vector's file (format 1 only, until the vault reads format 2).
    static func vaultReads(_ vector: VectorFile) -> Bool {
        ((try? VaultFile.formatVersion(vector.bytes)) ?? 1) == FormatV1.version
    }

    // MARK: Helpers

    private func open(_ ciphertext: [UInt8], nonce: [UInt8], key: SecureBytes, ad: [UInt8]) throws -> [UInt8] {
        try XChaCha20Poly1305.open(ciphertext, key: key, nonce: nonce, associatedData: ad).testBytes
    }

    static func credential(_ vector: VectorFile) throws -> VaultCredential {
        let keyFile = try vector.keyFile.map { try KeyFile(contents: SecureBytes(copying: $0)) }
        switch (vector.password, keyFile, vector.rawKey) {
        case (let p?, nil, nil): return .password(try SecureBytes(copying: p))
        case (nil, let k?, nil): return .keyFile(k)
        case (let p?, let k?, nil): return .passwordAndKeyFile(try SecureBytes(copying: p), k)
        case (nil, nil, let r?): return .rawKey(try SecureBytes(copying: r))
        default: throw VectorFileError(description: "\(vector.name): no credential")
        }
    }
}

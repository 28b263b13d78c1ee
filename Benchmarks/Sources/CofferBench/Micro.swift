import Coffer
import Foundation

/// In-process benchmarks of the hot paths: sealing and opening one entry, opening and
/// saving a large vault without the KDF (a raw-key slot), the password generator, and
/// Argon2id through each implementation. Prints a table; `--json PATH` also writes it.
enum Micro {
    struct Result: Codable {
        let name: String
        /// Seconds per repetition: median, min, max.
        let median: Double, min: Double, max: Double
        let repetitions: Int
        /// Operations per repetition (per-operation time = median / ops).
        let ops: Int
    }

    nonisolated(unsafe) static var results: [Result] = []

    static func run(_ options: Options) throws {
        let quick = options.flag("quick")
        let entries = try options.int("entries", default: quick ? 10_000 : 100_000)
        let reps = try options.int("repetitions", default: quick ? 3 : 7)
        let only = options.named["only"]
        func enabled(_ group: String) -> Bool { only.map { $0.split(separator: ",").contains(Substring(group)) } ?? true }

        if enabled("generator") { try generator(reps: reps) }
        if enabled("entry") { try entry(reps: reps) }
        if enabled("vault") { try vault(entries: entries, reps: reps) }
        if enabled("kdf") { try kdf(reps: quick ? 5 : 9, large: !quick) }

        if let path = options.named["json"] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(results).write(to: URL(fileURLWithPath: path))
        }
    }

    /// Times `body` `reps` times (after one warm-up) and records the spread.
    static func measure(_ name: String, reps: Int, ops: Int = 1, warmup: Bool = true, _ body: () throws -> Void) rethrows {
        let clock = ContinuousClock()
        if warmup { try body() }
        var samples: [Double] = []
        for _ in 0..<reps {
            let start = clock.now
            try body()
            samples.append(seconds(clock.now - start))
        }
        samples.sort()
        let result = Result(name: name, median: samples[samples.count / 2], min: samples[0], max: samples[samples.count - 1],
                            repetitions: reps, ops: ops)
        results.append(result)
        let per = result.median / Double(ops)
        let perText = per < 1e-3 ? String(format: "%8.2f µs/op", per * 1e6) : String(format: "%8.3f ms/op", per * 1e3)
        print(String(format: "%-52@ %@  (median of %d; min %.4f s, max %.4f s, %d ops)",
                     name as NSString, perText as NSString, reps, result.min, result.max, ops))
    }

    /// Like `measure`, for several variants timed in turn within each repetition, the
    /// first of each round rotating.
    static func measureInTurn(_ variants: [(String, () throws -> Void)], reps: Int) throws {
        let clock = ContinuousClock()
        var samples = [[Double]](repeating: [], count: variants.count)
        for round in 0..<reps {
            // The variant that goes first rotates: the first of a round runs on a cooler
            // machine (caches, page cache, frequency) than the ones after it.
            for step in variants.indices {
                let index = (round + step) % variants.count
                let start = clock.now
                try variants[index].1()
                samples[index].append(seconds(clock.now - start))
            }
        }
        for (index, variant) in variants.enumerated() {
            let sorted = samples[index].sorted()
            let result = Result(name: variant.0, median: sorted[sorted.count / 2], min: sorted[0], max: sorted[sorted.count - 1],
                                repetitions: reps, ops: 1)
            results.append(result)
            print(String(format: "%-52@ %8.3f ms/op  (median of %d, in turn with the others; min %.4f s, max %.4f s)",
                         variant.0 as NSString, result.median * 1e3, reps, result.min, result.max))
        }
    }

    // MARK: Generator

    static func generator(reps: Int) throws {
        let generator = try PasswordGenerator(policy: PasswordPolicy(length: 20))
        let count = 1_000_000
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count * 20, alignment: 16)
        defer { buffer.initializeMemory(as: UInt8.self, repeating: 0); buffer.deallocate() }
        try measure("generator: generate(into:), 1,000,000 × length 20", reps: reps, ops: count) {
            guard try generator.generate(into: buffer) == count else { throw BenchError("short generation") }
        }
        try measure("generator: generate() one at a time (SecureBytes)", reps: reps, ops: 10_000) {
            for _ in 0..<10_000 { _ = try generator.generate() }
        }
    }

    // MARK: One entry

    static func sample(_ i: Int) throws -> (ItemAttributes, ItemSecrets) {
        var attributes = ItemAttributes.genericPassword(service: "service-\(i).example.com", account: "user\(i)@mail.example.org")
        attributes.urls = ["https://service-\(i).example.com/login"]
        let secrets = ItemSecrets(password: try SecureBytes(copying: "z-BW&sj$FE/|qSa!sS*_"),
                                  notes: try SecureBytes(copying: String(repeating: "notes text ", count: 9) + "x"))
        return (attributes, secrets)
    }

    static func entry(reps: Int) throws {
        let bench = try BenchmarkSupport.EntryBench()
        let (attributes, secrets) = try sample(1)
        let n = 20_000
        try measure("entry: seal one (overview + secrets)", reps: reps, ops: n) {
            for _ in 0..<n { try bench.seal(attributes, secrets) }
        }
        try measure("entry: open one (overview + secrets)", reps: reps, ops: n) {
            for _ in 0..<n { _ = try bench.openLast() }
        }
    }

    // MARK: A large vault, without the KDF

    static func vault(entries: Int, reps: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-micro-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/micro.coffer"
        let rawKey = try SecureBytes.random(count: 32)
        let clock = ContinuousClock()
        let start = clock.now
        let created = try Vault.create(at: path, credential: .rawKey(rawKey), options: VaultOptions(keepsBackup: false))
        try created.transaction { tx in
            for i in 0..<entries {
                let (attributes, secrets) = try sample(i)
                try tx.add(attributes, secrets: secrets)
            }
        }
        print("(built a \(entries)-entry raw-key vault in \(String(format: "%.2f", seconds(clock.now - start))) s)")
        let label = entries.formatted()
        try measure("vault \(label): open (raw key, no KDF)", reps: reps) {
            _ = try Vault.open(at: path, credential: .rawKey(rawKey))
        }
        try measure("vault \(label): Vault.info (reads the header only)", reps: reps) {
            _ = try Vault.info(at: path)
        }
        let opened = try Vault.open(at: path, credential: .rawKey(rawKey))
        try measure("vault \(label): items() on an open vault", reps: reps) {
            _ = try opened.items()
        }
        let steps = try BenchmarkSupport.OpenBench(path: path, rawKey: rawKey)
        try measure("vault \(label): parse (SPEC §10 steps 1–9)", reps: reps) { try steps.parse() }
        try measure("vault \(label): parse + verify MACs and digests", reps: reps) { try steps.verify() }
        try measure("vault \(label): parse + decrypt and check every overview", reps: reps, ops: entries) {
            _ = try steps.decodeOverviews()
        }
        try measure("vault \(label): parse + encode the file", reps: reps) { _ = try steps.encode() }
        var i = entries
        try measure("vault \(label): add one + save", reps: reps) {
            i += 1
            let (attributes, secrets) = try sample(i)
            try opened.add(attributes, secrets: secrets)
        }
        let first = try opened.items(matching: ItemQuery(limit: 1))[0]
        try measure("vault \(label): secrets(for:) of one item", reps: reps, ops: 1000) {
            for _ in 0..<1000 { _ = try opened.secrets(for: first.id) }
        }
        try measure("vault \(label): items(matching: service + account)", reps: reps) {
            guard try opened.items(matching: ItemQuery(service: first.service, account: first.account)).count == 1 else {
                throw BenchError("the query should find one item")
            }
        }
    }

    // MARK: Argon2id

    static func kdf(reps: Int, large: Bool) throws {
        let password = try SecureBytes(copying: "correct horse battery staple")
        let salt = [UInt8](repeating: 7, count: 16)
        var sets: [(UInt32, UInt32)] = [(64 * 1024, 1), (64 * 1024, 2)]
        if large { sets += [(256 * 1024, 1), (256 * 1024, 2)] }
        for (memory, lanes) in sets {
            let parameters = Argon2idParameters(memoryKiB: memory, iterations: 3, lanes: lanes)
            let tag = "\(memory / 1024) MiB, t=3, p=\(lanes)"
            var implementations = ["libargon2", "automatic"]
            if lanes == 1 { implementations.insert("libsodium", at: 0) }
            // Every variant once per round, in turn, so that a change of load hits them alike.
            var variants: [(String, () throws -> Void)] = implementations.map { implementation in
                ("kdf \(tag): Coffer via \(implementation)", {
                    _ = try BenchmarkSupport.argon2id(password: password, salt: salt, parameters: parameters,
                                                      implementation: implementation)
                })
            }
            for implementation in implementations where implementation != "automatic" {
                variants.append(("kdf \(tag): \(implementation) called directly", {
                    _ = try KDFFloor.derive(password: Array("correct horse battery staple".utf8), salt: salt, memoryKiB: memory,
                                            iterations: 3, lanes: lanes, implementation: implementation)
                }))
            }
            try measureInTurn(variants, reps: reps)
        }
    }
}

import Coffer
import Foundation

/// Merging two replicas of a large vault (SPEC.md §17), each with a share of its items
/// changed, against an open + list of one replica, in one interleaved run:
///
///   CofferBench merge VAULT --password P [--percent 1] [--runs 5] [--work DIR]
///
/// VAULT is copied to two replicas; on each, `percent` % of the items (different ones)
/// get a new password, saved by the library as `coffer edit` would. Then, `runs` times
/// each, alternating: open replica A and list it (no printing), and open a fresh copy of
/// A and merge B into it (saved, fsynced). Both include the KDF, which the report
/// measures apart (an unlock of A alone) to give the figures beyond it.
enum MergeReplicas {
    static func run(_ options: Options) throws {
        guard options.positional.count == 1 else { throw BenchError("merge VAULT --password P") }
        let source = options.positional[0]
        let password = try SecureBytes(copying: try options.string("password"))
        let percent = Double(try options.string("percent", default: "1")) ?? 1
        let runs = Int(try options.string("runs", default: "5")) ?? 5
        let work = try options.string("work", default: NSTemporaryDirectory() + "coffer-merge-bench")
        let files = FileManager.default
        try? files.removeItem(atPath: work)
        try files.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? files.removeItem(atPath: work) }
        let a = work + "/a.coffer", b = work + "/b.coffer", target = work + "/merge.coffer"
        try files.copyItem(atPath: source, toPath: a)
        try files.copyItem(atPath: source, toPath: b)
        let options = VaultOptions(keepsBackup: false, replicaState: .none)
        // Different items on each side: every k-th item, from two offsets.
        let count = try edit(a, password: password, options: options, percent: percent, offset: 0, tag: "a")
        _ = try edit(b, password: password, options: options, percent: percent, offset: 1, tag: "b")

        let clock = ContinuousClock()
        var list: [Double] = [], merge: [Double] = [], unlock: [Double] = []
        var report = MergeReport()
        for _ in 0..<runs {
            var start = clock.now
            _ = try Vault.info(at: a)
            let opened = try Vault.open(at: a, password: password, options: options)
            unlock.append(seconds(clock.now - start))
            _ = try opened.items()
            list.append(seconds(clock.now - start))
            opened.lock()

            try? files.removeItem(atPath: target)
            try files.copyItem(atPath: a, toPath: target)
            start = clock.now
            let vault = try Vault.open(at: target, password: password, options: options)
            report = try vault.merge(contentsOf: b)
            merge.append(seconds(clock.now - start))
            vault.lock()
        }
        // The KDF floor: one Argon2id with the slot's parameters, in this process.
        var kdf: [Double] = []
        let parameters = try Vault.info(at: a).slots.compactMap(\.kdf).first ?? .default
        for _ in 0..<runs {
            let start = clock.now
            _ = try BenchmarkSupport.argon2id(password: password, salt: [UInt8](repeating: 7, count: 16), parameters: parameters,
                                               implementation: "automatic")
            kdf.append(seconds(clock.now - start))
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let (u, l, m, k) = (median(unlock), median(list), median(merge), median(kdf))
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        print(String(format: "entries %d, changed per side %d; median of %d runs: open+list %.3f s, open+merge+save %.3f s, "
                     + "open alone %.3f s, KDF %.3f s; beyond the KDF: open+list %.3f s, merge %.3f s, ratio %.2f× "
                     + "(goal ≤ 2×); merge report: %d updated, %d conflicted; load average ",
                     count, Int(Double(count) * percent / 100), runs, l, m, u, k, l - k, m - k, (m - k) / max(l - k, 1e-9),
                     report.updated, report.conflicted.count) + load)
    }

    /// Gives `percent` % of the items of `path` a new password (every k-th from `offset`), in one save.
    static func edit(_ path: String, password: SecureBytes, options: VaultOptions, percent: Double, offset: Int,
                     tag: String) throws -> Int {
        let vault = try Vault.open(at: path, password: password, options: options)
        let items = try vault.items()
        let step = max(1, Int(100 / percent))
        try vault.transaction { tx in
            for index in stride(from: offset, to: items.count, by: step) {
                try tx.update(items[index].id) { _, secrets in secrets.password = try SecureBytes(copying: "\(tag)-\(index)") }
            }
        }
        return items.count
    }
}

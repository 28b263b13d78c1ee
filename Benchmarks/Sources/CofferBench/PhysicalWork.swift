import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `CofferBench physical VAULT --password P [--runs 5]`: the primitives a listing and a
/// password change cannot do without, on this vault's own records, timed in this process
/// (each the best of `--runs`), printed as JSON. `make bench` puts them beside the work
/// alone and `coffer` ("the physical work" in BENCHMARKS.md): what is left between the two
/// is Coffer's own format code (parsing, the checks of SPEC.md §10 beyond the AEAD and the
/// lookup tag, allocation), not the bytes read, hashed, decrypted and written.
///
/// - `read_ms`: the records read from the file in 4 MiB windows (`pread`, the page cache).
/// - `mac_ms`: the manifest MAC, BLAKE2b over the header and manifest (§8).
/// - `overviews_ms`: every live record's overview decrypted (XChaCha20-Poly1305) and one keyed
///   BLAKE2b of a 32-byte name (its lookup tag, §8.1), on every core: a listing's per-record work.
/// - `rotation_ms`: every record's parts decrypted and sealed again under other keys, the old
///   tag checked and the new one computed, on every core: a password change's per-record work.
/// - `write_ms`: the file's size written to a new file beside it, `fsync`ed, renamed and the
///   directory synced (then removed).
///
/// The KDF is not here: it is the floor, counted once per KDF as everywhere in BENCHMARKS.md.
enum PhysicalWork {
    static func run(_ options: Options) throws {
        guard let path = options.positional.first else { throw BenchError("usage: CofferBench physical VAULT --password P [--runs 5]") }
        let runs = try options.int("runs", default: 5)
        _ = ProcessMemory.keepFreedMemory()
        let vault = try BenchVault(path: path, password: try SecureBytes(copying: try options.string("password")))
        let keys = vault.keys, vaultID = vault.parsed.header.vaultID
        // Every record in memory once (not timed): the crypto is timed on bytes in memory,
        // the read apart.
        var loaded: [RecordV2] = []
        loaded.reserveCapacity(vault.parsed.records.count)
        try vault.forEachLoadedWindow { loaded += $0 }
        let live = loaded.filter { !$0.isTombstone }
        let other = try EpochKeys(epochKey: try EntropySource.system.secureBytes(32))

        var result: [String: Double] = [:]
        result["read_ms"] = try best(runs) { try vault.forEachWindow { _, _, _ in } }
        let macKey = try EntropySource.system.secureBytes(32)
        result["mac_ms"] = try best(runs) {
            _ = try vault.headBytes.withUnsafeBytes { raw in
                try BLAKE2b.mac256(buffer: UnsafeRawBufferPointer(rebasing: raw[..<(vault.manifestMACEnd - 32)]), key: macKey)
            }
        }
        result["overviews_ms"] = try best(runs) {
            try onEveryCore(live) { record, _ in
                let plain = try open(record, vaultID: vaultID, key: keys.overviewKey)
                _ = try tag(plain, key: keys.lookupKey)
            }
        }
        // A secret part is opened into guarded memory (a scratch buffer per core, as a
        // rotation does) and sealed from there.
        let largestSecret = loaded.map(\.secretCiphertext.count).max() ?? 0
        result["rotation_ms"] = try best(runs) {
            try onEveryCore(loaded, scratch: largestSecret) { record, scratch in
                let overview = try open(record, vaultID: vaultID, key: keys.overviewKey)
                _ = try seal(overview, record, .overview, vaultID: vaultID, key: other.overviewKey)
                guard !record.isTombstone else { return }
                _ = try tag(overview, key: keys.lookupKey)
                _ = try tag(overview, key: other.lookupKey)
                try resealSecret(record, vaultID: vaultID, from: keys.secretKey, to: other.secretKey, scratch: scratch)
            }
        }
        let size = vault.held.size
        result["write_ms"] = try best(runs) { try write(count: size, beside: path) }
        result["records"] = Double(loaded.count)
        result["live"] = Double(live.count)
        result["cores"] = Double(ParallelWork.cores)
        let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
        print(String(decoding: json, as: UTF8.self))
    }

    /// The best of `runs` wall times of `body`, in ms.
    private static func best(_ runs: Int, _ body: () throws -> Void) throws -> Double {
        var fastest = Double.infinity
        for _ in 0..<max(1, runs) {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            fastest = min(fastest, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return fastest
    }

    /// `body` for each record, on every core; with `scratch` bytes, each core's own guarded
    /// scratch buffer of that size.
    private static func onEveryCore(_ records: [RecordV2], scratch: Int = 0, _ body: (RecordV2, SecureBytes?) throws -> Void) throws {
        try records.withUnsafeBufferPointer { records in
            try ParallelWork.forEachRange(count: records.count) { (range) throws(CofferError) in
                do {
                    let buffer = scratch > 0 ? try SecureBytes(count: scratch) { (_: UnsafeMutableRawBufferPointer) in } : nil
                    for index in range { try body(records[index], buffer) }
                } catch let error as CofferError {
                    throw error
                } catch {
                    throw CofferError.invalidArgument("\(error)")
                }
            }
        }
    }

    /// A record's overview decrypted (the AEAD alone: no padding, no list read). Not secret:
    /// a listing opens it into ordinary memory too.
    private static func open(_ record: RecordV2, vaultID: [UInt8], key: SecureBytes) throws -> [UInt8] {
        let ad = RecordV2.associatedData(vaultID: vaultID, id: record.id, part: .overview)
        return try record.overviewCiphertext.withUnsafeBytes { c in
            try record.nonce.bytes.withUnsafeBytes { n in
                try ad.withUnsafeBytes { a in try XChaCha20Poly1305.openPublic(c, key: key, nonce: n, associatedData: a) }
            }
        }
    }

    private static func seal(_ plain: [UInt8], _ record: RecordV2, _ part: RecordV2.Part,
                             vaultID: [UInt8], key: SecureBytes) throws -> [UInt8] {
        try plain.withUnsafeBytes { p in
            try XChaCha20Poly1305.seal(p, key: key, nonce: record.nonce.bytes,
                                       associatedData: RecordV2.associatedData(vaultID: vaultID, id: record.id, part: part))
        }
    }

    /// A record's secret part opened into `scratch` (guarded memory) and sealed from there
    /// under `new`, into a buffer of its own.
    private static func resealSecret(_ record: RecordV2, vaultID: [UInt8], from old: SecureBytes, to new: SecureBytes,
                                     scratch: SecureBytes?) throws {
        guard let scratch else { throw BenchError("no scratch buffer") }
        let ad = RecordV2.associatedData(vaultID: vaultID, id: record.id, part: .secret)
        let nonce = record.nonce.bytes
        var sealed = [UInt8](repeating: 0, count: record.secretCiphertext.count)
        try nonce.withUnsafeBytes { n in
            try ad.withUnsafeBytes { a in
                try sealed.withUnsafeMutableBytes { out in
                    try XChaCha20Poly1305.open(record.secretCiphertext, key: old, nonce: n, associatedData: a, scratch: scratch) { (secret) throws(CofferError) in
                        try XChaCha20Poly1305.seal(secret, into: out, key: new, nonce: n, associatedData: a)
                    }
                }
            }
        }
    }

    /// A lookup tag's hash: keyed BLAKE2b-256 of a kind and a 31-byte name (the benchmark's).
    private static func tag(_ plain: [UInt8], key: SecureBytes) throws -> Digest256 {
        try plain.withUnsafeBytes { raw in try BLAKE2b.mac256(buffer: UnsafeRawBufferPointer(rebasing: raw[..<min(32, raw.count)]), key: key) }
    }

    /// `count` bytes written to a new file beside `path`, synced, renamed, the directory
    /// synced, then removed: what a save costs the disk.
    private static func write(count: Int, beside path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = directory + "/.physical-write.tmp", renamed = directory + "/.physical-write"
        let bytes = [UInt8](repeating: 0x5A, count: count)
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw BenchError("cannot create \(temporary)") }
        var written = 0
        while written < count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, count - written) }
            guard n > 0 else { Glibc.close(fd); throw BenchError("write failed") }
            written += n
        }
        guard fsync(fd) == 0 else { Glibc.close(fd); throw BenchError("fsync failed") }
        Glibc.close(fd)
        guard rename(temporary, renamed) == 0 else { throw BenchError("rename failed") }
        let dir = Glibc.open(directory, O_RDONLY)
        if dir >= 0 { _ = fsync(dir); Glibc.close(dir) }
        unlink(renamed)
    }
}

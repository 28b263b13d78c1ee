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
        let password = try SecureBytes(copying: try options.string("password"))
        let store = VaultFileStore(path: path)
        let held = try store.openHeld()
        let start = try held.read(at: 0, count: min(VaultFileV2.summaryPrefixLength, held.size))
        let head = try VaultFileV2.Start(start)
        let headBytes = try held.read(at: 0, count: min(head.manifestMACEnd, held.size))
        let parsed = try VaultFileV2.parse(head: headBytes, fileSize: held.size)
        let keys = try parsed.unlock(with: .password(password)).keys
        let vaultID = parsed.header.vaultID
        let records = parsed.records
        // Every record in memory once (not timed): the crypto is timed on bytes in memory,
        // the read apart.
        var loaded: [RecordV2] = []
        loaded.reserveCapacity(records.count)
        try windows(of: records, held: held) { range, bytes, first in
            for record in records[range] {
                guard let at = record.location else { continue }
                loaded.append(try record.loaded(from: bytes[(at.offset - first)..<(at.offset - first + at.length)]))
            }
        }
        let live = loaded.filter { !$0.isTombstone }
        let other = try EpochKeys(epochKey: try EntropySource.system.secureBytes(32))

        var result: [String: Double] = [:]
        result["read_ms"] = try best(runs) { try windows(of: records, held: held) { _, _, _ in } }
        let macKey = try EntropySource.system.secureBytes(32)
        result["mac_ms"] = try best(runs) {
            _ = try headBytes.withUnsafeBytes { raw in
                try BLAKE2b.mac256(buffer: UnsafeRawBufferPointer(rebasing: raw[..<(head.manifestMACEnd - 32)]), key: macKey)
            }
        }
        result["overviews_ms"] = try best(runs) {
            try onEveryCore(live) { record in
                let plain = try open(record.overviewCiphertext, record, .overview, vaultID: vaultID, key: keys.overviewKey)
                _ = try tag(plain, key: keys.lookupKey)
            }
        }
        result["rotation_ms"] = try best(runs) {
            try onEveryCore(loaded) { record in
                let overview = try open(record.overviewCiphertext, record, .overview, vaultID: vaultID, key: keys.overviewKey)
                _ = try seal(overview, record, .overview, vaultID: vaultID, key: other.overviewKey)
                guard !record.isTombstone else { return }
                _ = try tag(overview, key: keys.lookupKey)
                _ = try tag(overview, key: other.lookupKey)
                let secret = try open(record.secretCiphertext, record, .secret, vaultID: vaultID, key: keys.secretKey)
                _ = try seal(secret, record, .secret, vaultID: vaultID, key: other.secretKey)
            }
        }
        let size = held.size
        result["write_ms"] = try best(runs) { try write(count: size, beside: path) }
        result["records"] = Double(records.count)
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

    private static func onEveryCore(_ records: [RecordV2], _ body: (RecordV2) throws -> Void) throws {
        try records.withUnsafeBufferPointer { records in
            try ParallelWork.forEachRange(count: records.count) { (range) throws(CofferError) in
                do {
                    for index in range { try body(records[index]) }
                } catch let error as CofferError {
                    throw error
                } catch {
                    throw CofferError.invalidArgument("\(error)")
                }
            }
        }
    }

    /// One part decrypted (the AEAD alone: no padding, no list read).
    private static func open(_ cipher: ArraySlice<UInt8>, _ record: RecordV2, _ part: RecordV2.Part,
                             vaultID: [UInt8], key: SecureBytes) throws -> [UInt8] {
        let ad = RecordV2.associatedData(vaultID: vaultID, id: record.id, part: part)
        return try cipher.withUnsafeBytes { c in
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

    /// A lookup tag's hash: keyed BLAKE2b-256 of a kind and a 31-byte name (the benchmark's).
    private static func tag(_ plain: [UInt8], key: SecureBytes) throws -> Digest256 {
        try plain.withUnsafeBytes { raw in try BLAKE2b.mac256(buffer: UnsafeRawBufferPointer(rebasing: raw[..<min(32, raw.count)]), key: key) }
    }

    /// Calls `body` with each run of records one after another in the file, of at most
    /// ``VaultSnapshot/windowSize`` bytes, as read at once, and the file offset of its first byte.
    private static func windows(of records: [RecordV2], held: HeldFile,
                                _ body: (Range<Int>, [UInt8], Int) throws -> Void) throws {
        var index = 0
        while index < records.count {
            guard let first = records[index].location else { throw BenchError("a record of a file just read is in memory") }
            var end = index + 1, length = first.length
            while end < records.count, let next = records[end].location, next.offset == first.offset + length,
                  length + next.length <= VaultSnapshot.windowSize {
                length += next.length
                end += 1
            }
            try body(index..<end, try held.read(at: first.offset, count: length), first.offset)
            index = end
        }
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

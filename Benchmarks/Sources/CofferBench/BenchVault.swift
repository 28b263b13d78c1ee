import CofferCrypto
import CofferFormat
import CofferStore
import CofferVault

/// A vault file opened with Coffer's own format code, as a listing opens it: its start read,
/// the header and manifest parsed, the password's slot opened (the KDF). What the helpers that
/// time the format's work (`work`, `physical`) start from; nothing is authenticated yet.
struct BenchVault {
    let store: VaultFileStore
    let held: HeldFile
    /// The file's first bytes as read: the header and manifest, through the manifest MAC
    /// (which ends at ``manifestMACEnd``), and perhaps more.
    let headBytes: [UInt8]
    let manifestMACEnd: Int
    let parsed: VaultFileV2
    let keys: EpochKeys

    init(path: String, password: SecureBytes) throws {
        store = VaultFileStore(path: path)
        held = try store.openHeld()
        let start = try held.read(at: 0, count: min(VaultFileV2.summaryPrefixLength, held.size))
        let head = try VaultFileV2.Start(start)
        manifestMACEnd = head.manifestMACEnd
        headBytes = head.manifestMACEnd <= start.count ? start : try held.read(at: 0, count: min(head.manifestMACEnd, held.size))
        parsed = try VaultFileV2.parse(head: headBytes, fileSize: held.size)
        keys = try parsed.unlock(with: .password(password)).keys
    }

    /// Calls `body` with each run of records one after another in the file, of at most
    /// ``VaultSnapshot/windowSize`` bytes (as a listing reads them), as read at once: the run's
    /// indices in ``VaultFileV2/records``, its bytes, and the file offset of its first byte.
    func forEachWindow(_ body: (Range<Int>, [UInt8], Int) throws -> Void) throws {
        let records = parsed.records
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

    /// ``forEachWindow(_:)`` with each run's records loaded from its bytes.
    func forEachLoadedWindow(_ body: ([RecordV2]) throws -> Void) throws {
        let records = parsed.records
        try forEachWindow { range, bytes, offset in
            try body(try records[range].compactMap { record in
                guard let at = record.location else { return nil }
                return try record.loaded(from: bytes[(at.offset - offset)..<(at.offset - offset + at.length)])
            })
        }
    }
}

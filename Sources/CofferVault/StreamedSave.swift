import CofferCrypto
import CofferFormat
import CofferStore

/// A save of a lazily read snapshot written straight from the file it reads (SPEC.md §11
/// step 2): the records it keeps are read a window at a time from that file, checked and
/// written on in the order they have, and the records the changes sealed take their places
/// by id. No record outlives its window, no entry is made for every item and nothing is
/// sorted: a file's rows are in id order already. At 100,000 entries the save that made an
/// entry for every row, held every record and sorted them all spent about 130 ms of a
/// `coffer add` more than the checks and the write themselves.
///
/// Every record carried is checked before its window is written, as
/// ``VaultSnapshot/checkDigests(keys:keepingOverviews:)`` checks the records of a save made
/// from memory (SPEC.md §10, notes: a record is carried only after its overview has opened,
/// and its secret part too): its overview opens and is checked (§10 step 15, the lookup tag
/// included) and its secret part's AEAD tag is verified (``RecordV2/verifySecret(vaultID:keys:)``,
/// which makes no plaintext). A record whose overview does not open (damaged on
/// disk) ends the write with `tampered(.entry(id))`, the smallest such id of its window (the
/// first window that has one: windows ascend by id, so the smallest of the file); the
/// temporary file is removed and nothing is replaced. What is written is exactly what was
/// checked: each window is written from the bytes it was checked in.
struct StreamedSave: FileContents {
    /// The new file's rows in id order, each at its place in the new file (none in memory:
    /// once written, a record is read again from the file when it is used).
    let rows: [RecordV2]
    /// Where each row's record comes from: its offset in ``source``, or -1 for one in memory
    /// (the changes sealed it), whose bytes are next in ``sealedBodies``.
    private let sources: [Int]
    private let sealedBodies: [ArraySlice<UInt8>]
    /// Preamble, header and manifest with their MACs: everything before the first record.
    let head: [UInt8]
    let count: Int
    private let source: HeldFile
    private let opener: OverviewOpener

    /// The save of the rows `carried` of `source` (not read), with `sealed` (records in
    /// memory) put in their places, a sealed record replacing the row of its id; both in id
    /// order.
    init(carrying carried: [RecordV2], sealed: [RecordV2], header: VaultHeaderV2, generation: UInt64,
         source: HeldFile, opener: OverviewOpener) throws(CofferError) {
        var sources: [Int] = [], bodies: [ArraySlice<UInt8>] = [], rows: [RecordV2] = []
        sources.reserveCapacity(carried.count + sealed.count)
        rows.reserveCapacity(carried.count + sealed.count)
        var offset = 0   // in the records, after the head (not known yet)
        func append(_ record: RecordV2) {
            let length = record.location?.length ?? record.body.count
            sources.append(record.location?.offset ?? -1)
            if record.isLoaded { bodies.append(record.body) }
            rows.append(record.unloaded(to: RecordV2.Location(offset: offset, length: length)))
            offset += length
        }
        var next = sealed.startIndex
        for row in carried {
            while next < sealed.endIndex, sealed[next].id < row.id {
                append(sealed[next])
                next += 1
            }
            if next < sealed.endIndex, sealed[next].id == row.id { continue }
            append(row)
        }
        for record in sealed[next...] { append(record) }
        let head = try formatCall { () throws(FormatError) in
            try VaultFileV2.encodeHead(header: header, generation: generation, records: rows, keys: opener.keys)
        }
        // The head's length known, each row moves to its place in the file (in place).
        for index in rows.indices {
            if let location = rows[index].location {
                rows[index] = rows[index].unloaded(to: RecordV2.Location(offset: head.count + location.offset, length: location.length))
            }
        }
        self.head = head
        self.rows = rows
        self.sources = sources
        sealedBodies = bodies
        count = head.count + offset
        self.source = source
        self.opener = opener
    }

    func forEachChunk(_ write: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) {
        // Every byte handed on is counted: a file of another length than the manifest
        // describes is never committed (the temporary file is removed).
        var handedOn = 0
        func body(_ piece: UnsafeRawBufferPointer) throws(StoreError) {
            handedOn += piece.count
            try write(piece)
        }
        try head.withBytes { (raw) throws(StoreError) in try body(raw) }
        let staging = ChunkStaging()
        var index = 0, sealed = 0
        while index < rows.count {
            guard let first = sources[index...].first(where: { $0 >= 0 }) else {
                // Only records in memory are left.
                for piece in sealedBodies[sealed...] { try piece.withBytes { (raw) throws(StoreError) in try staging.append(raw, body) } }
                break
            }
            // A window: the records that follow each other in the source from `first`, at most
            // windowSize bytes (a larger record alone), and the records in memory between them.
            var end = index, length = 0
            while end < rows.count {
                if sources[end] < 0 { end += 1; continue }
                let next = rows[end].location?.length ?? 0
                guard sources[end] == first + length, length == 0 || length + next <= VaultSnapshot.windowSize else { break }
                length += next
                end += 1
            }
            let bytes = try source.read(at: first, count: length)
            try check(rows[index..<end], in: bytes, from: sources[index..<end], at: first)
            try bytes.withBytes { (raw) throws(StoreError) in
                // The window's records in row order: runs of `raw`, and the records in memory between them.
                var done = 0, read = 0
                for position in index..<end {
                    guard sources[position] < 0 else {
                        read += rows[position].location?.length ?? 0
                        continue
                    }
                    try staging.append(UnsafeRawBufferPointer(rebasing: raw[done..<read]), body)
                    done = read
                    try sealedBodies[sealed].withBytes { (piece) throws(StoreError) in try staging.append(piece, body) }
                    sealed += 1
                }
                try staging.append(UnsafeRawBufferPointer(rebasing: raw[done..<read]), body)
            }
            index = end
        }
        try staging.flush(body)
        guard handedOn == count else {
            throw .invalidArgument("a streamed save handed on \(handedOn) bytes of a \(count)-byte file")
        }
    }

    /// Opens and checks the overview and the secret part of each record of `window`, read
    /// into `bytes` (the source's bytes from `offset`; each record's own at `starts`), on all
    /// cores.
    private func check(_ window: ArraySlice<RecordV2>, in bytes: [UInt8], from starts: ArraySlice<Int>, at offset: Int) throws(StoreError) {
        do throws(CofferError) {
            let opener = opener
            let records = try formatCall { () throws(FormatError) -> [RecordV2] in
                // (The records in memory between them are new: sealed by this save's changes.)
                try zip(window, starts).filter { $0.1 >= 0 }.map { (row, start) throws(FormatError) -> RecordV2 in
                    let first = start - offset
                    return try row.loaded(from: bytes[first..<(first + (row.location?.length ?? 0))])
                }
            }
            let damaged = try records.withUnsafeBufferPointer { (records) throws(CofferError) -> [ItemID?] in
                try formatCall { () throws(FormatError) in
                    try ParallelWork.mapRanges(count: records.count) { (range) throws(FormatError) -> ItemID? in
                        var damaged: ItemID?
                        for index in range {
                            // Damaged: no secret part of it is opened (as a save from memory).
                            // Checked and let go: no list made for it.
                            guard try opener.check(records[index]) else {
                                damaged = damaged ?? records[index].id
                                continue
                            }
                            try records[index].verifySecret(vaultID: opener.vaultID, keys: opener.keys)
                        }
                        return damaged
                    }
                }
            }
            if let id = damaged.compactMap({ $0 }).min() { throw CofferError.tampered(.entry(id.hex)) }
        } catch {
            throw .crypto(error)
        }
    }
}

import CofferCrypto
/// A vault file ready to be written, kept in pieces: the head (preamble, header, checksum,
/// header MAC, manifest, manifest MAC), built in memory, and the records, which stay where
/// they already are (the buffer of the file they were read from, or their own when
/// sealed). A save streams it to disk through ``withChunks(_:)`` instead of first building
/// the whole file in one more buffer: that buffer was the largest allocation of a save
/// (55 MB for 100,000 entries) and filling it cost a copy of every record.
package struct EncodedVaultFile: Sendable {
    /// Everything before the first record.
    package let head: [UInt8]
    /// The record bodies in file order (ascending entry id).
    let bodies: [ArraySlice<UInt8>]
    /// Format 1 puts each body's `u32` length before it; format 2 lists lengths in the manifest.
    let lengthPrefixed: Bool
    /// The size of the whole file.
    package let count: Int

    /// A format-1 file: each record after its length.
    init(head: [UInt8], records: [EntryRecord], count: Int) {
        self.head = head
        bodies = records.map(\.body)
        lengthPrefixed = true
        self.count = count
    }

    /// A format-2 file: the records' ciphertexts one after another.
    init(head: [UInt8], bodies: [ArraySlice<UInt8>]) {
        self.head = head
        self.bodies = bodies
        lengthPrefixed = false
        count = head.count + bodies.reduce(0) { $0 + $1.count }
    }

    /// Calls `body` with consecutive pieces of the file, in order; their concatenation is
    /// exactly the file (``bytes``). Pieces are valid only during the call. The records are
    /// gathered into writes of about a megabyte (``ChunkStaging``); in a large file on more
    /// than one core, each while the one before is handed on (``ChunkStaging/pipelined(count:size:piece:_:)``),
    /// the same pieces either way.
    package func withChunks<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try withChunks(pipelined: count - head.count > 4 * ChunkStaging.size && ParallelWork.cores > 1, body)
    }

    /// ``withChunks(_:)``, the records gathered on another core or not.
    package func withChunks<E: Error>(pipelined: Bool, _ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try head.withBytes { (raw) throws(E) in try body(raw) }
        guard !bodies.isEmpty else { return }
        if pipelined {
            // Format 1's pieces are each record's length, then its body.
            let bodies = bodies, prefixed = lengthPrefixed
            try ChunkStaging.pipelined(count: prefixed ? 2 * bodies.count : bodies.count, size: { index in
                prefixed ? (index % 2 == 0 ? 4 : bodies[index / 2].count) : bodies[index].count
            }, piece: { index, piece in
                guard prefixed else { return bodies[index].withUnsafeBytes(piece) }
                if index % 2 == 1 { return bodies[index / 2].withUnsafeBytes(piece) }
                withUnsafeBytes(of: UInt32(bodies[index / 2].count).littleEndian, piece)
            }, body)
            return
        }
        let staging = ChunkStaging()
        for recordBody in bodies {
            if lengthPrefixed {
                let length = UInt32(recordBody.count).littleEndian
                try withUnsafeBytes(of: length) { (raw) throws(E) in try staging.append(raw, body) }
            }
            try recordBody.withBytes { (raw) throws(E) in try staging.append(raw, body) }
        }
        try staging.flush(body)
    }

    /// The whole file in one buffer, for callers that keep it (tests, vectors, small files).
    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        withChunks { (chunk: UnsafeRawBufferPointer) in out.append(contentsOf: chunk) }
        return out
    }
}

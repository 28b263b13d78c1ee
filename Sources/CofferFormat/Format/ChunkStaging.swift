import CofferCrypto

/// Gathers the pieces of a file being written into writes of up to ``size`` bytes: a small
/// piece is copied behind those before it, one as large as the buffer goes on alone (no
/// copy). The writes a file takes then depend on its bytes, not on how it was cut up (a
/// record in memory between two runs read from a file): few system calls, and the same
/// calls for the same file.
///
/// ```swift
/// let staging = ChunkStaging()
/// for piece in pieces { try staging.append(piece, write) }
/// try staging.flush(write)
/// ```
package final class ChunkStaging {
    /// Few enough bytes to stay in cache, enough that writing costs few system calls.
    package static let size = 1 << 20
    private let base = UnsafeMutableRawPointer.allocate(byteCount: ChunkStaging.size, alignment: 16)
    private var filled = 0

    package init() {}

    deinit { base.deallocate() }

    /// Hands `piece` on to `body`, gathered with the pieces before it when it fits; what is
    /// gathered goes first when it does not.
    package func append<E: Error>(_ piece: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        if piece.count > Self.size - filled {
            try flush(body)
            if piece.count > Self.size { try body(piece); return }
        }
        guard let source = piece.baseAddress, piece.count > 0 else { return }
        (base + filled).copyMemory(from: source, byteCount: piece.count)
        filled += piece.count
    }

    /// Hands on what is gathered.
    package func flush<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        guard filled > 0 else { return }
        defer { filled = 0 }
        try body(UnsafeRawBufferPointer(start: base, count: filled))
    }
}

extension ChunkStaging {
    /// One write of a file's pieces as ``append(_:_:)`` and ``flush(_:)`` make it: pieces
    /// gathered into the buffer (`bytes` of them), or one piece larger than the buffer, alone.
    package enum Write: Equatable, Sendable {
        case gathered(pieces: Range<Int>, bytes: Int)
        case alone(Int)
    }

    /// The writes ``append(_:_:)`` and ``flush(_:)`` make for `count` pieces of `size(i)`
    /// bytes, planned from their sizes alone.
    package static func writes(count: Int, size: (Int) -> Int) -> [Write] {
        var writes: [Write] = []
        var start = 0, filled = 0
        for index in 0..<count {
            let length = size(index)
            if length > Self.size - filled {
                if filled > 0 { writes.append(.gathered(pieces: start..<index, bytes: filled)) }
                filled = 0
                start = index
                if length > Self.size {
                    writes.append(.alone(index))
                    start = index + 1
                    continue
                }
            }
            filled += length
        }
        if filled > 0 { writes.append(.gathered(pieces: start..<count, bytes: filled)) }
        return writes
    }

    /// Hands on pieces `0..<count` to `body` in the writes of ``writes(count:size:)`` (the
    /// same bytes in the same calls as ``append(_:_:)`` gives), each gathered write copied on
    /// another core while the one before it is handed on. `piece(i, f)` calls `f` with piece
    /// `i`'s bytes (of `size(i)` bytes); it runs on either thread.
    ///
    /// Why: a password change writes every record sealed again, each in its own buffer. On
    /// one core, gathering them (a copy from memory out of cache) then writing each
    /// megabyte (a copy into the page cache) took 30 ms of a 100,000-entry change.
    ///
    /// ```swift
    /// try ChunkStaging.pipelined(count: parts.count, size: { parts[$0].count },
    ///                            piece: { index, f in parts[index].withUnsafeBytes(f) }) { try write($0) }
    /// ```
    package static func pipelined<E: Error>(count: Int, size: (Int) -> Int,
                                            piece: @escaping @Sendable (Int, (UnsafeRawBufferPointer) -> Void) -> Void,
                                            _ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        let writes = Self.writes(count: count, size: size)
        let buffers = GatherBuffers(piece: piece)
        // Filled on another thread, one write ahead; waited for before the buffers go, a
        // failed write included.
        var filling: ParallelWork.Background<Void, Never>?
        defer { filling?.wait() }
        func startFilling(_ index: Int) {
            guard index < writes.count, case .gathered(let pieces, _) = writes[index] else { return }
            let slot = index % 2
            filling = ParallelWork.Background { buffers.fill(slot, pieces) }
        }
        startFilling(0)
        for (index, write) in writes.enumerated() {
            switch write {
            case .gathered(_, let bytes):
                filling?.wait()
                filling = nil
                // The next write is gathered into the other buffer while this one is written.
                startFilling(index + 1)
                try body(UnsafeRawBufferPointer(start: buffers.base(index % 2), count: bytes))
            case .alone(let pieceIndex):
                startFilling(index + 1)
                var failure: E?
                piece(pieceIndex) { raw in
                    do throws(E) { try body(raw) } catch { failure = error }
                }
                if let failure { throw failure }
            }
        }
    }

    /// The two buffers of ``pipelined(count:size:piece:_:)``: one is filled while the other is written.
    /// @unchecked: a buffer is filled by one thread, then read by the writer after the fill
    /// is waited for, and filled again only after that write.
    private final class GatherBuffers: @unchecked Sendable {
        private let storage = UnsafeMutableRawPointer.allocate(byteCount: 2 * ChunkStaging.size, alignment: 16)
        private let piece: @Sendable (Int, (UnsafeRawBufferPointer) -> Void) -> Void

        init(piece: @escaping @Sendable (Int, (UnsafeRawBufferPointer) -> Void) -> Void) { self.piece = piece }

        deinit { storage.deallocate() }

        func base(_ slot: Int) -> UnsafeMutableRawPointer { storage + slot * ChunkStaging.size }

        func fill(_ slot: Int, _ pieces: Range<Int>) {
            var at = base(slot)
            for index in pieces {
                piece(index) { raw in
                    guard let source = raw.baseAddress, raw.count > 0 else { return }
                    at.copyMemory(from: source, byteCount: raw.count)
                    at += raw.count
                }
            }
        }
    }
}

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

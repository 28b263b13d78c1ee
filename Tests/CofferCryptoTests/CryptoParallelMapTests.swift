import Testing
import CofferTestSupport
@testable import CofferCrypto

/// `ParallelWork.map` cuts large counts into several chunks per thread, taken as threads
/// finish (issue 29: one chunk per thread left a core idle at the end of every window when
/// the other thread was held up). Whatever the chunking, the result is the loop's.
@Suite("Crypto: ParallelWork.map gives what a loop gives")
struct CryptoParallelMapTests {
    @Test("Every index once, in order; the first failing index's error; for counts around each chunking",
          arguments: [0, 1, 4_095, 4_096, 4_097, 10_000, 33_333, 100_003])
    func mapIsTheLoop(count: Int) throws {
        for threads in [1, 2, 3, 8] {
            let chunks = ParallelWork.mapChunks(count: count, threads: threads)
            #expect(chunks >= 1 && chunks <= max(1, threads * 4))
            // The chunks cover 0..<count, in order, without gaps or overlaps.
            var next = 0
            for chunk in 0..<chunks {
                let range = ParallelWork.bounds(of: chunk, in: chunks, count: count)
                #expect(range.lowerBound == next)
                next = range.upperBound
            }
            #expect(next == count)
            let doubled = ParallelWork.map(count: count, threads: threads) { $0 * 2 }
            #expect(doubled == (0..<count).map { $0 * 2 }, "threads \(threads)")
            // Several indices fail, in several chunks: the first one's error is thrown.
            guard count > 10 else { continue }
            let failing = [count / 3, count / 2, count - 1]
            #expect(throws: CofferError.invalidArgument("")) {
                _ = try ParallelWork.map(count: count, threads: threads) { (index) throws(CofferError) -> Int in
                    if index == failing[0] { throw .invalidArgument("the first failing index") }
                    if failing.contains(index) { throw .sealFailed }
                    return index
                }
            }
        }
    }

    /// `forEachPiece` hands each piece to the next free thread (issue 29: a listing and a
    /// rotation read and open a file a piece at a time on every core). Whatever the order the
    /// threads take them in, every piece runs once and the first failing piece's error is
    /// the one thrown, as a loop's would be.
    @Test("forEachPiece runs every piece once and throws the first failing piece's error", arguments: [0, 1, 2, 3, 17, 144, 1_000])
    func piecesAreTheLoop(count: Int) {
        let runs = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(count, 1))
        defer { runs.deallocate() }
        let box = PieceRuns(runs)
        for threads in [1, 2, 8] {
            runs.initialize(repeating: 0)
            ParallelWork.forEachPiece(count: count, threads: threads) { box.buffer[$0] += 1 }
            #expect(runs.prefix(count).allSatisfy { $0 == 1 }, "threads \(threads)")
        }
        guard count > 0 else { return }
        // Failing sets drawn from a seeded stream: the smallest failing piece throws the
        // kind the others do not, wherever it lies and however many fail after it.
        var random = SeededRandom(seed: UInt64(count))
        for _ in 0..<20 {
            let failing = Set((0..<Int.random(in: 1...min(count, 5), using: &random)).map { _ in Int.random(in: 0..<count, using: &random) })
            let first = failing.min() ?? 0
            #expect(throws: CofferError.invalidArgument("")) {
                try ParallelWork.forEachPiece(count: count, threads: 2) { (piece) throws(CofferError) in
                    if piece == first { throw .invalidArgument("piece \(piece)") }
                    if failing.contains(piece) { throw .sealFailed }
                }
            }
        }
    }
}

/// Counts of how often each piece ran, written by the piece's own thread only.
private struct PieceRuns: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Int>
    init(_ buffer: UnsafeMutableBufferPointer<Int>) { self.buffer = buffer }
}

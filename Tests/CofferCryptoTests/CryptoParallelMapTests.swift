import Testing
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
}

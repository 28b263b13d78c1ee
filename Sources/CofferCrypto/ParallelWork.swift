import Dispatch

/// Per-record work of a large vault (digests, overviews) spread over the machine's
/// cores. Results and errors are exactly those of doing it in order on one thread.
package enum ParallelWork {
    /// Below this many elements, one thread is faster than waking others.
    @usableFromInline static let minimumPerThread = 2_048

    package static var cores: Int { min(Platform.onlineProcessors, 8) }

    /// `transform(0)`, `transform(1)`, … `transform(count - 1)`, in order. When several
    /// throw, the error of the first failing index is thrown, as a plain loop would.
    ///
    /// It takes indices, not elements: the closure reads `array[index]` in place, while
    /// passing elements would copy each one, retaining the buffer they all share (a
    /// record's bytes are a slice of the file) from every thread at once.
    ///
    /// Generic over the error, so each layer keeps its own (typed) error through it.
    /// Inlinable: the layers above call it per record, and it must specialise there.
    @inlinable
    package static func map<T, E: Error>(count: Int, threads: Int = cores,
                       _ transform: (Int) throws(E) -> T) throws(E) -> [T] {
        let chunks = mapChunks(count: count, threads: threads)
        if chunks == 1 {
            var out: [T] = []
            out.reserveCapacity(count)
            for index in 0..<count { out.append(try transform(index)) }
            return out
        }
        let filled = UnsafeMutableBufferPointer<Int>.allocate(capacity: chunks)
        filled.initialize(repeating: 0)
        defer { filled.deallocate() }
        let failures = UnsafeMutableBufferPointer<E?>.allocate(capacity: chunks)
        failures.initialize(repeating: nil)
        defer { _ = failures.deinitialize(); failures.deallocate() }
        var failure: E?
        // The threads write straight into the result's storage: no second copy of it.
        let result = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let output = buffer.baseAddress!
            withoutActuallyEscaping(transform) { transform in
                let chunkWork = ChunkWork<T, E>(output: output, filled: filled, failures: failures, transform: transform)
                DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                    chunkWork.run(range: bounds(of: chunk, in: chunks, count: count), chunk: chunk)
                }
            }
            if let first = failures.firstIndex(where: { $0 != nil }) {
                for chunk in 0..<chunks {
                    (output + bounds(of: chunk, in: chunks, count: count).lowerBound).deinitialize(count: filled[chunk])
                }
                failure = failures[first]
                initialized = 0
            } else {
                initialized = count
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Runs `body` over `count` indices cut into as many ranges as ``map(count:threads:_:)``
    /// would use, one range per thread, so each thread can hold state of its own for its
    /// whole range (a guarded scratch buffer rather than one allocation per element). When
    /// several ranges throw, the error of the first failing range is thrown.
    package static func forEachRange<E: Error>(count: Int, threads: Int = cores,
                                               _ body: (Range<Int>) throws(E) -> Void) throws(E) {
        _ = try mapRanges(count: count, threads: threads, body)
    }

    /// `body` of each range ``forEachRange(count:threads:_:)`` would use, in order: for work
    /// whose per-element results go into one buffer per thread (sort keys), merged after.
    /// When several ranges throw, the error of the first failing range is thrown.
    package static func mapRanges<T, E: Error>(count: Int, threads: Int = cores,
                                               _ body: (Range<Int>) throws(E) -> T) throws(E) -> [T] {
        let chunks = max(1, min(threads, count / minimumPerThread))
        if chunks == 1 { return [try body(0..<count)] }
        let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: chunks)
        results.initialize(repeating: nil)
        defer { _ = results.deinitialize(); results.deallocate() }
        let failures = UnsafeMutableBufferPointer<E?>.allocate(capacity: chunks)
        failures.initialize(repeating: nil)
        defer { _ = failures.deinitialize(); failures.deallocate() }
        withoutActuallyEscaping(body) { body in
            let work = RangeWork<E>(failures: failures) { (range, chunk) throws(E) in results[chunk] = try body(range) }
            DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
                work.run(bounds(of: chunk, in: chunks, count: count), chunk: chunk)
            }
        }
        if let failure = failures.first(where: { $0 != nil }) ?? nil { throw failure }
        return results.compactMap { $0 }
    }

    /// `body(0)`, `body(1)`, … `body(count - 1)` on every core, each index taken by the next
    /// thread that is free: for a few dozen pieces of work each done where it is taken (a
    /// piece of a file read, then its records opened), so that no core waits long on
    /// another's last piece, and no core waits on a read the other could overlap. When
    /// several throw, the error of the first failing index is thrown, as a plain loop would
    /// throw it (the pieces after it may still have run).
    ///
    /// ```swift
    /// try ParallelWork.forEachPiece(count: pieces.count) { piece in try process(pieces[piece]) }
    /// ```
    package static func forEachPiece<E: Error>(count: Int, threads: Int = cores,
                                               _ body: (Int) throws(E) -> Void) throws(E) {
        guard count > 1, threads > 1 else {
            for piece in 0..<count { try body(piece) }
            return
        }
        let failures = UnsafeMutableBufferPointer<E?>.allocate(capacity: count)
        failures.initialize(repeating: nil)
        defer { _ = failures.deinitialize(); failures.deallocate() }
        withoutActuallyEscaping(body) { body in
            let work = RangeWork<E>(failures: failures) { (_, piece) throws(E) in try body(piece) }
            // concurrentPerform hands each index to the next free worker.
            DispatchQueue.concurrentPerform(iterations: count) { piece in work.run(piece..<(piece + 1), chunk: piece) }
        }
        if let failure = failures.first(where: { $0 != nil }) ?? nil { throw failure }
    }

    /// What the threads of one `forEachRange` share. @unchecked: each writes its own slot.
    final class RangeWork<E: Error>: @unchecked Sendable {
        let failures: UnsafeMutableBufferPointer<E?>
        /// Gets the range and its chunk's index.
        let body: (Range<Int>, Int) throws(E) -> Void
        init(failures: UnsafeMutableBufferPointer<E?>, body: @escaping (Range<Int>, Int) throws(E) -> Void) {
            self.failures = failures
            self.body = body
        }
        func run(_ range: Range<Int>, chunk: Int) {
            do throws(E) { try body(range, chunk) } catch { failures[chunk] = error }
        }
    }

    /// What the threads of one `map` share. @unchecked: each chunk writes only its own
    /// output range and its own `filled` and `failures` slots.
    @usableFromInline
    final class ChunkWork<T, E: Error>: @unchecked Sendable {
        @usableFromInline let output: UnsafeMutablePointer<T>
        @usableFromInline let filled: UnsafeMutableBufferPointer<Int>
        @usableFromInline let failures: UnsafeMutableBufferPointer<E?>
        @usableFromInline let transform: (Int) throws(E) -> T

        @inlinable
        init(output: UnsafeMutablePointer<T>, filled: UnsafeMutableBufferPointer<Int>,
             failures: UnsafeMutableBufferPointer<E?>, transform: @escaping (Int) throws(E) -> T) {
            self.output = output
            self.filled = filled
            self.failures = failures
            self.transform = transform
        }

        /// Fills `range` in order, stopping at the first error.
        @inlinable
        func run(range: Range<Int>, chunk: Int) {
            var done = 0
            defer { filled[chunk] = done }
            for index in range {
                do throws(E) {
                    (output + index).initialize(to: try transform(index))
                    done += 1
                } catch {
                    failures[chunk] = error
                    return
                }
            }
        }
    }

    /// How many chunks ``map(count:threads:_:)`` cuts `count` indices into: one below two
    /// threads' worth, else four per thread (at least ``minimumPerThread`` / 4 indices each),
    /// which the threads take as they finish: with one chunk per thread, a thread that was
    /// held up (another process, a background task of ours) left the other cores idle at
    /// the end of every window of a large vault.
    @inlinable
    static func mapChunks(count: Int, threads: Int) -> Int {
        guard threads > 1, count >= 2 * minimumPerThread else { return 1 }
        return min(threads * 4, count / (minimumPerThread / 4))
    }

    @inlinable
    static func bounds(of chunk: Int, in chunks: Int, count: Int) -> Range<Int> {
        (count * chunk / chunks)..<(count * (chunk + 1) / chunks)
    }

    /// Lets `value` go on another thread: when the caller held the last other reference, its
    /// deallocation (a large save's 100,000 records, each a release of memory long out of
    /// cache) no longer delays what follows, and a process that exits first skips it.
    /// Only for values that hold no secret (a secret is wiped where it is released).
    ///
    /// ```swift
    /// ParallelWork.release(inBackground: replacedRecords)
    /// ```
    package static func release<T: Sendable>(inBackground value: T) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
    }

    /// Runs `work` on another thread; `wait()` returns its result.
    package final class Background<T: Sendable, E: Error>: @unchecked Sendable {
        // @unchecked: `result` is written once before `done` is signalled, read after.
        private var result: Result<T, E>?
        private let done = DispatchSemaphore(value: 0)

        package init(_ work: @escaping @Sendable () throws(E) -> T) {
            DispatchQueue.global(qos: .userInitiated).async {
                self.result = Result { () throws(E) in try work() }
                self.done.signal()
            }
        }

        package func wait() throws(E) -> T {
            done.wait()
            done.signal()   // a second wait returns at once
            return try result!.get()
        }
    }
}

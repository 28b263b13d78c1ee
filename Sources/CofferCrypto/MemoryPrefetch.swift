internal import CCofferSystem

/// A hint to the cache: the memory at an address will be read soon. A pass that reads
/// records in an order far from the one they were made in (a listing's table, in reading
/// order) names a record a few steps ahead, so that its miss overlaps the work on the
/// records before it. It reads nothing and cannot fault.
package enum MemoryPrefetch {
    /// Asks for the cache line at `address`, and the next `lines - 1` after it.
    @inline(__always)
    package static func lines(at address: UnsafeRawPointer, count lines: Int = 1) {
        for line in 0..<lines { coffer_prefetch(address + line * 64) }
    }
}

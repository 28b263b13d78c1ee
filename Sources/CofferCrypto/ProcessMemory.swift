/// How the C allocator of a short-lived process (a command-line tool that opens a vault,
/// does one thing and exits) treats the memory it frees.
///
/// By default glibc maps every block above 128 KiB on its own and unmaps it when freed, and
/// gives the top of its heap back to the system: the next block then touches fresh pages,
/// one page fault each (about 2 µs on a virtual machine). A command that opens a large vault
/// frees the Argon2id working memory (64 MiB or more, wiped by libargon2 before it is freed)
/// and then reads tens of megabytes of overviews; ``keepFreedMemory()`` has those reuse
/// the pages already touched. `coffer list` at 100,000 entries took 44,000 page faults
/// before and 23,000 after (about 29 ms less); `coffer passwd` 57,000 and 23,000 (55 ms less).
///
/// Freed memory stays in the process until it exits, so an app that keeps running should
/// not call it; a tool that goes on to serve for a long time calls ``returnFreedMemory()``
/// first. At most two allocator arenas (the main thread's, and one that every other thread
/// shares) keep a large listing's peak memory where it was: each arena keeps what it freed,
/// so more of them hold more memory. Secrets are
/// not in this memory: they live in guarded allocations of their own (``SecureBytes``).
/// Elsewhere than glibc, both calls do nothing.
///
/// ```swift
/// ProcessMemory.keepFreedMemory()       // first thing in a command-line tool
/// ...
/// ProcessMemory.returnFreedMemory()     // before serving requests for hours
/// ```
public enum ProcessMemory {
    /// Blocks up to this size (1 GiB, above any usual Argon2id memory) come from the heap,
    /// and this much freed memory stays in it.
    static let keptBytes = 1 << 30

    /// Has the allocator keep the memory this process frees for its later blocks (see
    /// above). Returns false when the C library refuses the settings.
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        Platform.keepFreedMemory(upTo: keptBytes, arenas: 2)
    }

    /// Gives the memory this process freed back to the system, now (glibc's `malloc_trim`)
    /// and from now on (glibc's default thresholds): what a process that called
    /// ``keepFreedMemory()`` does before it serves requests for hours.
    public static func returnFreedMemory() {
        Platform.returnFreedMemory()
    }
}

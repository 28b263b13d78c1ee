internal import CCofferSystem
// The one file of CofferCrypto that imports the C library: what the library asks of the
// process and the machine (processor count, core-dump limit, crash signals, the text of an
// errno). File-system calls are not here: they go through CofferStore's seam, FileIO.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process and the machine, in C terms, for the rest of the library.
package enum Platform {
    /// Processors online now (at least 1).
    package static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The C library's text for `code`, e.g. "Permission denied"; nil for an unknown code.
    package static func errorText(_ code: Int32) -> String? {
        strerror(code).map { String(cString: $0) }
    }

    // MARK: - The allocator (ProcessMemory)

    /// glibc: blocks up to `bytes` from the heap, freed memory kept in it, at most `arenas`
    /// arenas. False when glibc refuses; true elsewhere (nothing to do).
    static func keepFreedMemory(upTo bytes: Int, arenas: Int) -> Bool {
        coffer_keep_freed_memory(Int32(clamping: bytes), Int32(clamping: arenas)) == 0
    }

    /// glibc: freed memory goes back to the system from now on (the default thresholds)
    /// and now (`malloc_trim`).
    static func returnFreedMemory() { coffer_return_freed_memory() }

    /// Whether the allocator maps a block of `bytes` on its own (glibc), rather than taking
    /// it from the heap; false elsewhere.
    package static func allocationIsMapped(bytes: Int) -> Bool { coffer_allocation_is_mapped(UInt(bytes)) != 0 }

    // MARK: - Core dumps and crashes (ProcessHardening)

    /// The signals a crash raises.
    package static let crashSignals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT]

    /// Linux: makes the process undumpable (`PR_SET_DUMPABLE` 0). Nil when done (or not
    /// Linux), else the `errno`.
    static func disableDumping() -> Int32? {
        #if os(Linux)
        guard coffer_set_dumpable(0) == 0 else { return errno }
        #endif
        return nil
    }

    /// Linux: whether the process is still dumpable (`PR_GET_DUMPABLE`); true elsewhere.
    static var isDumpableFlagSet: Bool {
        #if os(Linux)
        return coffer_get_dumpable() != 0
        #else
        return true
        #endif
    }

    /// Sets `RLIMIT_CORE` to 0 (soft and hard). Nil when done, else the `errno`.
    static func disableCoreFiles() -> Int32? {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        return setrlimit(resourceCore, &none) == 0 ? nil : errno
    }

    /// The soft `RLIMIT_CORE`, or nil when it cannot be read.
    static var coreFileLimit: UInt64? {
        var limit = rlimit()
        guard getrlimit(resourceCore, &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Replaces the handlers of ``crashSignals`` with one that writes `message` (one
    /// fixed line, no memory contents) to stderr, then dies of the same signal.
    static func installQuietCrashHandler() {
        for signo in crashSignals { signal(signo, quietCrashHandler) }
    }

    #if os(Linux)
    private static let resourceCore = __rlimit_resource_t(RLIMIT_CORE.rawValue)
    #else
    private static let resourceCore = RLIMIT_CORE
    #endif
}

/// Async-signal-safe: one fixed `write`, then the default action of the same signal.
private func quietCrashHandler(_ signo: Int32) {
    let message: StaticString = "crashed; no memory contents are shown (ProcessHardening.quietCrashes)\n"
    _ = write(STDERR_FILENO, message.utf8Start, message.utf8CodeUnitCount)
    signal(signo, SIG_DFL)
    raise(signo)
}

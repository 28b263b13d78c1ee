/// Keeps decrypted secrets out of core dumps, debuggers and crash reports.
///
/// Guarded memory (``SecureBytes``) is already excluded from core dumps, but an unlocked
/// vault also holds plain attributes (services, accounts, comments) in ordinary memory.
/// ``apply(_:)`` makes the whole process undumpable: on Linux `PR_SET_DUMPABLE` 0 (no core
/// file, and other processes of the same user can no longer attach a debugger or read
/// `/proc/PID/mem`), and everywhere `RLIMIT_CORE` 0. Call it once, early, before a vault is
/// opened; it cannot be undone for the life of the process.
///
/// ```swift
/// try ProcessHardening.apply()                    // an app that keeps vaults open
/// try ProcessHardening.apply([.quietCrashes])     // a command-line tool (what `coffer` does)
/// print(ProcessHardening.isDumpable)              // false
/// ```
public enum ProcessHardening {
    /// Extra measures beyond the default ones.
    public struct Options: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Replaces the crash handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT)
        /// with one that prints a single line without any memory contents, then dies of the
        /// same signal. Swift's own crash report prints registers and the memory they point
        /// to; an app with its own crash reporter should not use this option.
        public static let quietCrashes = Options(rawValue: 1)
    }

    /// The signals `quietCrashes` handles.
    package static var crashSignals: [Int32] { Platform.crashSignals }

    /// Makes the process undumpable and sets its core-file limit to 0 (see above).
    /// Throws ``CofferError/io(operation:path:errno:)`` when the system refuses.
    public static func apply(_ options: Options = []) throws(CofferError) {
        if let code = Platform.disableDumping() {
            throw .io(operation: "prctl(PR_SET_DUMPABLE)", path: "", errno: code)
        }
        if let code = Platform.disableCoreFiles() {
            throw .io(operation: "setrlimit(RLIMIT_CORE)", path: "", errno: code)
        }
        if options.contains(.quietCrashes) { Platform.installQuietCrashHandler() }
    }

    /// Whether the process may still write a core file or be attached to (Linux: the
    /// `PR_GET_DUMPABLE` flag; elsewhere, whether the core-file limit is above 0).
    public static var isDumpable: Bool {
        guard Platform.isDumpableFlagSet else { return false }
        guard let limit = Platform.coreFileLimit else { return true }
        return limit > 0
    }
}

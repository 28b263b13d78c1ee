internal import CSodium
import Foundation

/// Whether guarded memory is really locked into RAM, and what to do when it is not.
///
/// Every ``SecureBytes`` region is locked with `mlock` so that it is never written to
/// swap, and marked to stay out of core dumps. Locking can fail: an unprivileged process
/// may lock only `RLIMIT_MEMLOCK` bytes (`ulimit -l`; often 64 KiB to 8 MiB), and a large
/// secret can exceed it. By default such a region is still used, unlocked, and counted in
/// ``unlockedRegionCount`` so that a program can say so; with ``LockingPolicy/required``
/// the allocation fails instead with ``CofferError/secureMemoryUnavailable``.
///
/// ```swift
/// SecureMemory.lockingPolicy = .required        // refuse secrets that could be swapped out
/// let key = try SecureBytes.random(count: 32)   // throws if it cannot be locked
///
/// if SecureMemory.unlockedRegionCount > 0 {      // with the default policy
///     print("warning: some secrets could not be locked into RAM (ulimit -l)")
/// }
/// ```
public enum SecureMemory {
    /// What an allocation does when its region cannot be locked into RAM.
    public enum LockingPolicy: Sendable, Hashable {
        /// Use the region unlocked and count it in ``SecureMemory/unlockedRegionCount`` (the default).
        case bestEffort
        /// Fail the allocation with ``CofferError/secureMemoryUnavailable``.
        case required
    }

    /// The policy for every allocation from now on, in this process.
    public static var lockingPolicy: LockingPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// How many guarded regions could not be locked into RAM since the process started.
    public static var unlockedRegionCount: Int { state.withLock { $0.unlocked } }

    /// Locks a freshly allocated region (`sodium_malloc` tries too, but ignores failure).
    /// Returns false when it could not be locked and the policy refuses that.
    package static func lock(_ region: UnsafeMutableRawPointer, count: Int) -> Bool {
        guard sodium_mlock(region, count) != 0 else { return true }
        return countUnlocked()
    }

    /// Counts a region that could not be locked; returns whether the policy lets it be used.
    static func countUnlocked() -> Bool {
        state.withLock { value in
            value.unlocked += 1
            return value.policy == .bestEffort
        }
    }

    private struct Values {
        var policy = LockingPolicy.bestEffort
        var unlocked = 0
    }

    private static let state = Guarded(Values())
}

/// A value behind a lock (Synchronization's `Mutex` needs macOS 15).
package final class Guarded<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

import Foundation

/// A clock that starts at `start` (milliseconds since 1970) and moves one second per
/// reading, shared by vaults whose edits must be ordered as the test makes them: two vaults
/// on the system clock can stamp two edits in one millisecond, and stamps of one time are
/// ordered by replica id (SPEC.md §17.1), not by which came first.
///
/// ```swift
/// let ticker = Ticker(Date().millisecondsSince1970)
/// vault.wallClock = WallClock { ticker.next() }
/// ```
package final class Ticker: @unchecked Sendable {
    // @unchecked: `ms` is read and written under `lock` only.
    private let lock = NSLock()
    private var ms: Int64
    package init(_ start: Int64) { ms = start }
    package func next() -> Int64 { lock.lock(); defer { lock.unlock() }; ms += 1000; return ms }
}

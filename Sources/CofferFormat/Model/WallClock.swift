import Foundation

/// The library's one clock: every date Coffer writes reads it (an item's `modified`, a
/// replaced password's date, an edit's stamp, an imported item's dates when the file has
/// none, a cached unlock's expiry), and so does every expiry it checks. To the millisecond,
/// as the vault stores dates (SPEC.md §7).
///
/// Tests and the test vectors (SPEC.md §15.2) give a vault a fixed or ticking clock, so
/// that what it writes is the same on every run:
///
/// ```swift
/// vault.wallClock = WallClock { 1_700_000_000_000 }   // every edit at 2023-11-14T22:13:20Z
/// ```
package struct WallClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads `milliseconds`, the time in milliseconds since 1970.
    package init(_ milliseconds: @escaping @Sendable () -> Int64) {
        read = milliseconds
    }

    /// The system's clock.
    package static let system = WallClock { Date().millisecondsSince1970 }

    /// Now, in milliseconds since 1970.
    package func milliseconds() -> Int64 { read() }

    /// Now, to the millisecond.
    package func now() -> Date { Date(millisecondsSince1970: read()) }
}

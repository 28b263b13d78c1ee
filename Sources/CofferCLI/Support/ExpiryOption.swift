import Coffer
import Foundation

/// `--expires DATE|never` of `add` and `edit`: an item's expiry date (ItemAttributes.expires).
/// DATE is `YYYY-MM-DD` (midnight UTC) or ISO 8601 with a time and zone, read by the same
/// parser as imports (``TransferDate/parse(_:)``); `never` clears it. The library refuses
/// a date outside the years 1 to 9999, as for every item date.
enum ExpiryOption {
    /// The date `text` names, or nil for `never`; anything else is a usage error (64).
    static func parse(_ text: String) throws -> Date? {
        if text.lowercased() == "never" { return nil }
        guard let date = TransferDate.parse(text) else {
            throw CLIFailure(.usage, "--expires needs a date (YYYY-MM-DD, in UTC, or ISO 8601 such as 2027-01-31T09:30:00Z) or never, got \(text)")
        }
        return date
    }
}

import Coffer

extension ServerAddress {
    /// `--server` as given: a URL such as `https://example.com:8443/login`, or a bare host.
    init(option text: String) throws {
        do {
            try self.init(parsing: text, bareText: .host)
        } catch .portOutOfRange {
            throw CLIFailure(.usage, "the port in \(text) is out of range")
        } catch .noHost {
            throw CLIFailure(.usage, "--server needs a URL such as https://example.com/login or a host name, got \(text)")
        }
    }

    /// The text of `--server` when it is a URL: kept in the item's `urls`.
    static func link(_ text: String) -> String? { text.contains("://") ? text : nil }
}

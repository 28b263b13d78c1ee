import CofferCrypto
import CofferFormat

extension Vault {
    /// The internet passwords that answer a request for `server`'s credentials (a git
    /// credential helper, a browser extension), best first; empty when none does.
    ///
    /// The rules are those of a pasted URL (``ItemName/Key/server(_:)``): the same host
    /// (case ignored), the same scheme where both name one, and the same port where the
    /// request gives a scheme or port (a missing port is the scheme's default). With
    /// `account`, only items of that account (compared exactly). The path decides:
    /// when `server` has one, the items of that path, else those of no path (the whole
    /// host); when it has none, every item of the host, those without a path first.
    ///
    /// ```swift
    /// let server = try ServerAddress(parsing: "https://github.com")
    /// if let login = try vault.credentials(for: server, account: "octocat").first {
    ///     let password = try vault.secrets(for: login.id).password
    /// }
    /// ```
    public func credentials(for server: ServerAddress, account: String? = nil) throws(CofferError) -> [Item] {
        let candidates = try items(matching: ItemQuery(kind: .internetPassword, account: account, server: server.host))
        let ranked = candidates.map { ($0, ItemLookup.server(server, $0.attributes)) }
        let exact = ranked.filter { $0.1 == .exact }.map(\.0)
        if server.path != nil {
            return exact.isEmpty ? ranked.filter { $0.1 == .loose && $0.0.attributes.path == nil }.map(\.0) : exact
        }
        return exact + ranked.filter { $0.1 == .loose }.map(\.0)
    }
}

import CofferFormat

extension ItemAttributes {
    /// The name an item is shown by in lists and messages; never a secret.
    /// A generic password: its service (else label); an internet password: its
    /// address, `scheme://server:port/path`; a secure note: its title. `"?"` when empty.
    ///
    /// ```swift
    /// for item in try vault.items() { print(item.displayName, item.account ?? "") }
    /// // github.com  octocat
    /// // https://example.com:8443/login  alice
    /// ```
    public var displayName: String {
        switch kind {
        case .genericPassword: return service ?? label ?? "?"
        case .internetPassword:
            var text = server ?? "?"
            if let scheme = self.protocol { text = "\(scheme)://\(text)" }
            if let port { text += ":\(port)" }
            if let path { text += path }
            return text
        case .secureNote: return label ?? "?"
        }
    }

    /// The name items sort by in listings and exports, and that import reports use:
    /// the label, else the service, else the server. Nil when none is set.
    ///
    /// ```swift
    /// let byName = items.sorted { ($0.sortName ?? "") < ($1.sortName ?? "") }   // roughly what `items()` does
    /// ```
    public var sortName: String? { label ?? service ?? server }
}

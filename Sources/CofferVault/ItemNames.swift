import CofferFormat

// What to call an item: the one place. Each name has one use, and every message, listing,
// report and export of the library, the CLI and the examples takes it from here:
//
// - `displayName`: the name that identifies it (a service, an address, a note's title);
// - `sortName`: the name listings sort by and reports give (the label first);
// - `listedName`: the label the user gave, with the display name when they differ;
// - `summary`: kind, name and account, for a message about one item;
// - `candidateDescription`: the listed name, account and short id, to tell several apart.

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
        Self.displayName(kind: kind, label: label, service: service, server: server, protocol: self.protocol, port: port, path: path)
    }

    /// The rule of ``displayName`` from the fields it reads (a listing reads them from an
    /// overview's bytes, ``ListedItem``).
    static func displayName(kind: ItemKind, label: String?, service: String?, server: String?, protocol scheme: String?,
                            port: UInt16?, path: String?) -> String {
        switch kind {
        case .genericPassword: return service ?? label ?? "?"
        case .internetPassword:
            var text = server ?? "?"
            if let scheme { text = "\(scheme)://\(text)" }
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
    public var sortName: String? { Self.sortName(label: label, service: service, server: server) }

    /// The rule of ``sortName``, for any representation of the three fields (the listing
    /// reads them from an overview's bytes, SPEC.md §7.2, without decoding the item).
    package static func sortName<Text>(label: Text?, service: Text?, server: Text?) -> Text? {
        label ?? service ?? server
    }

    /// The name a listing shows: the label the user gave, followed by the display name in
    /// parentheses when they differ (the service or address `get` takes); the display
    /// name alone when there is no label.
    ///
    /// ```swift
    /// print(item.listedName)   // GitHub (github.com)
    /// ```
    public var listedName: String { Self.listedName(label: label, displayName: displayName) }

    /// The rule of ``listedName``.
    static func listedName(label: String?, displayName name: String) -> String {
        guard let label else { return name }
        return label == name ? label : "\(label) (\(name))"
    }

    /// One item in a message: its kind, display name and account, as in
    /// `generic-password github.com (octocat)`. Never a secret.
    ///
    /// ```swift
    /// print("removed \(item.summary)")   // removed generic-password github.com (octocat)
    /// ```
    public var summary: String {
        "\(kind.rawValue) \(displayName)\(account.map { " (\($0))" } ?? "")"
    }
}

extension Item {
    /// The first ``ItemName/shortIDLength`` hex digits of the id: enough to tell items apart
    /// in a message, and accepted back by ``ItemName/Key/id(_:)`` and ``ItemName/Key/anything(_:)``.
    public var shortID: String { String(id.hex.prefix(ItemName.shortIDLength)) }

    /// How an item is told apart from others in a list of candidates: its listed name
    /// (``ItemAttributes/listedName``), its account and its short id. Never a secret.
    ///
    /// ```swift
    /// print(item.candidateDescription)   // GitHub (github.com) octocat [3f2a9c01]
    /// ```
    public var candidateDescription: String {
        let account = attributes.account.map { $0.isEmpty ? "" : " \($0)" } ?? ""
        return "\(attributes.listedName)\(account) [\(shortID)]"
    }
}

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

    /// The rule of ``displayName`` from the fields it reads.
    static func displayName(kind: ItemKind, label: String?, service: String?, server: String?, protocol scheme: String?,
                            port: UInt16?, path: String?) -> String {
        var name: [UInt8] = []
        ItemNameText.appendDisplayName(kind: kind, label: label?.utf8, service: service?.utf8, server: server?.utf8,
                                       protocol: scheme?.utf8, port: port, path: path?.utf8, to: &name)
        return String(decoding: name, as: UTF8.self)
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
    public var listedName: String {
        var name: [UInt8] = []
        ItemNameText.appendListedName(kind: kind, label: label?.utf8, service: service?.utf8, server: server?.utf8,
                                      protocol: self.protocol?.utf8, port: port, path: path?.utf8, to: &name)
        return String(decoding: name, as: UTF8.self)
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

/// The rules of ``ItemAttributes/displayName`` and ``ItemAttributes/listedName`` over UTF-8:
/// the one owner, for an item's strings and for a listing row's fields read in place from
/// its overview (``ListedItem``), whose table so makes no string per row.
enum ItemNameText {
    /// Appends the display name: a generic password's service (else label), an internet
    /// password's `scheme://server:port/path`, a note's title; `?` when empty.
    static func appendDisplayName<Text: Collection<UInt8>>(kind: ItemKind, label: Text?, service: Text?, server: Text?,
                                                           protocol scheme: Text?, port: UInt16?, path: Text?,
                                                           to out: inout [UInt8]) {
        func append(_ text: Text?) {
            if let text { out.append(contentsOf: text) } else { out.append(UInt8(ascii: "?")) }
        }
        switch kind {
        case .genericPassword: append(service ?? label)
        case .internetPassword:
            if let scheme {
                out.append(contentsOf: scheme)
                out.append(contentsOf: "://".utf8)
            }
            append(server)
            if let port {
                out.append(UInt8(ascii: ":"))
                out.append(contentsOf: String(port).utf8)
            }
            if let path { out.append(contentsOf: path) }
        case .secureNote: append(label)
        }
    }

    /// The field that the listed name is, unchanged, when it is one: a generic password's
    /// service when it has no label (the usual row, whose bytes a table then reads in
    /// place); nil otherwise (``appendListedName(kind:label:service:server:protocol:port:path:to:)``
    /// composes it).
    static func listedNameField<Text>(kind: ItemKind, label: Text?, service: Text?) -> Text? {
        label == nil && kind == .genericPassword ? service : nil
    }

    /// Appends the listed name: the label, with the display name in parentheses when they
    /// differ (as strings do: canonically equivalent texts are the same name); the display
    /// name alone without a label.
    static func appendListedName<Text: Collection<UInt8>>(kind: ItemKind, label: Text?, service: Text?, server: Text?,
                                                          protocol scheme: Text?, port: UInt16?, path: Text?,
                                                          to out: inout [UInt8]) {
        guard let label else {
            appendDisplayName(kind: kind, label: label, service: service, server: server, protocol: scheme, port: port, path: path, to: &out)
            return
        }
        out.append(contentsOf: label)
        let labelEnd = out.count
        out.append(contentsOf: " (".utf8)
        let nameStart = out.count
        appendDisplayName(kind: kind, label: label, service: service, server: server, protocol: scheme, port: port, path: path, to: &out)
        let name = out[nameStart...]
        let same = name.elementsEqual(label)
            || (!(name.allSatisfy { $0 < 0x80 } && label.allSatisfy { $0 < 0x80 })
                && String(decoding: name, as: UTF8.self) == String(decoding: label, as: UTF8.self))
        if same { out.removeSubrange(labelEnd...) } else { out.append(UInt8(ascii: ")")) }
    }
}

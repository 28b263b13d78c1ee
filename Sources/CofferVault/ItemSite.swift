import CofferFormat

/// The site a login is for, as a browser's password manager matches logins: the host
/// (lowercased, without a leading `www.`) and the account, whatever the kind, scheme, port
/// or path. `https://www.netflix.com/login` and `https://netflix.com` are one site; an
/// internet password for `github.com` and a generic password whose service is
/// `github.com` are one site too.
///
/// Imports match an imported login to one already in the vault by it (besides the unique
/// key), so that a second item for the same login is not made beside the first.
///
/// ```swift
/// let a = ItemAttributes.internetPassword(server: "www.netflix.com", account: "me", path: "/login")
/// let b = ItemAttributes.genericPassword(service: "netflix.com", account: "me")
/// let same = a.site == b.site   // true: ItemSite(host: "netflix.com", account: "me")
/// ```
public struct ItemSite: Sendable, Hashable, CustomStringConvertible {
    /// The host, lowercased, without a leading `www.` (``ItemSite/host(of:)``).
    public var host: String
    /// The account, exactly; empty when the item has none.
    public var account: String

    public init(host: String, account: String?) {
        self.host = Self.host(of: host)
        self.account = account ?? ""
    }

    /// A host as sites compare it: lowercased, without a leading `www.`.
    ///
    /// ```swift
    /// ItemSite.host(of: "WWW.Netflix.com")   // "netflix.com"
    /// ```
    public static func host(of host: String) -> String {
        let lowered = ServerAddress.normalizedHost(host)
        return lowered.hasPrefix("www.") && lowered.count > 4 ? String(lowered.dropFirst(4)) : lowered
    }

    /// `netflix.com, account me`: for reports. Never a secret.
    public var description: String {
        account.isEmpty ? "site \(host)" : "site \(host) and account \"\(account)\""
    }
}

extension ItemAttributes {
    /// The site this item is a login for (``ItemSite``): an internet password's server; a
    /// generic password's service when it is a host name (`github.com`, not `GitHub`),
    /// else the host of its first URL. Nil for a secure note, or when there is no host.
    public var site: ItemSite? {
        switch kind {
        case .internetPassword:
            guard let server, !server.isEmpty else { return nil }
            return ItemSite(host: server, account: account)
        case .genericPassword:
            let candidates = [service].compactMap { $0 } + urls.prefix(1)
            for text in candidates {
                if let address = try? ServerAddress(parsing: text, bareText: .recognisedHost) {
                    return ItemSite(host: address.host, account: account)
                }
            }
            return nil
        case .secureNote:
            return nil
        }
    }
}

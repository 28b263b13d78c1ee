import Foundation

/// The server an internet password is for: host, protocol (the URL's scheme), port and
/// path, read from a URL. The one place Coffer reads a URL into those attributes: the
/// `coffer` command's `--server`, the importers and ``ItemQuery`` all go through it.
///
/// Scheme and host are lowercased (``normalizedHost(_:)``), so `https://GitHub.com`
/// and `https://github.com` name the same server; the path keeps its case.
///
/// ```swift
/// let address = try ServerAddress(parsing: "https://GitHub.com:8443/login")
/// // host "github.com", scheme "https", port 8443, path "/login"
/// var login = ItemAttributes.internetPassword(server: address.host, account: "octocat",
///                                             protocol: address.scheme, port: address.port, path: address.path)
/// login.urls = ["https://GitHub.com:8443/login"]
/// ```
public struct ServerAddress: Sendable, Hashable {
    /// The host, lowercased.
    public var host: String
    /// The scheme (`"https"`), lowercased; nil for a bare host.
    public var scheme: String?
    public var port: UInt16?
    /// The path; nil when empty or `/`.
    public var path: String?

    public init(host: String, scheme: String? = nil, port: UInt16? = nil, path: String? = nil) {
        self.host = Self.normalizedHost(host)
        self.scheme = scheme.map(Self.normalizedHost)
        self.port = port
        self.path = path
    }

    /// How text without `://` is read.
    public enum BareText: Sendable, Hashable {
        /// The whole text is a host name and must not contain `/` (as typed after
        /// `coffer add --server`: `my-nas`, `example.com`).
        case host
        /// `host[:port][/path]`, only when it looks like a host: it has a dot (or is
        /// `localhost`) and only letters, digits, `.`, `-` and `_`. Importers read URL
        /// columns so, where a word such as `My Bank` is not a server.
        case recognisedHost
    }

    /// Why a text is not a server address.
    public enum ParseError: Error, Sendable, Hashable {
        /// No host: empty text, a URL without a host, or bare text that is not a host.
        case noHost
        /// The port is above 65535.
        case portOutOfRange
    }

    /// Reads `text`: a URL with a scheme and host (`https://example.com:8443/login`), or
    /// text without a scheme read as `bareText` says (such a server has no scheme).
    /// With ``BareText/recognisedHost``, surrounding white space is ignored and text with
    /// a space inside is not an address.
    public init(parsing text: String, bareText: BareText = .recognisedHost) throws(ParseError) {
        let hasScheme = text.contains("://")
        if !hasScheme && bareText == .host {
            guard !text.isEmpty, !text.contains("/") else { throw .noHost }
            self.init(host: text)
            return
        }
        var trimmed = text
        if bareText == .recognisedHost {
            trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.contains(" ") else { throw .noHost }
        }
        guard !trimmed.isEmpty else { throw .noHost }
        if !hasScheme {
            // A bare host needs a dot (or is localhost) and no characters a host cannot have.
            let hostPart = trimmed.split(separator: "/", maxSplits: 1).first.map(String.init) ?? trimmed
            let hostOnly = hostPart.split(separator: ":").first.map(String.init) ?? hostPart
            guard hostOnly.contains(".") || hostOnly.lowercased() == "localhost",
                  hostOnly.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else { throw .noHost }
        }
        guard let components = URLComponents(string: hasScheme ? trimmed : "//" + trimmed),
              let host = components.host, !host.isEmpty else { throw .noHost }
        var port: UInt16?
        if let number = components.port {
            guard let value = UInt16(exactly: number) else { throw .portOutOfRange }
            port = value
        }
        let path = components.path
        self.init(host: host, scheme: hasScheme ? components.scheme : nil, port: port,
                  path: path.isEmpty || path == "/" ? nil : path)
    }

    /// A host or scheme as Coffer compares it: lowercased.
    public static func normalizedHost(_ host: String) -> String {
        // ASCII (the usual case) without Foundation's Unicode tables.
        host.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A || $0 >= 0x80 }) ? host.lowercased() : host
    }

    /// True when two hosts (or two schemes) name the same one: equal once lowercased.
    public static func sameHost(_ a: String, _ b: String) -> Bool {
        a == b || normalizedHost(a) == normalizedHost(b)
    }
}

import CofferCrypto
import CofferFormat
import CofferOTP
import Foundation

/// Mappings every importer shares.
enum ImportMapping {
    /// A URL's parts, for an internet password.
    struct Address {
        let host: String
        let scheme: String?
        let port: UInt16?
        let path: String?
    }

    /// The host, scheme, port and path of `text`: a URL with a scheme and host
    /// (`https://example.com:8443/login`), or a bare host with an optional port and path
    /// (`example.com/login`, `192.168.1.1`), which gets no scheme. Nil when there is no host.
    static func address(_ text: String) -> Address? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(" ") else { return nil }
        let hasScheme = trimmed.contains("://")
        if !hasScheme {
            // A bare host needs a dot (or is localhost) and no characters a host cannot have.
            let hostPart = trimmed.split(separator: "/", maxSplits: 1).first.map(String.init) ?? trimmed
            let hostOnly = hostPart.split(separator: ":").first.map(String.init) ?? hostPart
            guard hostOnly.contains(".") || hostOnly.lowercased() == "localhost",
                  hostOnly.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else { return nil }
        }
        guard let components = URLComponents(string: hasScheme ? trimmed : "//" + trimmed),
              let host = components.host, !host.isEmpty else { return nil }
        var port: UInt16?
        if let number = components.port {
            guard let value = UInt16(exactly: number) else { return nil }
            port = value
        }
        let path = components.path
        return Address(host: host.lowercased(), scheme: hasScheme ? components.scheme?.lowercased() : nil, port: port,
                       path: path.isEmpty || path == "/" ? nil : path)
    }

    /// Attributes of a login: an internet password for the first URL with a host, else a
    /// generic password whose service is the title (or the first URL's text).
    /// Nil when there is nothing to name the item by.
    static func login(title: String?, username: String?, urls: [String]) -> ItemAttributes? {
        var attributes: ItemAttributes
        if let address = urls.lazy.compactMap(address).first {
            attributes = ItemAttributes(kind: .internetPassword, account: username, server: address.host,
                                        protocol: address.scheme, port: address.port, path: address.path)
        } else if let service = title ?? urls.first {
            attributes = ItemAttributes(kind: .genericPassword, service: service, account: username)
        } else {
            return nil
        }
        attributes.label = title
        attributes.urls = unique(urls)
        return attributes
    }

    /// The `otp` secret field for a one-time password as an export holds it: an
    /// `otpauth://` URI is kept as it is; a bare base32 secret becomes a URI naming the
    /// item's title and account. A value that is neither is kept unchanged, with a warning.
    static func otpField(_ value: SecureBytes, issuer: String?, account: String?) throws(CofferError) -> (SecretField, String?) {
        do throws(CofferError) {
            let parsed = try TOTP(parsing: value)
            // Compared byte by byte: a bare secret's first characters must not become a String.
            let isURI = value.withUnsafeBytes { bytes in
                let text = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
                return text.count >= 8 && zip(text.prefix(8), "otpauth:".utf8).allSatisfy { $0 | 0x20 == $1 }
            }
            if isURI { return (SecretField(name: TOTP.fieldName, value: value), nil) }
            let named = try TOTP(secret: parsed.secret, algorithm: parsed.algorithm, digits: parsed.digits,
                                 period: parsed.period, issuer: issuer, account: account)
            return (SecretField(name: TOTP.fieldName, value: try named.uri()), nil)
        } catch .invalidArgument(let why) {
            return (SecretField(name: TOTP.fieldName, value: value),
                    "the one-time password was kept as it is but Coffer cannot compute its codes: \(why)")
        }
    }

    /// Tags from text separated by commas or semicolons.
    static func tags(_ text: String?) -> [String] {
        guard let text else { return [] }
        return unique(text.split(whereSeparator: { $0 == "," || $0 == ";" })
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }

    /// `list` without repeats, in order.
    static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// Nil for an empty or all-blank string.
    static func nonBlank(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }
}

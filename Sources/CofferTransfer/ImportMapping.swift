import CofferCrypto
import CofferFormat
import CofferOTP
import CofferVault
import Foundation

/// Mappings every importer shares.
enum ImportMapping {
    /// Attributes of a login: an internet password for the first URL with a host, else a
    /// generic password whose service is the title (or the first URL's text).
    /// Nil when there is nothing to name the item by.
    static func login(title: String?, username: String?, urls: [String]) -> ItemAttributes? {
        var attributes: ItemAttributes
        if let address = urls.lazy.compactMap({ try? ServerAddress(parsing: $0) }).first {
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
        } catch where error.kind == .invalidOneTimePassword {
            return (SecretField(name: TOTP.fieldName, value: value),
                    "the one-time password was kept as it is but Coffer cannot compute its codes: \(error.detail ?? error.description)")
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

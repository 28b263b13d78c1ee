import CofferCrypto
import CofferFormat
import Foundation

/// A time-based one-time password generator (RFC 6238), as authenticator apps,
/// KeePassXC, Bitwarden, 1Password and gopass show them.
///
/// Read one from an `otpauth://totp/…` URI (secret, issuer, algorithm SHA1/SHA256/SHA512,
/// 6 to 8 digits, period) or from a bare base32 secret. An item keeps it as the secret
/// field named ``fieldName`` (`otp`), holding the URI.
///
/// ```swift
/// let uri = try SecureBytes(copying: "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PXP&issuer=Example")
/// let totp = try TOTP(parsing: uri)
/// let code = try totp.code(at: Date())             // six digits, e.g. "492039"
/// let left = totp.secondsRemaining(at: Date())     // 1...30
///
/// var secrets = try vault.secrets(for: item.id)
/// try secrets.setTOTP(totp)                        // stores the `otp` field
/// try vault.update(item.id, secrets: secrets)
/// let same = try vault.secrets(for: item.id).totp()
/// ```
public struct TOTP: Sendable, Equatable {
    /// The HMAC hash function.
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        case sha1 = "SHA1"
        case sha256 = "SHA256"
        case sha512 = "SHA512"

        public var description: String { rawValue }

        /// The HMAC hash this algorithm names.
        var hash: HMAC.Hash {
            switch self {
            case .sha1: return .sha1
            case .sha256: return .sha256
            case .sha512: return .sha512
            }
        }

        /// Parses `SHA1`, `sha-256`, `SHA512`, … (case and hyphen insensitive).
        public init?(name: String) {
            let normalised = name.uppercased().replacingOccurrences(of: "-", with: "")
            guard let algorithm = Algorithm(rawValue: normalised) else { return nil }
            self = algorithm
        }
    }

    /// The name of the secret field that holds an item's otpauth URI: `otp`, as KeePassXC names it.
    public static let fieldName = "otp"
    /// Allowed code lengths.
    public static let digitsRange = 6...8
    /// Allowed periods, in seconds.
    public static let periodRange = 1...86_400

    /// The shared secret (the decoded base32), in guarded memory.
    public let secret: SecureBytes
    public let algorithm: Algorithm
    /// The number of digits in a code, 6 to 8.
    public let digits: Int
    /// How long a code lasts, in seconds (30 unless the URI says otherwise).
    public let period: Int
    /// The service, e.g. `"GitHub"`, when the URI names one.
    public let issuer: String?
    /// The account, e.g. `"octocat"`, when the URI names one.
    public let account: String?

    /// A generator from its parts; throws ``CofferError/Kind/invalidOneTimePassword`` for an empty
    /// secret, digits outside 6…8 or a period outside 1…86400 seconds.
    ///
    /// ```swift
    /// let totp = try TOTP(secret: try SecureBytes(copying: Array("12345678901234567890".utf8)), digits: 8)
    /// ```
    public init(secret: SecureBytes, algorithm: Algorithm = .sha1, digits: Int = 6, period: Int = 30,
                issuer: String? = nil, account: String? = nil) throws(CofferError) {
        guard secret.count > 0 else { throw .invalidOneTimePassword("the one-time password secret is empty") }
        guard secret.count <= 1024 else { throw .invalidOneTimePassword("the one-time password secret is longer than 1024 bytes") }
        guard Self.digitsRange.contains(digits) else { throw .invalidOneTimePassword("one-time passwords have 6 to 8 digits, not \(digits)") }
        guard Self.periodRange.contains(period) else {
            throw .invalidOneTimePassword("the one-time password period must be 1 to 86400 seconds, not \(period)")
        }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.issuer = issuer.flatMap { $0.isEmpty ? nil : $0 }
        self.account = account.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses an `otpauth://totp/…` URI or a bare base32 secret held in guarded memory.
    ///
    /// Throws ``CofferError/Kind/invalidOneTimePassword`` for HOTP or Steam URIs, a missing or
    /// non-base32 secret, or parameters out of range. The secret is percent-decoded and
    /// base32-decoded through wiped buffers straight into guarded memory; issuer and
    /// account become ordinary strings (they are not secret).
    ///
    /// ```swift
    /// let totp = try TOTP(parsing: try SecureBytes(copying: "JBSW Y3DP EHPK 3PXP"))
    /// ```
    public init(parsing text: SecureBytes) throws(CofferError) {
        self = try text.withUnsafeBytes { (bytes) throws(CofferError) in try TOTPURI.parse(bytes) }
    }

    /// Parses a URI or base32 secret given as a `String`, which cannot be wiped
    /// (see ``SecureBytes/init(copying:)-(String)``); prefer ``init(parsing:)-(SecureBytes)``.
    ///
    /// ```swift
    /// let totp = try TOTP(parsing: "otpauth://totp/ACME:me?secret=JBSWY3DPEHPK3PXP&digits=8")
    /// ```
    public init(parsing text: String) throws(CofferError) {
        try self.init(parsing: try SecureBytes(copying: text))
    }

    /// The code for `date`, zero-padded to ``digits`` digits.
    ///
    /// Throws ``CofferError/Kind/invalidOneTimePassword`` for a date before 1970 (RFC 6238 counts
    /// from the Unix epoch) or if libcrypto cannot compute the HMAC.
    ///
    /// ```swift
    /// let now = try totp.code(at: Date())
    /// let next = try totp.code(at: Date().addingTimeInterval(Double(totp.period)))
    /// ```
    public func code(at date: Date) throws(CofferError) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else {
            throw .invalidOneTimePassword("one-time passwords need a date after 1970")
        }
        let counter = UInt64(seconds.rounded(.down)) / UInt64(period)
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        var mac = try HMAC.authenticate(algorithm.hash, key: secret, message: message)
        defer { SecureBytes.wipe(&mac) }
        // RFC 4226 §5.3 dynamic truncation.
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = UInt32(mac[offset] & 0x7f) << 24 | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8 | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// Seconds until the code for `date` changes, 1 to ``period``.
    ///
    /// ```swift
    /// print("\(try totp.code(at: .now)) (\(totp.secondsRemaining(at: .now)) s left)")
    /// ```
    public func secondsRemaining(at date: Date) -> Int {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return period }
        return period - Int(Int64(seconds.rounded(.down)) % Int64(period))
    }

    /// This generator as an `otpauth://totp/…` URI, in guarded memory: what
    /// ``ItemSecrets/setTOTP(_:)`` stores.
    ///
    /// ```swift
    /// let uri = try totp.uri()   // otpauth://totp/Example:alice?secret=…&issuer=Example&algorithm=SHA1&digits=6&period=30
    /// ```
    public func uri() throws(CofferError) -> SecureBytes {
        let out = WipingBuffer(capacity: 128)
        defer { out.removeAll() }
        out.append("otpauth://totp/")
        if let issuer { out.append(TOTPURI.percentEncoded(issuer) + ":") }
        if let account { out.append(TOTPURI.percentEncoded(account)) }
        out.append("?secret=")
        secret.withUnsafeBytes { Base32.encode($0, into: out) }
        if let issuer { out.append("&issuer=" + TOTPURI.percentEncoded(issuer)) }
        out.append("&algorithm=\(algorithm.rawValue)&digits=\(digits)&period=\(period)")
        return try out.secureBytes()
    }
}

extension ItemSecrets {
    /// The item's one-time password generator, from its ``TOTP/fieldName`` (`otp`)
    /// secret field; nil when it has none. Throws ``CofferError/Kind/invalidOneTimePassword``
    /// when the field holds something that is not a TOTP URI or base32 secret.
    ///
    /// ```swift
    /// if let totp = try vault.secrets(for: item.id).totp() { print(try totp.code(at: Date())) }
    /// ```
    public func totp() throws(CofferError) -> TOTP? {
        guard let value = field(named: TOTP.fieldName) else { return nil }
        return try TOTP(parsing: value)
    }

    /// Stores `totp` as the ``TOTP/fieldName`` (`otp`) secret field, replacing any.
    ///
    /// ```swift
    /// var secrets = try vault.secrets(for: item.id)
    /// try secrets.setTOTP(try TOTP(parsing: uri))
    /// try vault.update(item.id, secrets: secrets)
    /// ```
    public mutating func setTOTP(_ totp: TOTP) throws(CofferError) {
        let value = try totp.uri()
        // Replace the first `otp` field in place (keeping the order) and drop any others.
        var replaced = false
        fields = fields.compactMap { field in
            guard field.name == TOTP.fieldName else { return field }
            defer { replaced = true }
            return replaced ? nil : SecretField(name: field.name, value: value)
        }
        if !replaced { fields.append(SecretField(name: TOTP.fieldName, value: value)) }
    }
}

/// The `otpauth://` URI grammar (Google Authenticator's key-uri format).
enum TOTPURI {
    static func parse(_ raw: UnsafeRawBufferPointer) throws(CofferError) -> TOTP {
        var start = 0, end = raw.count
        while start < end, isSpace(raw[start]) { start += 1 }
        while end > start, isSpace(raw[end - 1]) { end -= 1 }
        let text = UnsafeRawBufferPointer(rebasing: raw[start..<end])
        guard !text.isEmpty else { throw .invalidOneTimePassword("the one-time password is empty") }
        if hasPrefix(text, "steam://") { throw .invalidOneTimePassword("Steam Guard codes are not supported") }
        guard hasPrefix(text, "otpauth:") else {
            return try TOTP(secret: try Base32.decode(text))
        }
        guard hasPrefix(text, "otpauth://") else { throw .invalidOneTimePassword("an otpauth URI starts with otpauth://") }
        let afterScheme = 10
        guard let slash = text[afterScheme...].firstIndex(of: UInt8(ascii: "/")) else {
            throw .invalidOneTimePassword("the otpauth URI has no type (otpauth://totp/…)")
        }
        let type = String(decoding: text[afterScheme..<slash], as: UTF8.self).lowercased()
        if type == "hotp" { throw .invalidOneTimePassword("counter-based (HOTP) one-time passwords are not supported; only TOTP") }
        guard type == "totp" else { throw .invalidOneTimePassword("unknown one-time password type (expected totp)") }
        let question = text[(slash + 1)...].firstIndex(of: UInt8(ascii: "?")) ?? text.count
        let label = try decodedString(UnsafeRawBufferPointer(rebasing: text[(slash + 1)..<question]), what: "label")
        var issuer: String?, account: String?
        if let colon = label.firstIndex(of: ":") {
            issuer = String(label[..<colon])
            account = String(label[label.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        } else if !label.isEmpty {
            account = label
        }

        var secret: SecureBytes?
        var algorithm = TOTP.Algorithm.sha1
        var digits = 6, period = 30
        var index = question + 1
        while index < text.count {
            let stop = text[index...].firstIndex(of: UInt8(ascii: "&")) ?? text.count
            let pair = UnsafeRawBufferPointer(rebasing: text[index..<stop])
            index = stop + 1
            guard !pair.isEmpty else { continue }
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.count
            let key = String(decoding: pair[..<equals], as: UTF8.self).lowercased()
            let rawValue = UnsafeRawBufferPointer(rebasing: pair[min(equals + 1, pair.count)...])
            switch key {
            case "secret":
                let decoded = WipingBuffer(capacity: rawValue.count + 1)
                defer { decoded.removeAll() }
                try percentDecode(rawValue, into: decoded, what: "secret")
                secret = try Base32.decode(decoded.bytes)
            case "issuer":
                issuer = try decodedString(rawValue, what: "issuer")
            case "algorithm":
                let name = try decodedString(rawValue, what: "algorithm")
                guard let parsed = TOTP.Algorithm(name: name) else {
                    throw .invalidOneTimePassword("unsupported one-time password algorithm \(name) (SHA1, SHA256 or SHA512)")
                }
                algorithm = parsed
            case "digits":
                let value = try decodedString(rawValue, what: "digits")
                guard let number = Int(value) else { throw .invalidOneTimePassword("the otpauth digits are not a number: \(value)") }
                digits = number
            case "period":
                let value = try decodedString(rawValue, what: "period")
                guard let number = Int(value) else { throw .invalidOneTimePassword("the otpauth period is not a number: \(value)") }
                period = number
            case "encoder":
                let value = try decodedString(rawValue, what: "encoder")
                if value.lowercased() == "steam" { throw .invalidOneTimePassword("Steam Guard codes are not supported") }
            default:
                continue   // image, color, lock… : display hints we do not need.
            }
        }
        guard let secret else { throw .invalidOneTimePassword("the otpauth URI has no secret parameter") }
        return try TOTP(secret: secret, algorithm: algorithm, digits: digits, period: period, issuer: issuer, account: account)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func decodedString(_ raw: UnsafeRawBufferPointer, what: String) throws(CofferError) -> String {
        let out = WipingBuffer(capacity: raw.count + 1)
        try percentDecode(raw, into: out, what: what)
        guard let text = out.string() else { throw .invalidOneTimePassword("the otpauth \(what) is not valid UTF-8") }
        return text
    }

    private static func percentDecode(_ raw: UnsafeRawBufferPointer, into out: WipingBuffer, what: String) throws(CofferError) {
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < raw.count, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2]) else {
                    throw .invalidOneTimePassword("the otpauth \(what) has a bad percent escape")
                }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(byte)
                index += 1
            }
        }
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    /// Case-insensitive ASCII prefix test.
    private static func hasPrefix(_ bytes: UnsafeRawBufferPointer, _ prefix: String) -> Bool {
        let p = Array(prefix.utf8)
        guard bytes.count >= p.count else { return false }
        for i in 0..<p.count where lower(bytes[i]) != p[i] { return false }
        return true
    }

    private static func lower(_ c: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) ? c + 32 : c
    }
}

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
}

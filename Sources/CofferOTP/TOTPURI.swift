import CofferCrypto
import CofferFormat
import Foundation

/// A ``TOTP`` as an `otpauth://totp/…` URI, and back.
extension TOTP {
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

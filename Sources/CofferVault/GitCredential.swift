import CofferCrypto
import CofferFormat
import Foundation

/// One message of git's credential protocol (gitcredentials(7), git-credential(1)): the
/// `key=value` lines git writes to a credential helper's standard input and reads back.
///
/// The message is outside input: at most ``maximumSize`` bytes, lines ended by `\n`, up to
/// the first empty line or the end; every line needs a `=` and a key; no NUL byte; every
/// value but the password is UTF-8. Anything else is ``CofferError/malformedRequest(_:)``.
/// Keys this type does not know (`capability[]`, `wwwauth[]`, `password_expiry_utc`…) are
/// skipped, as the protocol asks; a key given twice keeps its last value, as git does.
/// `url=` is read as git reads it: its parts replace protocol, host, path and username.
/// The password goes from the message's guarded bytes to guarded memory, never a `String`.
///
/// ```swift
/// let request = try GitCredential(parsing: try SecureBytes(copying: "protocol=https\nhost=example.com\n\n"))
/// if let server = try request.server(), let item = try vault.credentials(for: server, account: request.username).first {
///     let answer = GitCredential(username: item.account, password: try vault.secrets(for: item.id).password)
///     let bytes = try answer.encoded()   // "username=…\npassword=…\n", to git's pipe
/// }
/// ```
public struct GitCredential: Sendable {
    /// The largest message read: git's are a few hundred bytes.
    public static let maximumSize = 64 * 1024

    /// The scheme: `https`, `http`, `ssh`…
    public var `protocol`: String?
    /// The host, with `:port` when git gives one.
    public var host: String?
    /// The path, without a leading `/` (git sends it only with `credential.useHttpPath`).
    public var path: String?
    public var username: String?
    /// The password, in guarded memory.
    public var password: SecureBytes?

    public init(protocol: String? = nil, host: String? = nil, path: String? = nil, username: String? = nil,
                password: SecureBytes? = nil) {
        self.protocol = `protocol`
        self.host = host
        self.path = path
        self.username = username
        self.password = password
    }

    /// Reads one message (see the type's rules).
    public init(parsing message: SecureBytes) throws(CofferError) {
        self.init()
        guard message.count <= Self.maximumSize else {
            throw .malformedRequest("a credential request of \(message.count) bytes; at most \(Self.maximumSize)")
        }
        try message.withUnsafeBytes { (bytes) throws(CofferError) in try self.read(bytes) }
    }

    private mutating func read(_ bytes: UnsafeRawBufferPointer) throws(CofferError) {
        guard !bytes.contains(0) else { throw .malformedRequest("a NUL byte in a credential request") }
        var start = 0, number = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            if line.isEmpty { return }   // the blank line ends the message
            guard let equals = line.firstIndex(of: 0x3D), equals > 0 else {
                throw .malformedRequest("line \(number) of the credential request is not key=value")
            }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = UnsafeRawBufferPointer(rebasing: line[(equals + 1)...])
            if key == "password" {
                password = try SecureBytes(count: value.count) { $0.copyMemory(from: value) }
                continue
            }
            guard ["protocol", "host", "path", "username", "url"].contains(key) else { continue }
            let kept = key == "url" ? Self.withoutPassword(url: value) : Array(value)
            guard let text = String(validating: kept, as: UTF8.self) else {
                throw .malformedRequest("the \(key) of the credential request is not UTF-8")
            }
            switch key {
            case "protocol": self.protocol = text
            case "host": host = text
            case "path": path = text
            case "username": username = text
            default: try readURL(text)
            }
        }
    }

    /// The bytes of a `url=` value without the `:password` of its user info, so that a
    /// password in the URL never becomes a `String` (git does not normally send one there).
    private static func withoutPassword(url value: UnsafeRawBufferPointer) -> [UInt8] {
        let bytes = value.indices
        guard let scheme = bytes.first(where: { i in
            i + 3 <= value.count && value[i] == 0x3A && value[i + 1] == 0x2F && value[i + 2] == 0x2F
        }) else { return Array(value) }
        let authority = scheme + 3
        let authorityEnd = value[authority...].firstIndex(of: 0x2F) ?? value.count
        guard let at = value[authority..<authorityEnd].lastIndex(of: 0x40),
              let colon = value[authority..<at].firstIndex(of: 0x3A) else { return Array(value) }
        return Array(value[..<colon]) + Array(value[at...])
    }

    /// `url=scheme://[user[:password]@]host[:port][/path]`, as git splits it; a password in
    /// the URL was left out before this (``withoutPassword(url:)``).
    private mutating func readURL(_ url: String) throws(CofferError) {
        guard let schemeEnd = url.range(of: "://") else {
            throw .malformedRequest("the url of the credential request has no scheme://")
        }
        self.protocol = String(url[..<schemeEnd.lowerBound])
        var rest = url[schemeEnd.upperBound...]
        let slash = rest.firstIndex(of: "/")
        var authority = slash.map { rest[..<$0] } ?? rest
        rest = slash.map { rest[rest.index(after: $0)...] } ?? ""
        username = nil
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            let user = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            username = String(user).removingPercentEncoding ?? String(user)
            authority = authority[authority.index(after: at)...]
        }
        host = String(authority)
        path = rest.isEmpty ? nil : String(rest)
    }

    /// The server the message names, as Coffer compares servers (``ServerAddress``): the
    /// protocol as scheme, the host and its `:port`, the path with a leading `/`. Nil when
    /// the message names no host. A port that is not a number up to 65535 is malformed.
    public func server() throws(CofferError) -> ServerAddress? {
        guard var name = host, !name.isEmpty else { return nil }
        var port: UInt16?
        // host:port, but not the colons of a bracketed IPv6 address.
        if let colon = name.lastIndex(of: ":"), !name[colon...].contains("]") {
            let digits = name[name.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = UInt16(digits) else {
                throw .malformedRequest("the port in the credential request's host is not a number up to 65535")
            }
            port = value
            name = String(name[..<colon])
        }
        guard !name.isEmpty else { return nil }
        let wantedPath = path.flatMap { $0.isEmpty ? nil : ($0.hasPrefix("/") ? $0 : "/" + $0) }
        return ServerAddress(host: name, scheme: self.protocol.flatMap { $0.isEmpty ? nil : $0 }, port: port, path: wantedPath)
    }

    /// The answer git reads: `username=` and `password=` lines for those that are set, in
    /// guarded memory. A value with a newline or NUL byte cannot be said in the protocol:
    /// ``CofferError/malformedRequest(_:)``.
    public func encoded() throws(CofferError) -> SecureBytes {
        let out = WipingBuffer(capacity: 128)
        defer { out.removeAll() }
        if let username {
            guard !username.utf8.contains(where: { $0 == 0x0A || $0 == 0 }) else {
                throw .malformedRequest("the username holds a newline, which git's credential protocol cannot carry")
            }
            out.append("username=" + username + "\n")
        }
        if let password {
            let bad = password.withUnsafeBytes { $0.contains(0x0A) || $0.contains(0) }
            guard !bad else { throw .malformedRequest("the password holds a newline or NUL byte, which git's credential protocol cannot carry") }
            out.append("password=")
            out.append(password)
            out.append(UInt8(0x0A))
        }
        return try out.secureBytes()
    }
}

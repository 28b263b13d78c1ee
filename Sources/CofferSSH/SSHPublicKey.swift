internal import CSodium
import CofferCrypto
import CofferVault

/// An SSH public key: its wire blob (RFC 4253 §6.6; for Ed25519, RFC 8709: the string
/// `ssh-ed25519` and the 32-byte key) and the comment that goes with it.
///
/// ```swift
/// let key = try SSHPublicKey(openSSHLine: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFQkfMVE46NcZ8O7UneMHjEy5PLkFwKWkweyJ5HrW53v me@laptop")
/// print(key.fingerprint)   // "SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE", as ssh-keygen -l prints it
/// ```
public struct SSHPublicKey: Sendable, Hashable {
    /// The only key type Coffer signs with.
    public static let ed25519 = "ssh-ed25519"

    /// The key in SSH wire form: what agents list and servers compare.
    public let blob: [UInt8]
    /// The raw 32-byte Ed25519 public key inside ``blob``.
    public let rawKey: [UInt8]
    /// The comment (often `user@host`); may be empty.
    public var comment: String

    /// The key of an Ed25519 raw public key.
    init(ed25519 rawKey: [UInt8], comment: String) {
        var writer = SSHWriter()
        writer.string(Self.ed25519)
        writer.string(rawKey)
        self.blob = writer.bytes
        self.rawKey = rawKey
        self.comment = comment
    }

    /// Reads a wire blob; a type other than `ssh-ed25519` is ``CofferError/unsupportedSSHKey(_:)``,
    /// anything malformed ``CofferError/invalidKey(_:)``.
    init(blob: UnsafeRawBufferPointer, comment: String) throws(CofferError) {
        var reader = SSHReader(blob, structure: "the SSH public key", kind: .invalidKey)
        let type = try reader.text()
        guard type == Self.ed25519 else { throw .unsupportedSSHKey(Self.refusal(type)) }
        let key = try reader.publicString()
        guard key.count == 32 else { throw reader.malformed("an Ed25519 key of \(key.count) bytes") }
        try reader.expectEnd()
        self.init(ed25519: key, comment: comment)
    }

    /// Reads a line of an `.pub` or `authorized_keys` file: `ssh-ed25519 BASE64 [comment]`.
    public init(openSSHLine line: String) throws(CofferError) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else { throw .invalidKey("an SSH public key line is TYPE BASE64 [COMMENT]") }
        guard parts[0] == Self.ed25519 else { throw .unsupportedSSHKey(Self.refusal(String(parts[0]))) }
        guard let blob = try Base64.decode(try SecureBytes(copying: String(parts[1]))) else {
            throw .invalidKey("the SSH public key is not base64")
        }
        let comment = parts.count > 2 ? String(parts[2]).trimmingTrailingNewlines : ""
        self = try blob.withUnsafeBytes { (bytes) throws(CofferError) in try SSHPublicKey(blob: bytes, comment: comment) }
    }

    /// `ssh-ed25519 BASE64 comment`, as `ssh-keygen -y` prints it.
    public var openSSHLine: String {
        Self.ed25519 + " " + Base64.encode(blob) + (comment.isEmpty ? "" : " " + comment)
    }

    /// `SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` and
    /// `ssh-add -l` print it.
    public var fingerprint: String {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        blob.withUnsafeBufferPointer { _ = crypto_hash_sha256(&digest, $0.baseAddress, UInt64($0.count)) }
        return "SHA256:" + Base64.encode(digest, padded: false)
    }

    /// Why a key type is refused, by name.
    static func refusal(_ type: String) -> String {
        let shown = type.count <= 64 && type.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0.isPrintable }) ? type : "an unknown type"
        return "\(shown) keys are not supported; Coffer keeps and signs with Ed25519 keys only (ssh-keygen -t ed25519)"
    }
}

extension Character {
    /// Visible ASCII, for names shown in messages.
    fileprivate var isPrintable: Bool { asciiValue.map { $0 >= 0x21 && $0 < 0x7F } ?? false }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = Substring(self)
        while text.last?.isNewline == true { text = text.dropLast() }
        return String(text)
    }
}

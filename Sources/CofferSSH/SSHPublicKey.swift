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
        self.blob = OpenSSHKey.blob(ed25519: rawKey)
        self.rawKey = rawKey
        self.comment = comment
    }

    /// Reads a wire blob; a type other than `ssh-ed25519` is ``CofferError/unsupportedSSHKey(_:)``,
    /// anything malformed ``CofferError/invalidKey(_:)``.
    init(blob: UnsafeRawBufferPointer, comment: String) throws(CofferError) {
        self.init(ed25519: try OpenSSHKey.rawKey(blob: blob), comment: comment)
    }

    /// Reads a line of an `.pub` or `authorized_keys` file: `ssh-ed25519 BASE64 [comment]`.
    public init(openSSHLine line: String) throws(CofferError) {
        let (rawKey, comment) = try OpenSSHKey.publicKey(line: line)
        self.init(ed25519: rawKey, comment: comment)
    }

    /// `ssh-ed25519 BASE64 comment`, as `ssh-keygen -y` prints it.
    public var openSSHLine: String {
        Self.ed25519 + " " + Base64.encode(blob) + (comment.isEmpty ? "" : " " + comment)
    }

    /// `SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` and
    /// `ssh-add -l` print it.
    public var fingerprint: String { OpenSSHKey.fingerprint(blob: blob) }
}

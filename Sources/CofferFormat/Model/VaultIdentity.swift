import CofferCrypto

/// The private half of a ``VaultRecipient``: what opens a vault shared with you, with no
/// password (SPEC.md §4.11). Read from an **age identity file** (`AGE-SECRET-KEY-1…` lines,
/// as `age-keygen` writes it; comments and blank lines skipped, several keys allowed) or an
/// **OpenSSH Ed25519 private key** without a passphrase (`~/.ssh/id_ed25519`). Its secrets
/// stay in guarded memory.
///
/// Refused, with a typed error: a passphrase-protected SSH key and other SSH key types
/// (``CofferError/Kind/unsupportedSSHKey``, named), a public key given instead of the
/// private one, an age plugin identity, anything damaged (``CofferError/Kind/invalidKey``).
/// Reading it from a file (`VaultIdentity(contentsOf:)`) adds the key file's checks.
///
/// ```swift
/// let identity = try VaultIdentity(contentsOf: home + "/.ssh/id_ed25519")
/// let vault = try Vault.open(at: path, credential: .identity(identity))
/// print(identity.recipients.map(\.fingerprint))
/// ```
public struct VaultIdentity: Sendable {
    /// An age identity file holds keys of kind ``VaultRecipient/Kind/age``; an SSH key one
    /// of ``VaultRecipient/Kind/sshEd25519``.
    public let kind: VaultRecipient.Kind

    /// One key: its X25519 scalar and its recipient.
    package struct Key: Sendable {
        package let scalar: SecureBytes
        package let recipient: VaultRecipient
    }
    package let keys: [Key]

    /// An age identity file holds at most this many keys.
    public static let maximumKeys = 64
    /// Identity files are read up to this size (an SSH key file's bound).
    public static let maximumFileSize = OpenSSHKey.maximumFileSize

    /// The public keys this identity opens, in file order.
    public var recipients: [VaultRecipient] { keys.map(\.recipient) }

    /// The kind of slot this identity opens.
    public var slotKind: KeySlotKind { kind == .age ? .ageRecipient : .sshRecipient }

    /// Reads an identity from the text of its file, held in guarded memory.
    public init(contents: SecureBytes) throws(CofferError) {
        guard contents.count <= Self.maximumFileSize else {
            throw .invalidKey("an identity file of \(contents.count) bytes; at most \(Self.maximumFileSize)")
        }
        let ssh = contents.withUnsafeBytes { text in
            let rest = text.drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) })
            return rest.starts(with: Array("-----BEGIN".utf8)) || rest.starts(with: Array("ssh-".utf8))
                || rest.starts(with: Array("ecdsa-".utf8)) || rest.starts(with: Array("sk-".utf8))
        }
        if ssh {
            let key = try OpenSSHKey.privateKey(file: contents)
            kind = .sshEd25519
            keys = [try Self.sshKey(key.secretKey, comment: key.comment)]
        } else {
            kind = .age
            keys = try contents.withUnsafeBytes { (text) throws(CofferError) in try Self.ageKeys(text) }
        }
    }

    /// The identity of an Ed25519 key in libsodium's 64-byte form (seed, then public key).
    package init(ed25519SecretKey secretKey: SecureBytes, comment: String = "") throws(CofferError) {
        kind = .sshEd25519
        keys = [try Self.sshKey(secretKey, comment: comment)]
    }

    private static func sshKey(_ secretKey: SecureBytes, comment: String) throws(CofferError) -> Key {
        guard let publicKey = try Ed25519.publicKey(derivedFrom: secretKey) else { throw .invalidKey("an Ed25519 secret key is 64 bytes") }
        return Key(scalar: try X25519.scalar(fromEd25519SecretKey: secretKey),
                   recipient: try VaultRecipient(kind: .sshEd25519, key: publicKey, comment: comment))
    }

    private static let secretKeyPrefix = Array("AGE-SECRET-KEY-1".utf8)

    /// The `AGE-SECRET-KEY-1…` lines of an age identity file; `#` comments and blank lines
    /// are skipped, anything else is refused (naming its line, never showing it).
    private static func ageKeys(_ text: UnsafeRawBufferPointer) throws(CofferError) -> [Key] {
        var keys: [Key] = []
        var lineNumber = 0
        var start = 0
        while start < text.count {
            lineNumber += 1
            var end = start
            while end < text.count, text[end] != 0x0A { end += 1 }
            var first = start, last = end
            while first < last, [0x20, 0x09, 0x0D].contains(text[first]) { first += 1 }
            while last > first, [0x20, 0x09, 0x0D].contains(text[last - 1]) { last -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: text[first..<last])
            start = end + 1
            if line.isEmpty || line[0] == UInt8(ascii: "#") { continue }
            guard line.starts(with: secretKeyPrefix) else {
                if line.starts(with: Array("AGE-PLUGIN-".utf8)) {
                    throw .invalidKey("line \(lineNumber) of the identity file is an age plugin identity, which Coffer cannot use")
                }
                if line.starts(with: Array("age1".utf8)) {
                    throw .invalidKey("line \(lineNumber) of the identity file is a recipient (a public key); give the identity (AGE-SECRET-KEY-1…)")
                }
                throw .invalidKey("line \(lineNumber) of the identity file is not an age identity (AGE-SECRET-KEY-1…) or a comment")
            }
            let decoded: (humanReadablePart: String, data: SecureBytes)
            do throws(CofferError) {
                decoded = try Bech32.decodeSecret(line)
            } catch {
                throw .invalidKey("line \(lineNumber) of the identity file: \(error.detail ?? "not Bech32")")
            }
            guard decoded.humanReadablePart == "age-secret-key-", decoded.data.count == X25519.length else {
                throw .invalidKey("line \(lineNumber) of the identity file is not a 32-byte age identity")
            }
            guard keys.count < maximumKeys else { throw .invalidKey("an identity file of more than \(maximumKeys) keys") }
            let publicKey = try X25519.publicKey(decoded.data)
            keys.append(Key(scalar: decoded.data, recipient: try VaultRecipient(kind: .age, key: publicKey)))
        }
        guard !keys.isEmpty else { throw .invalidKey("the identity file holds no age identity (AGE-SECRET-KEY-1…) or OpenSSH private key") }
        return keys
    }

    /// The key of this identity that `recipient` names, if any.
    package func key(for recipient: VaultRecipient) -> Key? {
        keys.first { $0.recipient == recipient }
    }
}

import CofferCrypto

/// A public key a vault can be shared with (SPEC.md §4.11): an age X25519 recipient
/// (`age1…`, as `age-keygen -y` prints it) or an SSH Ed25519 key (`ssh-ed25519 AAAA…`, as
/// in `~/.ssh/id_ed25519.pub` or on GitHub). Sharing needs no password from its holder:
/// their identity file (``VaultIdentity``) opens the slot.
///
/// Refused, with a typed error and nothing changed: a string that is neither
/// (``CofferError/Kind/invalidKey``, naming what is wrong), another SSH key type such as
/// `ssh-rsa` or `ecdsa-sha2-nistp256` (``CofferError/Kind/unsupportedSSHKey``, named), an
/// age plugin recipient (`age1yubikey1…`), a key that is not a valid point.
///
/// ```swift
/// let bob = try VaultRecipient("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFQkfMVE46NcZ8O7UneMHjEy5PLkFwKWkweyJ5HrW53v bob@laptop")
/// print(bob.kind, bob.fingerprint)   // ssh-ed25519 SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE
/// let carol = try VaultRecipient("age1mrmfnwhtlprn4jquex0ukmwcm7y2nxlphuzgsgv8ew2k9mewy3rs8u7su5")
/// ```
public struct VaultRecipient: Sendable, Hashable, CustomStringConvertible {
    /// The two kinds of recipient.
    public enum Kind: String, Sendable, Hashable, Codable, CustomStringConvertible {
        /// An age X25519 recipient, `age1…`.
        case age = "age"
        /// An SSH Ed25519 public key.
        case sshEd25519 = "ssh-ed25519"

        public var description: String { rawValue }
    }

    public let kind: Kind
    /// The 32-byte public key: X25519 for ``Kind/age``, Ed25519 for ``Kind/sshEd25519``.
    public let key: [UInt8]
    /// The comment of an SSH key line (often `user@host`); empty for age recipients.
    public let comment: String

    /// Reads `age1…` or `ssh-ed25519 BASE64 [comment]` (white space around it ignored).
    public init(_ text: String) throws(CofferError) {
        let trimmed = text.trimmingWhiteSpace
        if trimmed.hasPrefix("age1") || trimmed.hasPrefix("AGE1") {
            let (part, data) = try Bech32.decode(trimmed)
            guard part == "age" else {
                throw .invalidKey("\(part.count <= 40 ? part : "this") recipient is an age plugin's; Coffer shares with X25519 recipients (age1…) and ssh-ed25519 keys")
            }
            guard data.count == X25519.length else { throw .invalidKey("an age recipient holds 32 bytes, not \(data.count)") }
            try self.init(kind: .age, key: data, comment: "")
            return
        }
        if trimmed.hasPrefix("-----BEGIN") || trimmed.hasPrefix("AGE-SECRET-KEY-") {
            throw .invalidKey("this is a private key; give the public key (the .pub file, or age-keygen -y's age1… line)")
        }
        guard trimmed.contains(" ") else {
            throw .invalidKey("not a recipient: give an age recipient (age1…), an SSH public key line (ssh-ed25519 AAAA…) or a .pub file")
        }
        let (raw, comment) = try OpenSSHKey.publicKey(line: trimmed)
        try self.init(kind: .sshEd25519, key: raw, comment: comment)
    }

    /// A recipient from its kind and 32-byte key; a key that cannot be wrapped for (not 32
    /// bytes, not a valid Ed25519 point) is ``CofferError/invalidKey(_:)``.
    public init(kind: Kind, key: [UInt8], comment: String = "") throws(CofferError) {
        guard key.count == 32 else { throw .invalidKey("a recipient's key is 32 bytes") }
        self.kind = kind
        self.key = key
        self.comment = comment
        _ = try stanzaRecipient   // an Ed25519 key must map to X25519
    }

    /// `age1…`, or `ssh-ed25519 BASE64` (without the comment).
    public var description: String {
        switch kind {
        case .age: return Bech32.encode(humanReadablePart: "age", data: key)
        case .sshEd25519: return OpenSSHKey.ed25519 + " " + Base64.encode(OpenSSHKey.blob(ed25519: key))
        }
    }

    /// What names the key to people: the `age1…` string itself for an age recipient, and
    /// `SHA256:…` as `ssh-keygen -l` prints it for an SSH key.
    public var fingerprint: String {
        switch kind {
        case .age: return description
        case .sshEd25519: return OpenSSHKey.fingerprint(blob: OpenSSHKey.blob(ed25519: key))
        }
    }

    /// Equal keys are the same recipient, whatever the comment.
    public static func == (a: VaultRecipient, b: VaultRecipient) -> Bool { a.kind == b.kind && a.key == b.key }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(key)
    }

    /// The age stanza recipient for this key.
    package var stanzaRecipient: AgeStanza.Recipient {
        get throws(CofferError) {
            switch kind {
            case .age: return .x25519(publicKey: key)
            case .sshEd25519: return try .sshEd25519(rawKey: key)
            }
        }
    }

    /// The slot type (SPEC.md §4): 0x15 for age, 0x16 for ssh-ed25519.
    package var slotType: UInt8 { kind == .age ? KeySlotV2.ageRecipientType : KeySlotV2.sshRecipientType }

    /// The kind of slot this recipient gets.
    public var slotKind: KeySlotKind { kind == .age ? .ageRecipient : .sshRecipient }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends.
    var trimmingWhiteSpace: String {
        var text = Substring(self)
        while let c = text.first, c.isWhitespace { text = text.dropFirst() }
        while let c = text.last, c.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}

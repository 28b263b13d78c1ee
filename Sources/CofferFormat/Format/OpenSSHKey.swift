import CofferCrypto

/// OpenSSH's Ed25519 keys as text and bytes: a public key's wire blob (RFC 4253 §6.6,
/// RFC 8709: the string `ssh-ed25519` and the 32-byte key), a `.pub` line, and an
/// unencrypted `openssh-key-v1` private key file (OpenSSH's PROTOCOL.key). The SSH
/// feature's keys (`SSHPublicKey`, `SSHPrivateKey`) and the vault's ssh-ed25519 recipients
/// and identities (SPEC.md §4.11) read them here, alike.
///
/// Every input is outside input. Refused with ``CofferError/unsupportedSSHKey(_:)``, named:
/// another key type (RSA, ECDSA, security keys…), a passphrase-protected key (Coffer does
/// not carry bcrypt-pbkdf), a file of several keys, PEM files of other formats. Refused with
/// ``CofferError/invalidKey(_:)``: anything damaged, including a private half that does not
/// give its public half.
package enum OpenSSHKey {
    package static let ed25519 = "ssh-ed25519"
    /// A key file is a few hundred bytes; an RSA one a few KiB.
    package static let maximumFileSize = 64 * 1024

    /// An Ed25519 private key: its raw public key, its comment, and libsodium's 64-byte
    /// secret key (seed, then public key) in guarded memory.
    package struct PrivateKey: Sendable {
        package let publicKey: [UInt8]
        package let comment: String
        package let secretKey: SecureBytes
    }

    // MARK: Public keys

    /// The wire blob of a raw Ed25519 public key.
    package static func blob(ed25519 rawKey: [UInt8]) -> [UInt8] {
        var writer = SSHWriter()
        writer.string(ed25519)
        writer.string(rawKey)
        return writer.bytes
    }

    /// The raw key of a wire blob; another type is refused by name.
    package static func rawKey(blob: UnsafeRawBufferPointer) throws(CofferError) -> [UInt8] {
        var reader = SSHReader(blob, structure: "the SSH public key", kind: .invalidKey)
        let type = try reader.text()
        guard type == ed25519 else { throw .unsupportedSSHKey(refusal(type)) }
        let key = try reader.publicString()
        guard key.count == Ed25519.publicKeyLength else { throw reader.malformed("an Ed25519 key of \(key.count) bytes") }
        try reader.expectEnd()
        return key
    }

    /// A line of a `.pub` or `authorized_keys` file: `ssh-ed25519 BASE64 [comment]`.
    package static func publicKey(line: String) throws(CofferError) -> (rawKey: [UInt8], comment: String) {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else { throw .invalidKey("an SSH public key line is TYPE BASE64 [COMMENT]") }
        guard parts[0] == ed25519 else { throw .unsupportedSSHKey(refusal(String(parts[0]))) }
        guard let blob = try Base64.decode(try SecureBytes(copying: String(parts[1]))) else {
            throw .invalidKey("the SSH public key is not base64")
        }
        var comment = parts.count > 2 ? Substring(parts[2]) : ""
        while comment.last?.isNewline == true { comment = comment.dropLast() }
        return (try blob.withUnsafeBytes { (bytes) throws(CofferError) in try rawKey(blob: bytes) }, String(comment))
    }

    /// `SHA256:` and the unpadded base64 of the blob's SHA-256, as `ssh-keygen -l` prints it.
    package static func fingerprint(blob: [UInt8]) -> String {
        "SHA256:" + Base64.encode((try? SHA256.hash(blob)) ?? [], padded: false)
    }

    /// Why a key type is refused, by name.
    package static func refusal(_ type: String) -> String {
        let printable = { (c: Character) in c.asciiValue.map { $0 >= 0x21 && $0 < 0x7F } ?? false }
        let shown = type.count <= 64 && type.allSatisfy(printable) ? type : "an unknown type"
        return "\(shown) keys are not supported; Coffer uses Ed25519 keys only (ssh-keygen -t ed25519)"
    }

    // MARK: Private key files

    private static let begin = Array("-----BEGIN OPENSSH PRIVATE KEY-----".utf8)
    private static let end = Array("-----END OPENSSH PRIVATE KEY-----".utf8)
    private static let magic = Array("openssh-key-v1".utf8) + [0]

    /// True when `text` starts (after white space) like a PEM file: what tells an SSH
    /// private key file from other key files.
    package static func looksLikePEM(_ text: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[start]) { start += 1 }
        return UnsafeRawBufferPointer(rebasing: text[start...]).starts(with: Array("-----BEGIN".utf8))
    }

    /// Reads the text of an OpenSSH private key file.
    package static func privateKey(file: SecureBytes) throws(CofferError) -> PrivateKey {
        guard file.count <= maximumFileSize else {
            throw .invalidKey("an SSH key file of \(file.count) bytes; at most \(maximumFileSize)")
        }
        let body = try file.withUnsafeBytes { (text) throws(CofferError) -> Range<Int> in try armoredBody(text) }
        guard let decoded = try Base64.decode(try file.slice(body)) else { throw .invalidKey("the OpenSSH key is not base64") }
        return try decoded.withUnsafeBytes { (bytes) throws(CofferError) in try parse(bytes) }
    }

    /// The base64 between the armor lines; other PEM files and public keys refused by name.
    private static func armoredBody(_ text: UnsafeRawBufferPointer) throws(CofferError) -> Range<Int> {
        var start = 0
        while start < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[start]) { start += 1 }
        let rest = UnsafeRawBufferPointer(rebasing: text[start...])
        guard rest.starts(with: begin) else {
            if rest.starts(with: Array("-----BEGIN RSA PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(refusal("ssh-rsa")) }
            if rest.starts(with: Array("-----BEGIN EC PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(refusal("ecdsa")) }
            if rest.starts(with: Array("-----BEGIN DSA PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(refusal("ssh-dss")) }
            if rest.starts(with: Array("-----BEGIN".utf8)) {
                throw .unsupportedSSHKey("a PEM file that is not an OpenSSH private key; convert it with ssh-keygen -p -f FILE")
            }
            if rest.starts(with: Array("ssh-".utf8)) || rest.starts(with: Array("ecdsa-".utf8)) || rest.starts(with: Array("sk-".utf8)) {
                throw .invalidKey("this is a public key; give the private key file (without .pub)")
            }
            throw .invalidKey("not an OpenSSH private key file (no -----BEGIN OPENSSH PRIVATE KEY----- line)")
        }
        let from = start + begin.count
        guard let endOffset = (from...max(from, text.count - end.count)).first(where: { offset in
            offset + end.count <= text.count && UnsafeRawBufferPointer(rebasing: text[offset..<(offset + end.count)]).elementsEqual(end)
        }) else { throw .invalidKey("the OpenSSH key has no -----END OPENSSH PRIVATE KEY----- line") }
        return from..<endOffset
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) throws(CofferError) -> PrivateKey {
        var reader = SSHReader(bytes, structure: "the OpenSSH key", kind: .invalidKey)
        guard bytes.starts(with: magic) else { throw reader.malformed("no openssh-key-v1 magic") }
        for _ in magic { _ = try reader.byte() }
        let cipher = try reader.text(), kdf = try reader.text()
        _ = try reader.string()   // KDF options
        guard cipher == "none", kdf == "none" else {
            throw .unsupportedSSHKey("the key is protected by a passphrase (\(cipher.prefix(40)), \(kdf.prefix(40))), which Coffer cannot open; "
                                     + "use a copy without one (cp KEY COPY; ssh-keygen -p -N '' -f COPY), then delete the copy")
        }
        let count = try reader.uint32()
        guard count == 1 else { throw .unsupportedSSHKey("a key file of \(count) keys; Coffer reads files of one key") }
        let publicKey = try rawKey(blob: try reader.string())
        let privateSection = try reader.string()
        try reader.expectEnd()
        return try readPrivate(privateSection, publicKey: publicKey)
    }

    /// The private section: two equal check words, the key again, its secret half, the
    /// comment, then padding 1, 2, 3… to a multiple of 8 bytes.
    private static func readPrivate(_ section: UnsafeRawBufferPointer, publicKey: [UInt8]) throws(CofferError) -> PrivateKey {
        var reader = SSHReader(section, structure: "the OpenSSH key's private part", kind: .invalidKey)
        guard section.count % 8 == 0 else { throw reader.malformed("a length that is not a multiple of 8") }
        let check = try reader.uint32()
        guard try reader.uint32() == check else { throw reader.malformed("check words that differ") }
        let type = try reader.text()
        guard type == ed25519 else { throw .unsupportedSSHKey(refusal(type)) }
        guard Array(try reader.string()) == publicKey else { throw reader.malformed("a public key that differs from the file's") }
        let secret = try reader.string()
        guard secret.count == Ed25519.secretKeyLength else { throw reader.malformed("an Ed25519 secret of \(secret.count) bytes") }
        let comment = try reader.text()
        var pad: UInt8 = 1
        while !reader.isAtEnd {
            guard try reader.byte() == pad, pad < 8 else { throw reader.malformed("padding that is not 1, 2, 3…") }
            pad += 1
        }
        let secretKey = try SecureBytes(count: secret.count) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            out.copyMemory(from: secret)
        }
        // The seed must give the public key the file states: a damaged or crafted file does
        // not sign (or open a slot) with one key while naming another.
        guard try Ed25519.publicKey(derivedFrom: secretKey) == publicKey,
              secretKey.withUnsafeBytes({ Array($0[32..<64]) }) == publicKey else {
            throw reader.malformed("a secret key that does not give its public key")
        }
        return PrivateKey(publicKey: publicKey, comment: comment, secretKey: secretKey)
    }
}

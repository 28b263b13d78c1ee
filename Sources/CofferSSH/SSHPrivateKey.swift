internal import CSodium
import CofferCrypto
import CofferVault

/// An Ed25519 private key read from an OpenSSH private key file (`~/.ssh/id_ed25519`: the
/// `openssh-key-v1` format of OpenSSH's PROTOCOL.key), held in guarded memory. It leaves
/// that memory only as signatures.
///
/// The file is outside input. Refused with ``CofferError/unsupportedSSHKey(_:)``: another
/// key type (named: RSA, ECDSA, security keys…), a passphrase-protected key (Coffer does not
/// carry bcrypt-pbkdf), a file of several keys, PEM files of other formats. Refused with
/// ``CofferError/invalidKey(_:)``: anything damaged, including a private half that does not
/// give its public half. At most ``maximumFileSize`` bytes are read.
///
/// ```swift
/// let file = try SecureBytes.readSecretFile(at: home + "/.ssh/id_ed25519", maximumSize: SSHPrivateKey.maximumFileSize)
/// let key = try SSHPrivateKey(openSSHFile: file)
/// let signature = try key.signature(for: Array("data".utf8))   // an SSH signature blob
/// print(key.publicKey.fingerprint)
/// ```
public struct SSHPrivateKey: Sendable {
    /// A key file is a few hundred bytes; an RSA one a few KiB.
    public static let maximumFileSize = 64 * 1024

    public let publicKey: SSHPublicKey
    /// libsodium's 64-byte Ed25519 secret key: the seed, then the public key.
    private let secretKey: SecureBytes

    private static let begin = Array("-----BEGIN OPENSSH PRIVATE KEY-----".utf8)
    private static let end = Array("-----END OPENSSH PRIVATE KEY-----".utf8)
    private static let magic = Array("openssh-key-v1".utf8) + [0]

    /// Reads the text of an OpenSSH private key file.
    public init(openSSHFile file: SecureBytes) throws(CofferError) {
        guard file.count <= Self.maximumFileSize else {
            throw .invalidKey("an SSH key file of \(file.count) bytes; at most \(Self.maximumFileSize)")
        }
        let body = try file.withUnsafeBytes { (text) throws(CofferError) -> Range<Int> in try Self.armoredBody(text) }
        guard let decoded = try Base64.decode(try file.slice(body)) else { throw .invalidKey("the OpenSSH key is not base64") }
        (publicKey, secretKey) = try decoded.withUnsafeBytes { (bytes) throws(CofferError) in try Self.parse(bytes) }
    }

    /// The base64 between the armor lines; other PEM files and public keys refused by name.
    private static func armoredBody(_ text: UnsafeRawBufferPointer) throws(CofferError) -> Range<Int> {
        var start = 0
        while start < text.count, [0x20, 0x09, 0x0A, 0x0D].contains(text[start]) { start += 1 }
        let rest = UnsafeRawBufferPointer(rebasing: text[start...])
        guard rest.starts(with: begin) else {
            if rest.starts(with: Array("-----BEGIN RSA PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(SSHPublicKey.refusal("ssh-rsa")) }
            if rest.starts(with: Array("-----BEGIN EC PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(SSHPublicKey.refusal("ecdsa")) }
            if rest.starts(with: Array("-----BEGIN DSA PRIVATE KEY-----".utf8)) { throw .unsupportedSSHKey(SSHPublicKey.refusal("ssh-dss")) }
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

    private static func parse(_ bytes: UnsafeRawBufferPointer) throws(CofferError) -> (SSHPublicKey, SecureBytes) {
        var reader = SSHReader(bytes, structure: "the OpenSSH key", kind: .invalidKey)
        guard bytes.starts(with: magic) else { throw reader.malformed("no openssh-key-v1 magic") }
        for _ in magic { _ = try reader.byte() }
        let cipher = try reader.text(), kdf = try reader.text()
        _ = try reader.string()   // KDF options
        guard cipher == "none", kdf == "none" else {
            throw .unsupportedSSHKey("the key is protected by a passphrase (\(cipher.prefix(40)), \(kdf.prefix(40))), which Coffer cannot open; "
                                     + "import a copy without one (cp KEY COPY; ssh-keygen -p -N '' -f COPY), then delete the copy")
        }
        let count = try reader.uint32()
        guard count == 1 else { throw .unsupportedSSHKey("a key file of \(count) keys; Coffer imports files of one key") }
        let publicBlob = try reader.string()
        let publicKey = try SSHPublicKey(blob: publicBlob, comment: "")
        let privateSection = try reader.string()
        try reader.expectEnd()
        return try readPrivate(privateSection, publicKey: publicKey)
    }

    /// The private section: two equal check words, the key again, its secret half, the
    /// comment, then padding 1, 2, 3… to a multiple of 8 bytes.
    private static func readPrivate(_ section: UnsafeRawBufferPointer, publicKey: SSHPublicKey) throws(CofferError) -> (SSHPublicKey, SecureBytes) {
        var reader = SSHReader(section, structure: "the OpenSSH key's private part", kind: .invalidKey)
        guard section.count % 8 == 0 else { throw reader.malformed("a length that is not a multiple of 8") }
        let check = try reader.uint32()
        guard try reader.uint32() == check else { throw reader.malformed("check words that differ") }
        let type = try reader.text()
        guard type == SSHPublicKey.ed25519 else { throw .unsupportedSSHKey(SSHPublicKey.refusal(type)) }
        guard Array(try reader.string()) == publicKey.rawKey else { throw reader.malformed("a public key that differs from the file's") }
        let secret = try reader.string()
        guard secret.count == Int(crypto_sign_SECRETKEYBYTES) else { throw reader.malformed("an Ed25519 secret of \(secret.count) bytes") }
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
        // not sign with one key while naming another.
        var derived = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var status: Int32 = -1
        _ = try SecureBytes(count: secret.count) { (scratch: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            status = secretKey.withBytePointer { seed, _ in crypto_sign_seed_keypair(&derived, scratch, seed) }
        }
        guard status == 0, derived == publicKey.rawKey,
              secretKey.withUnsafeBytes({ Array($0[32..<64]) }) == publicKey.rawKey else {
            throw reader.malformed("a secret key that does not give its public key")
        }
        var named = publicKey
        named.comment = comment
        return (named, secretKey)
    }

    /// An SSH signature blob (RFC 8709 §6: the string `ssh-ed25519` and the 64-byte
    /// Ed25519 signature) over `data`, made by libsodium.
    public func signature(for data: [UInt8]) throws(CofferError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Int(crypto_sign_BYTES))
        let status = secretKey.withBytePointer { key, _ in
            data.withUnsafeBufferPointer { message in
                crypto_sign_detached(&signature, nil, message.baseAddress, UInt64(message.count), key)
            }
        }
        guard status == 0 else { throw .cryptoFailure("Ed25519 signing failed") }
        var writer = SSHWriter()
        writer.string(SSHPublicKey.ed25519)
        writer.string(signature)
        return writer.bytes
    }
}

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
    public static let maximumFileSize = OpenSSHKey.maximumFileSize

    public let publicKey: SSHPublicKey
    /// libsodium's 64-byte Ed25519 secret key: the seed, then the public key.
    private let secretKey: SecureBytes

    /// Reads the text of an OpenSSH private key file (the format layer's reader,
    /// ``OpenSSHKey``, which the vault's ssh-ed25519 identities share).
    public init(openSSHFile file: SecureBytes) throws(CofferError) {
        let key = try OpenSSHKey.privateKey(file: file)
        publicKey = SSHPublicKey(ed25519: key.publicKey, comment: key.comment)
        secretKey = key.secretKey
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

internal import CSodium

/// Ed25519 keys as libsodium holds them (a 64-byte secret key: the 32-byte seed, then the
/// public key): what an OpenSSH key file's private half is checked against.
package enum Ed25519 {
    package static let publicKeyLength = Int(crypto_sign_PUBLICKEYBYTES)   // 32
    package static let secretKeyLength = Int(crypto_sign_SECRETKEYBYTES)   // 64

    /// The public key the secret key's seed gives (`crypto_sign_seed_keypair`), or nil
    /// when the secret key is not 64 bytes. The scratch secret key is guarded memory.
    package static func publicKey(derivedFrom secretKey: SecureBytes) throws(CofferError) -> [UInt8]? {
        try Sodium.ensureInitialized()
        guard secretKey.count == secretKeyLength else { return nil }
        var derived = [UInt8](repeating: 0, count: publicKeyLength)
        var status: Int32 = -1
        _ = try SecureBytes(count: secretKeyLength) { (scratch: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            status = secretKey.withBytePointer { seed, _ in crypto_sign_seed_keypair(&derived, scratch, seed) }
        }
        return status == 0 ? derived : nil
    }

    /// libsodium's 64-byte secret key (seed, then public key) of a 32-byte seed
    /// (`crypto_sign_seed_keypair`): how a test vector names an SSH identity.
    package static func secretKey(seed: SecureBytes) throws(CofferError) -> SecureBytes {
        try Sodium.ensureInitialized()
        guard seed.count == 32 else { throw .invalidKey("an Ed25519 seed is 32 bytes") }
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        return try SecureBytes(count: secretKeyLength) { (out: UnsafeMutablePointer<UInt8>, _: Int) throws(CofferError) in
            let status = seed.withBytePointer { s, _ in crypto_sign_seed_keypair(&publicKey, out, s) }
            guard status == 0 else { throw .cryptoFailure("Ed25519 key pair from a seed failed") }
        }
    }
}

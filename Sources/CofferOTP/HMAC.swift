import CofferCrypto
internal import COpenSSLCrypto

/// HMAC through OpenSSL's libcrypto, for TOTP only.
///
/// Why libcrypto: libsodium has HMAC-SHA-256/512 but no HMAC-SHA-1, which RFC 6238's
/// default (and nearly every real `otpauth://` URI) needs, and Coffer never implements
/// a hash or MAC itself. One library for all three algorithms keeps one code path.
/// Why here and not in CofferCrypto: only TOTP needs it, so only an app that uses
/// one-time passwords links libcrypto; the vault links none.
enum HMAC {
    /// The hash functions HMAC is computed with.
    enum Hash: Sendable, CustomStringConvertible {
        case sha1, sha256, sha512

        var description: String {
            switch self {
            case .sha1: return "SHA1"
            case .sha256: return "SHA256"
            case .sha512: return "SHA512"
            }
        }
    }

    /// HMAC of `message` under `key`. The key is read in place from guarded memory;
    /// OpenSSL copies it into its own context and cleanses that before returning.
    /// The caller owns (and wipes) the returned MAC.
    static func authenticate(_ algorithm: Hash, key: SecureBytes, message: [UInt8]) throws(CofferError) -> [UInt8] {
        guard let digest = algorithm.evpDigest else { throw .cryptoFailure("\(algorithm) is not available in libcrypto") }
        guard key.count <= Int(Int32.max) else { throw .invalidArgument("the HMAC key is too long") }
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withBytePointer { keyPointer, keyCount in
            message.withUnsafeBufferPointer { data in
                mac.withUnsafeMutableBufferPointer { out in
                    COpenSSLCrypto.HMAC(digest, keyPointer, Int32(keyCount), data.baseAddress, data.count,
                                        out.baseAddress, &length) != nil
                }
            }
        }
        guard ok, Int(length) == algorithm.macLength else {
            SecureBytes.wipe(&mac)
            throw .cryptoFailure("libcrypto could not compute HMAC-\(algorithm)")
        }
        mac.removeSubrange(Int(length)...)
        return mac
    }
}

extension HMAC.Hash {
    fileprivate var evpDigest: OpaquePointer? {
        switch self {
        case .sha1: return EVP_sha1()
        case .sha256: return EVP_sha256()
        case .sha512: return EVP_sha512()
        }
    }

    /// The MAC length in bytes.
    var macLength: Int {
        switch self {
        case .sha1: return 20
        case .sha256: return 32
        case .sha512: return 64
        }
    }
}

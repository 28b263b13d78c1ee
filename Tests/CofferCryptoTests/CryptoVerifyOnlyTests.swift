import Testing
@testable import CofferCrypto
import CofferTestSupport

/// The tag-only check a save makes of each secret part it carries
/// (``XChaCha20Poly1305/verify(_:key:nonce:associatedData:)``): it must accept exactly what a
/// full open accepts, for every length, and refuse any change of the ciphertext, its tag, the
/// associated data, the nonce or the key.
@Suite("Crypto: verifying an AEAD tag without decrypting")
struct CryptoVerifyOnlyTests {
    func verify(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8], ad: [UInt8]) throws {
        try sealed.withUnsafeBytes { c in
            try nonce.withUnsafeBytes { n in
                try ad.withUnsafeBytes { a in try XChaCha20Poly1305.verify(c, key: key, nonce: n, associatedData: a) }
            }
        }
    }

    @Test("verify accepts what open accepts and refuses every single-bit change, of the ciphertext, the tag, the data, the nonce or the key")
    func verifyMatchesOpen() throws {
        let entropy = EntropySource.system
        var random = SeededRandom("verify-only")
        for length in [0, 1, 15, 16, 17, 63, 64, 65, 144, 200, 4096] {
            let key = try entropy.secureBytes(32)
            let plain = try entropy.bytes(length)
            let nonce = try entropy.bytes(24)
            let ad = try entropy.bytes(Int.random(in: 0...48, using: &random))
            let sealed = try plain.withUnsafeBytes { (raw) throws(CofferError) in
                try XChaCha20Poly1305.seal(raw, key: key, nonce: nonce, associatedData: ad)
            }
            try verify(sealed, key: key, nonce: nonce, ad: ad)
            // Every byte of the ciphertext and tag, one bit each.
            for index in sealed.indices {
                var changed = sealed
                changed[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                #expect(throws: CofferError.authenticationFailed) { try verify(changed, key: key, nonce: nonce, ad: ad) }
                #expect(throws: CofferError.authenticationFailed) { _ = try XChaCha20Poly1305.open(changed, key: key, nonce: nonce, associatedData: ad) }
            }
            if !ad.isEmpty {
                var changed = ad
                changed[Int.random(in: ad.indices, using: &random)] ^= 0x20
                #expect(throws: CofferError.authenticationFailed) { try verify(sealed, key: key, nonce: nonce, ad: changed) }
            }
            var otherNonce = nonce
            otherNonce[Int.random(in: 0..<24, using: &random)] ^= 0x01
            #expect(throws: CofferError.authenticationFailed) { try verify(sealed, key: key, nonce: otherNonce, ad: ad) }
            let otherKey = try entropy.secureBytes(32)
            #expect(throws: CofferError.authenticationFailed) { try verify(sealed, key: otherKey, nonce: nonce, ad: ad) }
            // Cut short: a missing byte of the tag, or nothing but part of it.
            #expect(throws: CofferError.authenticationFailed) { try verify(Array(sealed.dropLast()), key: key, nonce: nonce, ad: ad) }
            #expect(throws: CofferError.authenticationFailed) { try verify(Array(sealed.prefix(15)), key: key, nonce: nonce, ad: ad) }
        }
    }

    @Test("verify refuses a key or a nonce of the wrong length before anything else")
    func verifyChecksLengths() throws {
        let entropy = EntropySource.system
        let sealed = try [UInt8](repeating: 7, count: 40).withUnsafeBytes { (raw) throws(CofferError) in
            try XChaCha20Poly1305.seal(raw, key: try entropy.secureBytes(32), nonce: try entropy.bytes(24), associatedData: [])
        }
        let shortKey = try entropy.secureBytes(31)
        #expect(throws: CofferError.self) { try verify(sealed, key: shortKey, nonce: try entropy.bytes(24), ad: []) }
        let key = try entropy.secureBytes(32)
        let error = #expect(throws: CofferError.self) { try verify(sealed, key: key, nonce: try entropy.bytes(12), ad: []) }
        #expect(error != .authenticationFailed)
    }
}

import Testing
@testable import CofferCrypto
import CofferTestSupport

/// Known-answer tests from the RFCs and the XChaCha draft.
@Suite("Crypto: known-answer vectors")
struct CryptoVectorTests {
    @Test("RFC 9106 §5.3 Argon2id test vector (libargon2, with secret and AD)")
    func argon2idRFC9106() throws {
        let tag = try Argon2id.derive(
            password: SecureBytes(copying: [UInt8](repeating: 0x01, count: 32)),
            salt: [UInt8](repeating: 0x02, count: 16),
            parameters: Argon2idParameters(memoryKiB: 32, iterations: 3, lanes: 4),
            secret: SecureBytes(copying: [UInt8](repeating: 0x03, count: 8)),
            associatedData: [UInt8](repeating: 0x04, count: 12),
            outputLength: 32)
        #expect(Hex.encode(tag.testBytes) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("libsodium and libargon2 compute the same single-lane Argon2id",
          arguments: [(8, 1), (64, 1), (1024, 2), (4096, 3)] as [(UInt32, UInt32)])
    func argon2idImplementationsAgree(memoryKiB: UInt32, iterations: UInt32) throws {
        let password = try SecureBytes(copying: "correct horse battery staple")
        let salt = Array(0..<16).map(UInt8.init)
        let parameters = Argon2idParameters(memoryKiB: memoryKiB, iterations: iterations, lanes: 1)
        let viaSodium = try Argon2id.derive(password: password, salt: salt, parameters: parameters, implementation: .libsodium)
        let viaArgon2 = try Argon2id.derive(password: password, salt: salt, parameters: parameters, implementation: .libargon2)
        #expect(viaSodium == viaArgon2)
        #expect(viaSodium.count == 32)
    }

    @Test("Argon2id rejects bad parameters with a typed error")
    func argon2idRejectsBadParameters() throws {
        let password = try SecureBytes(copying: "pw")
        let salt = [UInt8](repeating: 7, count: 16)
        let bad: [Argon2idParameters] = [
            .init(memoryKiB: 64, iterations: 0, lanes: 1),
            .init(memoryKiB: 64, iterations: 1, lanes: 0),
            .init(memoryKiB: 7, iterations: 1, lanes: 1),
            .init(memoryKiB: 16, iterations: 1, lanes: 4),
        ]
        for parameters in bad {
            #expect(throws: CofferError.self) { try Argon2id.derive(password: password, salt: salt, parameters: parameters) }
        }
        #expect(throws: CofferError.self) {
            try Argon2id.derive(password: password, salt: [1, 2, 3], parameters: .init(memoryKiB: 64, iterations: 1, lanes: 1))
        }
        #expect(throws: CofferError.self) {
            try Argon2id.derive(password: password, salt: salt, parameters: .init(memoryKiB: 64, iterations: 1, lanes: 2),
                                implementation: .libsodium)
        }
    }

    static let xchachaKey = Hex.decode("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f")
    static let xchachaNonce = Hex.decode("404142434445464748494a4b4c4d4e4f5051525354555657")
    static let xchachaAD = Hex.decode("50515253c0c1c2c3c4c5c6c7")
    static let xchachaPlaintext = Array("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
    static let xchachaCiphertext = Hex.decode("""
        bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216\
        cb96b72e1213b4522f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e
        """)
    static let xchachaTag = Hex.decode("c0875924c1c7987947deafd8780acf49")

    @Test("draft-irtf-cfrg-xchacha §A.3.1 XChaCha20-Poly1305 vector")
    func xchachaVector() throws {
        let key = try SecureBytes(copying: Self.xchachaKey)
        let sealed = try Self.xchachaPlaintext.withUnsafeBytes { plain in
            try XChaCha20Poly1305.seal(plain, key: key, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD)
        }
        #expect(sealed == Self.xchachaCiphertext + Self.xchachaTag)
        let opened = try XChaCha20Poly1305.open(sealed, key: key, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD)
        #expect(opened.testBytes == Self.xchachaPlaintext)
    }

    @Test("XChaCha20-Poly1305 open fails with the typed error on any change")
    func xchachaNegative() throws {
        let key = try SecureBytes(copying: Self.xchachaKey)
        let sealed = Self.xchachaCiphertext + Self.xchachaTag
        var badTag = sealed; badTag[badTag.count - 1] ^= 0x01
        var badBody = sealed; badBody[0] ^= 0x80
        var badAD = Self.xchachaAD; badAD[0] ^= 0x01
        var badNonce = Self.xchachaNonce; badNonce[23] ^= 0x01
        var badKeyBytes = Self.xchachaKey; badKeyBytes[0] ^= 0x01
        let badKey = try SecureBytes(copying: badKeyBytes)
        let cases: [(String, () throws(CofferError) -> SecureBytes)] = [
            ("tag", { () throws(CofferError) in try XChaCha20Poly1305.open(badTag, key: key, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD) }),
            ("ciphertext", { () throws(CofferError) in try XChaCha20Poly1305.open(badBody, key: key, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD) }),
            ("AD", { () throws(CofferError) in try XChaCha20Poly1305.open(sealed, key: key, nonce: Self.xchachaNonce, associatedData: badAD) }),
            ("nonce", { () throws(CofferError) in try XChaCha20Poly1305.open(sealed, key: key, nonce: badNonce, associatedData: Self.xchachaAD) }),
            ("key", { () throws(CofferError) in try XChaCha20Poly1305.open(sealed, key: badKey, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD) }),
            ("short", { () throws(CofferError) in try XChaCha20Poly1305.open(sealed.prefix(15), key: key, nonce: Self.xchachaNonce, associatedData: Self.xchachaAD) }),
        ]
        for (name, open) in cases {
            #expect(throws: CofferError.authenticationFailed, "changed \(name)") { try open() }
        }
    }

    @Test("RFC 7693 Appendix A: BLAKE2b-512(\"abc\")")
    func blake2b512() throws {
        let digest = try BLAKE2b.hash(Array("abc".utf8), outputLength: 64)
        #expect(Hex.encode(digest) == """
            ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
            7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923
            """)
    }

    @Test("Keyed BLAKE2b: reference BLAKE2 KAT, key 00..3f, empty input")
    func blake2bKeyed() throws {
        // The reference BLAKE2 KAT: key = 00 01 .. 3f, input = 00 01 .. (n-1), 64-byte output.
        let key = try SecureBytes(copying: (0..<64).map(UInt8.init))
        let empty = try BLAKE2b.mac([UInt8](), key: key, outputLength: 64)
        #expect(Hex.encode(empty) == """
            10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786\
            b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568
            """)
    }

    @Test("Subkeys differ by context and by input, and are stable")
    func subkeys() throws {
        let master = try SecureBytes(copying: [UInt8](repeating: 0x42, count: 32))
        let a = try SubkeyDerivation.derive(from: master, context: "coffer.test.a")
        let a2 = try SubkeyDerivation.derive(from: master, context: "coffer.test.a")
        let b = try SubkeyDerivation.derive(from: master, context: "coffer.test.b")
        let c = try SubkeyDerivation.derive(from: master, context: "coffer.test.a", input: [1])
        #expect(a == a2)
        #expect(a != b)
        #expect(a != c)
        #expect(a.count == 32)
    }

    @Test("Padding hides lengths within a block and round-trips", arguments: [0, 1, 15, 16, 17, 255, 256])
    func padding(length: Int) throws {
        let secret = try SecureBytes(copying: (0..<length).map { UInt8(truncatingIfNeeded: $0) })
        let padded = try Padding.pad(secret, blockSize: 64)
        #expect(padded.count % 64 == 0)
        #expect(padded.count > length)
        let unpadded = try Padding.unpad(padded, blockSize: 64, structure: "test")
        #expect(unpadded == secret)
    }

    @Test("Unpadding rejects bad padding with malformed")
    func paddingRejects() throws {
        let zeros = try SecureBytes(copying: [UInt8](repeating: 0, count: 64))
        #expect(throws: CofferError.malformed) { try Padding.unpad(zeros, blockSize: 64, structure: "test") }
        let odd = try SecureBytes(copying: [UInt8](repeating: 0x80, count: 63))
        #expect(throws: CofferError.self) { try Padding.unpad(odd, blockSize: 64, structure: "test") }
    }

    @Test("Uniform integers stay below the bound and reject bound 0")
    func uniform() throws {
        for bound in [1, 2, 3, 10, 1000] as [UInt32] {
            for _ in 0..<200 { #expect(try SecureRandom.uniform(below: bound) < bound) }
        }
        #expect(throws: CofferError.self) { try SecureRandom.uniform(below: 0) }
        let a = try SecureRandom.bytes(32), b = try SecureRandom.bytes(32)
        #expect(a != b)
        #expect(ConstantTime.equals(a, a))
        #expect(!ConstantTime.equals(a, b))
        #expect(!ConstantTime.equals(a, Array(a.prefix(31))))
    }

    /// A large draw (a rotation's nonces) is a stream under a seed of its own (issue 29): each
    /// draw different from the last, no part of it repeating another, none of it left unset,
    /// the sizes around the threshold each exact.
    @Test("Large draws are whole, fresh and never repeat a block", arguments: [4_095, 4_096, 4_097, 24 * 100_003])
    func largeDraws(count: Int) throws {
        let a = try SecureRandom.bytes(count), b = try SecureRandom.bytes(count)
        #expect(a.count == count && b.count == count)
        #expect(a != b)
        // 24-byte blocks (a nonce each): all distinct within and across the two draws, and
        // no run of zeros where the stream was not written.
        let blocks = stride(from: 0, to: count - 23, by: 24).flatMap { [Array(a[$0..<($0 + 24)]), Array(b[$0..<($0 + 24)])] }
        #expect(Set(blocks).count == blocks.count)
        #expect(!blocks.contains([UInt8](repeating: 0, count: 24)))
        // Every byte value appears about as often as any other (2.4 MB: well within 10 %).
        guard count > 1 << 20 else { return }
        var counts = [Int](repeating: 0, count: 256)
        for byte in a { counts[Int(byte)] += 1 }
        let mean = Double(count) / 256
        #expect(counts.allSatisfy { abs(Double($0) - mean) < mean / 10 })
    }
}

/// RFC 7748 known answers for the X25519 wrapper (vault format 2's slots, SPEC.md §4.7).
@Suite("X25519 known-answer vectors")
struct X25519VectorTests {
    private func scalar(_ hex: String) throws -> SecureBytes { try SecureBytes(copying: Hex.decode(hex)) }

    @Test("RFC 7748 §5.2: the two single scalar multiplications")
    func scalarMultiplication() throws {
        let cases: [(String, String, String)] = [
            ("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
             "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
             "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552"),
            ("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
             "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
             "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957"),
        ]
        for (k, u, expected) in cases {
            #expect(Hex.encode(try X25519.sharedSecret(scalar(k), peer: Hex.decode(u)).testBytes) == expected)
        }
    }

    @Test("RFC 7748 §5.2: iterated 1 and 1,000 times from k = u = 9")
    func iterated() throws {
        var k = [UInt8](repeating: 0, count: 32), u = [UInt8](repeating: 0, count: 32)
        k[0] = 9
        u[0] = 9
        for round in 1...1_000 {
            let next = try X25519.sharedSecret(SecureBytes(copying: k), peer: u).testBytes
            u = k
            k = next
            if round == 1 { #expect(Hex.encode(k) == "422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079") }
        }
        #expect(Hex.encode(k) == "684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51")
    }

    @Test("RFC 7748 §6.1: Alice's and Bob's public keys and their shared secret")
    func diffieHellman() throws {
        let alice = try scalar("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
        let bob = try scalar("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
        let alicePublic = try X25519.publicKey(alice), bobPublic = try X25519.publicKey(bob)
        #expect(Hex.encode(alicePublic) == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        #expect(Hex.encode(bobPublic) == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
        let shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
        #expect(Hex.encode(try X25519.sharedSecret(alice, peer: bobPublic).testBytes) == shared)
        #expect(Hex.encode(try X25519.sharedSecret(bob, peer: alicePublic).testBytes) == shared)
    }

    @Test("A point of small order gives an all-zero result, refused with a typed error; bad lengths too")
    func smallOrderRefused() throws {
        let k = try scalar("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4")
        var one = [UInt8](repeating: 0, count: 32); one[0] = 1
        var minusOne = [UInt8](repeating: 0xFF, count: 32); minusOne[0] = 0xEC; minusOne[31] = 0x7F
        for point in [[UInt8](repeating: 0, count: 32), one, minusOne] {
            #expect(throws: CofferError.authenticationFailed) { try X25519.sharedSecret(k, peer: point) }
        }
        #expect(throws: CofferError.self) { try X25519.sharedSecret(k, peer: [UInt8](repeating: 9, count: 31)) }
        #expect(throws: CofferError.self) { try X25519.publicKey(SecureBytes(copying: [UInt8](repeating: 1, count: 16))) }
    }
}

import Testing
@testable import CofferCrypto
import CofferTestSupport

/// The primitives age's recipient stanzas need, against their published vectors: Bech32
/// (BIP-173), HKDF-SHA-256 (RFC 5869), ChaCha20-Poly1305 (RFC 8439).
@Suite("Crypto: Bech32, HKDF-SHA-256, ChaCha20-Poly1305")
struct CryptoAgePrimitivesTests {
    /// BIP-173's valid checksums.
    @Test("BIP-173 valid Bech32 strings decode", arguments: [
        "A12UEL5L", "a12uel5l",
        "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
        "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
        "11" + String(repeating: "q", count: 82) + "c8247j",
        "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl",
    ])
    func bip173Valid(_ text: String) throws {
        var groups: [UInt8] = []
        let part = try Array(text.utf8).withBytes { raw in try Bech32.decodeGroups(raw, into: &groups) }
        #expect(part == String(text[..<text.lastIndex(of: "1")!]).lowercased())
    }

    /// BIP-173's invalid strings, each for its reason.
    @Test("BIP-173 invalid Bech32 strings are refused", arguments: [
        "\u{20}1nwldj5", "\u{7F}1axkwrx", "\u{80}1eym55h",
        "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx",
        "pzry9x0s0muk", "1pzry9x0s0muk", "x1b4n0q5v", "li1dgmt3", "de1lg7wt\u{FF}", "A1G7SGD8", "10a06t8", "1qzzfhee",
    ])
    func bip173Invalid(_ text: String) {
        var groups: [UInt8] = []
        #expect(throws: CofferError.self) {
            _ = try Array(text.utf8).withBytes { raw in try Bech32.decodeGroups(raw, into: &groups) }
        }
    }

    @Test("BIP-173 segwit address: the data regroups into the witness program")
    func bip173Regroup() throws {
        var groups: [UInt8] = []
        let part = try Array("BC1QW508D6QEJXTDG4Y5R3ZARVARY0C5XW7KV8F3T4".utf8).withBytes { raw in try Bech32.decodeGroups(raw, into: &groups) }
        #expect(part == "bc" && groups.first == 0)
        #expect(Bech32.regroup(Array(groups.dropFirst()), from: 5, to: 8, pad: false).map(Hex.encode) == "751e76e8199196d454941c45d1b3a323f1433bd6")
    }

    @Test("age keys round-trip through Bech32; a flipped character fails the checksum")
    func ageRoundTrip() throws {
        let key = (0..<32).map { UInt8($0 * 7 & 0xFF) }
        let text = Bech32.encode(humanReadablePart: "age", data: key)
        #expect(text.hasPrefix("age1") && text.count == 62)
        #expect(try Bech32.decode(text).data == key)
        #expect(try Bech32.decode(text.uppercased()).data == key)
        var flipped = Array(text)
        flipped[10] = flipped[10] == "q" ? "p" : "q"
        #expect(throws: CofferError.self) { _ = try Bech32.decode(String(flipped)) }
        // Padding bits that are not zero: the string is whole, its bytes are not.
        #expect(Bech32.regroup([31, 31], from: 5, to: 8, pad: false) == nil)
    }

    @Test("RFC 5869 HKDF-SHA-256 test cases 1 and 3")
    func hkdf() throws {
        let ikm = try SecureBytes(copying: [UInt8](repeating: 0x0b, count: 22))
        let one = try SHA256.hkdf(secret: ikm, salt: Hex.decode("000102030405060708090a0b0c"), info: Hex.decode("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        #expect(Hex.encode(one.testBytes) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let three = try SHA256.hkdf(secret: ikm, salt: [], info: [], length: 42)
        #expect(Hex.encode(three.testBytes) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("RFC 8439 §2.8.2 ChaCha20-Poly1305 seal, and open refuses a changed byte")
    func chacha() throws {
        let key = try SecureBytes(copying: Hex.decode("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"))
        let nonce = Hex.decode("070000004041424344454647")
        let ad = Hex.decode("50515253c0c1c2c3c4c5c6c7")
        let text = try SecureBytes(copying: "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.")
        let sealed = try ChaCha20Poly1305.seal(text, key: key, nonce: nonce, associatedData: ad)
        #expect(Hex.encode(sealed.suffix(16)) == "1ae10b594f09e26a7e902ecbd0600691")
        #expect(Hex.encode(sealed.prefix(16)) == "d31a8d34648e60db7b86afbc53ef7ec2")
        #expect(try ChaCha20Poly1305.open(sealed, key: key, nonce: nonce, associatedData: ad) == text)
        var changed = sealed
        changed[3] ^= 1
        #expect(throws: CofferError.authenticationFailed) { _ = try ChaCha20Poly1305.open(changed, key: key, nonce: nonce, associatedData: ad) }
    }
}

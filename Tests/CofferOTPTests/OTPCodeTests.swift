import Foundation
import Testing
import CofferVault
@testable import CofferOTP
import CofferTestSupport

@Suite("OTP: TOTP codes (RFC 6238)")
struct OTPCodeTests {
    /// RFC 6238 Appendix B: the seeds are ASCII digits, 20/32/64 bytes for SHA1/256/512.
    static let seeds: [TOTP.Algorithm: String] = [
        .sha1: "12345678901234567890",
        .sha256: "12345678901234567890123456789012",
        .sha512: "1234567890123456789012345678901234567890123456789012345678901234",
    ]

    static let vectors: [(time: Int64, sha1: String, sha256: String, sha512: String)] = [
        (59, "94287082", "46119246", "90693936"),
        (1_111_111_109, "07081804", "68084774", "25091201"),
        (1_111_111_111, "14050471", "67062674", "99943326"),
        (1_234_567_890, "89005924", "91819424", "93441116"),
        (2_000_000_000, "69279037", "90698825", "38618901"),
        (20_000_000_000, "65353130", "77737706", "47863826"),
    ]

    @Test("RFC 6238 Appendix B vectors, SHA1, SHA256 and SHA512", arguments: TOTP.Algorithm.allCases)
    func appendixB(algorithm: TOTP.Algorithm) throws {
        let seed = try #require(Self.seeds[algorithm])
        let totp = try TOTP(secret: try SecureBytes(copying: Array(seed.utf8)), algorithm: algorithm, digits: 8, period: 30)
        for vector in Self.vectors {
            let expected: String
            switch algorithm {
            case .sha1: expected = vector.sha1
            case .sha256: expected = vector.sha256
            case .sha512: expected = vector.sha512
            }
            let date = Date(timeIntervalSince1970: TimeInterval(vector.time))
            #expect(try totp.code(at: date) == expected, "T=\(vector.time) \(algorithm)")
        }
    }

    @Test("the same vectors through otpauth URIs")
    func appendixBThroughURIs() throws {
        let sha256 = "otpauth://totp/RFC:6238?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZA%3D%3D%3D%3D&algorithm=sha256&digits=8"
        let totp = try TOTP(parsing: sha256)
        #expect(totp.algorithm == .sha256)
        #expect(totp.digits == 8)
        #expect(totp.period == 30)
        #expect(totp.issuer == "RFC")
        #expect(totp.account == "6238")
        #expect(try totp.code(at: Date(timeIntervalSince1970: 1_111_111_109)) == "68084774")
    }

    @Test("otpauth URI: issuer, account, algorithm, digits, period")
    func parsesURI() throws {
        let totp = try TOTP(parsing: "otpauth://totp/ACME%20Co:john.doe%40email.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ&issuer=ACME%20Co&algorithm=SHA512&digits=7&period=60&image=x")
        #expect(totp.issuer == "ACME Co")
        #expect(totp.account == "john.doe@email.com")
        #expect(totp.algorithm == .sha512)
        #expect(totp.digits == 7)
        #expect(totp.period == 60)
        #expect(try totp.code(at: Date(timeIntervalSince1970: 0)).count == 7)
        // The issuer parameter wins over the label's prefix; a label without a prefix is the account.
        let plain = try TOTP(parsing: "OTPAUTH://TOTP/alice?SECRET=jbswy3dpehpk3pxp&issuer=Example")
        #expect(plain.issuer == "Example")
        #expect(plain.account == "alice")
        #expect(plain.algorithm == .sha1 && plain.digits == 6 && plain.period == 30)
    }

    @Test("a bare base32 secret: case, spaces and padding do not matter")
    func bareSecret() throws {
        let reference = try TOTP(parsing: "JBSWY3DPEHPK3PXP")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(try reference.code(at: date) == "324550")   // computed independently with Python's hmac
        for variant in ["jbsw y3dp ehpk 3pxp", "JBSWY3DPEHPK3PXP====", "  JBSWY3DPEHPK3PXP\n"] {
            #expect(try TOTP(parsing: variant).code(at: date) == "324550", "\(variant)")
        }
        #expect(try TOTP(parsing: "JBSWY3DPEHPK3PXP").code(at: Date(timeIntervalSince1970: 1_111_111_109)) == "071271")
    }

    @Test("RFC 4648 base32 vectors decode")
    func base32Vectors() throws {
        let vectors = [("MY======", "f"), ("MZXQ====", "fo"), ("MZXW6===", "foo"), ("MZXW6YQ=", "foob"),
                       ("MZXW6YTB", "fooba"), ("MZXW6YTBOI======", "foobar"), ("mzxw6ytboi", "foobar")]
        for (encoded, decoded) in vectors {
            var text = Array(encoded.utf8)
            let bytes = try text.withUnsafeMutableBytes { try Base32.decode(UnsafeRawBufferPointer($0)) }
            #expect(bytes.testString == decoded, "\(encoded)")
            let out = WipingBuffer()
            bytes.withUnsafeBytes { Base32.encode($0, into: out) }
            #expect(out.string() == encoded.uppercased().replacingOccurrences(of: "=", with: ""))
        }
    }

    @Test("refuses HOTP, Steam, a missing or bad secret, and parameters out of range")
    func refusals() {
        let bad = [
            "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1",
            "steam://JBSWY3DPEHPK3PXP",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&encoder=steam",
            "otpauth://totp/x?issuer=nothing",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PX1",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=5",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=9",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=0",
            "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5",
            "otpauth://totp/x?secret=%ZZ",
            "not base32!",
            "A",
            "",
        ]
        for text in bad {
            #expect(throws: CofferError.self, "\(text)") { try TOTP(parsing: text) }
        }
        #expect(throws: CofferError.self) {
            try TOTP(parsing: "JBSWY3DPEHPK3PXP").code(at: Date(timeIntervalSince1970: -1))
        }
    }

    @Test("seconds remaining counts down within the period")
    func secondsRemaining() throws {
        let totp = try TOTP(parsing: "otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=30")
        #expect(totp.secondsRemaining(at: Date(timeIntervalSince1970: 59)) == 1)
        #expect(totp.secondsRemaining(at: Date(timeIntervalSince1970: 60)) == 30)
        #expect(totp.secondsRemaining(at: Date(timeIntervalSince1970: 75.9)) == 15)
    }

    @Test("uri() round-trips and setTOTP stores the otp field in a vault")
    func storesInVault() throws {
        let original = try TOTP(parsing: "otpauth://totp/My%20Bank:alice?secret=JBSWY3DPEHPK3PXP&issuer=My%20Bank&digits=8&period=45&algorithm=SHA256")
        let again = try TOTP(parsing: try original.uri())
        #expect(again == original)
        #expect(try original.uri().testString == "otpauth://totp/My%20Bank:alice?secret=JBSWY3DPEHPK3PXP&issuer=My%20Bank&algorithm=SHA256&digits=8&period=45")

        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: try secure("pw"), options: testOptions)
            let item = try vault.add(.genericPassword(service: "bank", account: "alice"), secrets: ItemSecrets(password: try secure("p")))
            #expect(try vault.secrets(for: item.id).totp() == nil)
            var secrets = try vault.secrets(for: item.id)
            secrets.fields.append(SecretField(name: "otp", value: try secure("old")))
            try secrets.setTOTP(original)
            try vault.update(item.id, secrets: secrets)
            let stored = try vault.secrets(for: item.id)
            #expect(stored.fields.filter { $0.name == TOTP.fieldName }.count == 1)
            #expect(try stored.totp() == original)
            let date = Date(timeIntervalSince1970: 1_234_567_890)
            #expect(try stored.totp()?.code(at: date) == original.code(at: date))
        }
    }
}

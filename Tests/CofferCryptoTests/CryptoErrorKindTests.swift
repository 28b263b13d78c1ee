import Foundation
import Testing
import CofferCrypto
@testable import CofferFormat
import CofferVault
import CofferOTP
import CofferGenerator
import CofferTestSupport

/// The public error: stable kinds, detail outside equality, one kind per failure.
@Suite("Crypto: error kinds")
struct CryptoErrorKindTests {
    @Test("Equality and hashing use the kind (and the tampered part), never the detail")
    func equalityIgnoresDetail() {
        #expect(CofferError.malformed("header: too long") == CofferError.malformed("manifest: short"))
        #expect(CofferError.invalidGeneratorPolicy("a") == CofferError(.invalidGeneratorPolicy, detail: "b"))
        #expect(CofferError.io(operation: "read", path: "/a", errno: EIO) == CofferError.io)
        #expect(CofferError.malformed("x") != CofferError.truncated("x"))
        #expect(CofferError.tampered(.header) != CofferError.tampered(.manifest))
        #expect(CofferError.tampered(.entry("00")) == CofferError(.tampered, detail: "other", tamperedPart: .entry("00")))
        #expect(Set([CofferError.malformed("a"), CofferError.malformed("b")]).count == 1)
        // The structured values ride along.
        let io = CofferError.io(operation: "fsync directory", path: "/v", errno: EIO)
        #expect(io.path == "/v" && io.errno == EIO)
        #expect(CofferError.unsupportedVersion(7).version == 7)
    }

    @Test("A static member works as a catch pattern, typed and untyped")
    func catchPatterns() {
        func typed() throws(CofferError) { throw .wrongPassword }
        func untyped() throws { throw CofferError.transactionEnded }
        var caught = 0
        do { try typed() } catch .wrongPassword { caught += 1 } catch { Issue.record("\(error)") }
        do { try untyped() } catch CofferError.transactionEnded { caught += 1 } catch { Issue.record("\(error)") }
        #expect(caught == 2)
        #expect((CofferError.sealFailed as any Error).localizedDescription == CofferError.sealFailed.description)
    }

    @Test("Each kind that replaced invalidArgument comes from a representative call")
    func newKinds() throws {
        #expect(throws: CofferError.invalidGeneratorPolicy) { _ = try PasswordGenerator(policy: PasswordPolicy(length: 3)) }
        #expect(throws: CofferError.invalidWordList) { _ = try Wordlist(words: ["same", "same"]) }
        #expect(throws: CofferError.invalidOneTimePassword) { _ = try TOTP(parsing: "otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP") }
        #expect(throws: CofferError.invalidOneTimePassword) { _ = try TOTP(parsing: "otpauth://totp/x?secret=1") }
        #expect(throws: CofferError.invalidArgument) { _ = try PasswordGenerator().generate(count: -1) }
        try withTemporaryDirectory { dir in
            // A raw key of 31 bytes.
            let short = try SecureBytes(copying: [UInt8](repeating: 7, count: 31))
            #expect(throws: CofferError.invalidKey) {
                _ = try Vault.create(at: dir.appendingPathComponent("raw.coffer").path, credential: .rawKey(short), options: testOptions)
            }
            // KDF parameters out of bounds while creating.
            let tooMany = VaultOptions(kdf: Argon2idParameters(memoryKiB: 64, iterations: 65, lanes: 1))
            #expect(throws: CofferError.kdfParametersOutOfBounds) {
                _ = try Vault.create(at: dir.appendingPathComponent("kdf.coffer").path, password: try secure("pw"), options: tooMany)
            }
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: try secure("pw"), options: testOptions)
            // An ended transaction.
            var kept: VaultTransaction?
            try vault.transaction { kept = $0 }
            let ended = try #require(kept)
            #expect(throws: CofferError.transactionEnded) { _ = try ended.items() }
            // No such key slot; an invalid item; an encrypted Bitwarden export.
            #expect(throws: CofferError.noSuchKeySlot) { try vault.removeKeySlot(at: 5) }
            #expect(throws: CofferError.invalidItem) { try vault.add(.secureNote(title: "")) }
            #expect(throws: CofferError.unsupportedImport) {
                try importText(#"{"encrypted": true, "items": []}"#, format: .bitwardenJSON, into: vault)
            }
            // A file that is not a regular file; one that is too large.
            #expect(throws: CofferError.notARegularFile) { _ = try KeyFile(contentsOf: dir.path) }
            let three = dir.appendingPathComponent("three.json").path
            #expect(FileManager.default.createFile(atPath: three, contents: Data([1, 2, 3])))
            #expect(throws: CofferError.fileTooLarge) {
                try storeCall { () throws(StoreError) in _ = try SecretFile.contents(of: three, limit: 2, kind: "import file", name: three) }
            }
        }
    }

    @Test("Crypto faults have their own kinds: a failed seal is sealFailed, not authenticationFailed")
    func cryptoKinds() throws {
        let key = try SecureBytes(copying: [UInt8](repeating: 1, count: 31))
        #expect(throws: CofferError.invalidKey) {
            _ = try [UInt8]([1, 2, 3]).withUnsafeBytes { plain in
                try XChaCha20Poly1305.seal(plain, key: key, nonce: [UInt8](repeating: 0, count: 24), associatedData: [])
            }
        }
        #expect(CofferError.sealFailed != CofferError.authenticationFailed)
        #expect(CofferError.sealFailed.kind == .sealFailed)
    }

    @Test("The store's errors convert in one place; the directory fsync is a typed operation")
    func storeConversion() {
        let synced = StoreError.system(.syncDirectory, path: "/d", errno: EIO)
        let converted = CofferError(synced)
        #expect(converted.kind == .io && converted.path == "/d" && converted.errno == EIO)
        #expect(CofferError(StoreError.vaultTooLarge("/v")) == .malformed)
        #expect(CofferError(StoreError.fileTooLarge("big", path: "/f")) == .fileTooLarge)
        #expect(CofferError(StoreError.lockTimeout("/v")).path == "/v")
    }

    @Test("The format layer's errors convert in one place: each case to its kind; crypto passes through")
    func formatConversion() throws {
        let cases: [(FormatError, CofferError.Kind)] = [
            (.notACofferFile, .notACofferFile),
            (.unsupportedVersion(7), .unsupportedVersion),
            (.truncated("header"), .truncated),
            (.malformed("manifest"), .malformed),
            (.tampered(.manifest), .tampered),
            (.kdfParametersOutOfBounds("lanes"), .kdfParametersOutOfBounds),
            (.wrongPassword, .wrongPassword),
            (.wrongKeyFile, .wrongKeyFile),
            (.wrongRawKey, .wrongRawKey),
            (.invalidItem("dates"), .invalidItem),
            (.invalidKey("length"), .invalidKey),
            (.invalidArgument("ids"), .invalidArgument),
            (.slotUnavailable("slots"), .slotUnavailable),
            (.crypto(.secureMemoryUnavailable), .secureMemoryUnavailable),
        ]
        for (error, kind) in cases {
            #expect(CofferError(error).kind == kind, "\(error)")
            do throws(CofferError) {
                try formatCall { () throws(FormatError) -> Void in throw error }
                Issue.record("formatCall did not throw \(error)")
            } catch {
                #expect(error.kind == kind)
            }
        }
        // Values and details ride along, as when the format layer threw CofferError itself.
        #expect(CofferError(FormatError.unsupportedVersion(7)).version == 7)
        #expect(CofferError(FormatError.tampered(.entry("ab"))).tamperedPart == .entry("ab"))
        #expect(CofferError(FormatError.tampered(.header)) != CofferError.tampered(.manifest))
        #expect(CofferError(FormatError.truncated("header")).detail == "header")
        #expect(CofferError(FormatError.malformed("manifest: short")).description == CofferError.malformed("manifest: short").description)
        // A lower layer's error passes through unchanged, detail included.
        let lower = CofferError.kdfFailed("out of memory")
        let passed = CofferError(FormatError.crypto(lower))
        #expect(passed == lower && passed.detail == "out of memory")
        #expect(try formatCall { () throws(FormatError) in 42 } == 42)
    }

    @Test("Format functions throw FormatError; the reader's cases come from the bytes")
    func formatErrorsFromReaders() {
        #expect(throws: FormatError.notACofferFile) { try VaultFile.parse(Array("not a vault at all".utf8)) }
        #expect(throws: FormatError.truncated("format version")) { try VaultFile.parse(FormatV1.magic) }
        var version = FormatV1.magic
        version += [9, 0]
        #expect(throws: FormatError.unsupportedVersion(9)) { try VaultFile.parse(version) }
    }
}

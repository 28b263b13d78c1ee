import Foundation
import Testing
import CofferCrypto
@testable import CofferFormat
import CofferOTP
import CofferGenerator
import CofferTransfer
import CofferSSH
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

    /// Every kind the library declares, with the human prefix of its message. The list is
    /// checked against the declarations in Sources, so a new kind must be added here.
    static let prefixes: [(CofferError.Kind, String)] = [
        (.invalidArgument, "invalid argument: "), (.invalidKey, "invalid key: "), (.malformed, "malformed vault ("),
        (.kdfParametersOutOfBounds, "key-derivation parameters out of bounds ("),
        (.kdfCostTooHigh, "key derivation would cost more than the limit: "), (.kdfFailed, "key derivation failed: "),
        (.authenticationFailed, "authentication failed"), (.sealFailed, "encryption failed"),
        (.cryptoFailure, "cryptographic operation failed: "), (.secureMemoryUnavailable, "secure memory is unavailable"),
        (.io, "I/O error: "), (.fileNotFound, "no such file: "), (.fileTooLarge, "file too large: "),
        (.notACofferFile, "not a Coffer vault"), (.unsupportedVersion, "unsupported vault format version "),
        (.truncated, "file is truncated ("), (.tampered, "vault is corrupted or was tampered with ("),
        (.wrongPassword, "wrong password"), (.wrongKeyFile, "wrong key file"), (.wrongRawKey, "wrong raw key"), (.wrongIdentity, "wrong identity"),
        (.invalidItem, "invalid item: "), (.slotUnavailable, "key slot unavailable: "),
        (.fileExists, "file exists: "), (.notARegularFile, "not a regular file: "),
        (.insecurePermissions, "unsafe file permissions: "), (.lockTimeout, "timed out waiting for the lock on "),
        (.unlockCacheUnavailable, "the unlock cache is unavailable: "),
        (.itemNotFound, "no item matched"), (.ambiguousItem, "several items match: "), (.duplicateItem, "item already exists"),
        (.valueTypeMismatch, "wrong value type: "), (.vaultLocked, "vault is locked"),
        (.transactionEnded, "the transaction has ended"), (.noSuchKeySlot, "no such key slot: "),
        (.conflict, "vault changed on disk and cannot be merged: "), (.differentVault, "not a replica of this vault: "),
        (.otherKeyEpoch, "sealed under another vault key: "), (.malformedRequest, "malformed request ("),
        (.unsupportedSSHKey, "unsupported SSH key: "),
        (.rolledBack, "the vault file was rolled back: "), (.formatLimit, "format limit reached: "),
        (.refusedBefore, "refused before and unchanged since: "),
        (.keyFileRequired, "a key file is required"),
        (.invalidOneTimePassword, "invalid one-time password: "),
        (.invalidGeneratorPolicy, "invalid generator policy: "), (.invalidWordList, "invalid word list: "),
        (.malformedImport, "malformed import file ("), (.unsupportedImport, "unsupported import file: "),
    ]

    @Test("Every kind's message starts with its own human prefix: none is another's, none but invalidArgument says \"invalid argument\"")
    func everyKindHasItsOwnPrefix() throws {
        for (kind, prefix) in Self.prefixes {
            let error = CofferError(kind, detail: "the detail", path: "/p", errno: EIO, tamperedPart: .header, version: 9)
            #expect(error.description.hasPrefix(prefix), "\(kind): \(error.description)")
            #expect(kind == .invalidArgument || !error.description.hasPrefix("invalid argument"), "\(kind): \(error.description)")
            // Detail-free, the message still reads: no empty parentheses or trailing colon.
            let bare = CofferError(kind).description
            #expect(!bare.isEmpty && !bare.hasSuffix(": ") && !bare.contains("()"), "\(kind): \(bare)")
        }
        // Own prefixes: no prefix starts another kind's message.
        for (kind, prefix) in Self.prefixes {
            for (other, _) in Self.prefixes where other != kind {
                let message = CofferError(other, detail: "the detail", path: "/p", errno: EIO, tamperedPart: .header, version: 9).description
                #expect(!message.hasPrefix(prefix), "\(other)'s message starts with \(kind)'s prefix: \(message)")
            }
        }
        // The four file and transaction kinds that said "invalid argument: …" say what happened.
        #expect(CofferError.notARegularFile("key is a folder", path: "/k").description == "not a regular file: key is a folder")
        #expect(CofferError.fileTooLarge("the import file is larger than 256 MiB").description
                == "file too large: the import file is larger than 256 MiB")
        #expect(CofferError.transactionEnded.description == "the transaction has ended; start a new one")
        #expect(CofferError.insecurePermissions("k must be readable by its owner only", path: "/k").description
                == "unsafe file permissions: k must be readable by its owner only")

        // The table names every kind declared in Sources (`static let name = Self("name"…`), each
        // under its own name, once.
        let declaration = #/static let (\w+) = Self\(\s*"(\w+)"/#
        var declared: [String] = []
        let sources = TestPaths.repositoryRoot.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            guard text.contains("extension CofferError.Kind") else { continue }
            for match in text.matches(of: declaration) {
                #expect(match.1 == match.2, "\(file.lastPathComponent): \(match.1) is declared as \"\(match.2)\"")
                declared.append(String(match.2))
            }
        }
        #expect(declared.count == Set(declared).count, "a kind is declared twice")
        #expect(Set(declared) == Set(Self.prefixes.map(\.0.rawValue)))
        #expect(Self.prefixes.count == Set(Self.prefixes.map(\.0)).count)
    }

    @Test("Kinds are an open set: a kind by raw value equals the declared one, and a switch has a default")
    func openSet() {
        let read = CofferError.Kind(rawValue: "wrongPassword")
        #expect(read == .wrongPassword && read.hashValue == CofferError.Kind.wrongPassword.hashValue)
        #expect(CofferError(read) == CofferError.wrongPassword)
        // A kind this library does not declare still has a message and matches nothing declared.
        let future = CofferError(CofferError.Kind(rawValue: "somethingNew"), detail: "why")
        #expect(future.description == "somethingNew: why")
        func classify(_ kind: CofferError.Kind) -> String {
            switch kind {
            case .wrongPassword, .wrongKeyFile: return "credential"
            case .tampered: return "damage"
            default: return "other"
            }
        }
        #expect(classify(read) == "credential" && classify(future.kind) == "other")
        #expect((future as any Error).localizedDescription == "somethingNew: why")
        #expect(CofferError.wrongPassword.recoverySuggestion == "Check the password and try again.")
        #expect(CofferError.tampered(.header).failureReason?.contains("authentication codes") == true)
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
            (.wrongIdentity, .wrongIdentity),
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

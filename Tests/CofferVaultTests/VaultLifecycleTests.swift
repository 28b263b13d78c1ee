import Foundation
import Testing
@testable import CofferFormat
import CofferVault
import CofferTestSupport

@Suite("Vault: lifecycle and items")
struct VaultLifecycleTests {
    @Test("Create, add, find, read a secret, reopen, delete")
    func roundTrip() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "github.com", account: "octocat")
            attributes.label = "GitHub"
            attributes.tags = ["work", "code"]
            attributes.urls = ["https://github.com"]
            attributes.fields = [CustomField(name: "plan", value: "pro")]
            let added = try vault.add(attributes, secrets: ItemSecrets(
                password: secure("hunter2"), notes: secure("recovery codes in safe"),
                fields: [SecretField(name: "otp", value: secure("JBSWY3DPEHPK3PXP"))]))
            #expect(added.revision == 1)

            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let found = try reopened.items(matching: ItemQuery(service: "github.com"))
            #expect(found.count == 1)
            #expect(found.first?.attributes == added.attributes)
            #expect(found.first?.label == "GitHub")
            let secrets = try reopened.secrets(for: added.id)
            #expect(secrets.password?.testString == "hunter2")
            #expect(secrets.notes?.testString == "recovery codes in safe")
            #expect(secrets.field(named: "otp")?.testString == "JBSWY3DPEHPK3PXP")
            #expect(try reopened.items(matching: ItemQuery(text: "GITHUB")).count == 1)
            #expect(try reopened.items(matching: ItemQuery(tag: "code")).count == 1)
            #expect(try reopened.items(matching: ItemQuery(tag: "home")).isEmpty)

            try reopened.delete(added.id)
            #expect(throws: CofferError.itemNotFound) { try reopened.delete(added.id) }
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).items().isEmpty)
        }
    }

    @Test("Wrong password, missing file, existing file")
    func errors() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            _ = try Vault.create(at: path, password: secure("right"), options: testOptions)
            #expect(throws: CofferError.wrongPassword) { try Vault.open(at: path, password: secure("wrong")) }
            #expect(throws: CofferError.fileExists(path)) { try Vault.create(at: path, password: secure("x"), options: testOptions) }
            let missing = dir.appendingPathComponent("nope.coffer").path
            #expect(throws: CofferError.fileNotFound(missing)) { try Vault.open(at: missing, password: secure("x")) }
            let info = try Vault.info(at: path)
            #expect(info.formatVersion == 2)
            #expect(info.entryCount == 0)
            #expect(info.slots.map(\.kind) == [.password])
            #expect(info.slots.first?.kdf == testKDF)
        }
    }
}

/// One Argon2id validation: a parameter set `create` accepts is one every reader opens.
@Suite("Vault: Argon2id bounds (what create accepts, readers accept)")
struct VaultKDFBoundsTests {
    /// Each is outside SPEC.md §9 (which readers enforce) but inside libargon2's limits,
    /// so `validate()` used to accept it, and so did `create` for a raw-key vault.
    static let readerRejects: [Argon2idParameters] = [
        Argon2idParameters(memoryKiB: 65 * 8, iterations: 1, lanes: 65),
        Argon2idParameters(memoryKiB: 1024, iterations: 65, lanes: 1),
        Argon2idParameters(memoryKiB: 4 * 1024 * 1024 + 1, iterations: 1, lanes: 1),
    ]

    /// A password slot with `kdf`, parsed as a reader parses it.
    static func readSlot(_ kdf: Argon2idParameters) throws(CofferError) -> KeySlotRecord {
        var body = ByteWriter()
        body.u8(1)   // Argon2id v1.3
        body.u32(kdf.memoryKiB)
        body.u32(kdf.iterations)
        body.u32(kdf.lanes)
        body.bytes([UInt8](repeating: 0, count: 16 + 24 + 48))   // salt, nonce, wrapped key
        return try formatCall { () throws(FormatError) in try KeySlotRecord(type: KeySlotKind.password.code, body: body.bytes, index: 0) }
    }

    static func isOutOfBounds(_ error: any Error) -> Bool {
        if case .kdfParametersOutOfBounds? = error as? CofferError { return true }
        return false
    }

    @Test("Parameters a reader rejects are refused by validate() and by create", arguments: readerRejects)
    func createRefusesWhatReadersReject(kdf: Argon2idParameters) throws {
        // A reader rejects a slot with these parameters (SPEC.md §9)...
        #expect { try Self.readSlot(kdf) } throws: { Self.isOutOfBounds($0) }
        // ...so validation and create refuse them, even where no KDF runs yet (a raw-key vault).
        #expect { try kdf.validate() } throws: { Self.isOutOfBounds($0) }
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let rawKey = try SecureBytes(copying: [UInt8](repeating: 7, count: 32))
            #expect { try Vault.create(at: path, credential: .rawKey(rawKey), options: VaultOptions(kdf: kdf)) } throws: { Self.isOutOfBounds($0) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("The bounds themselves are accepted by both")
    func boundsAreAccepted() throws {
        for kdf in [Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1),
                    Argon2idParameters(memoryKiB: 64 * 8, iterations: 64, lanes: 64)] {
            try kdf.validate()
            #expect(try Self.readSlot(kdf).kdf == kdf)
        }
    }
}

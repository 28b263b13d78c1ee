import Foundation
import Testing
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

@Suite("Vault lifecycle and items")
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
            #expect(info.formatVersion == 1)
            #expect(info.entryCount == 0)
            #expect(info.slots.map(\.kind) == [.password])
            #expect(info.slots.first?.kdf == testKDF)
        }
    }
}

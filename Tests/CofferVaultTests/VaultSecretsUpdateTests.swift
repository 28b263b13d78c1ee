import Foundation
import Testing
import CofferVault
import CofferOTP
import CofferTestSupport

/// Issue 20, finding 11: `update(id, secrets: ItemSecrets(password: new))`, the example of
/// its own documentation, replaced the whole secret part and silently dropped the notes,
/// secret fields (TOTP included) and attachments. Every public way of changing a password
/// now keeps them; only `replaceSecrets` replaces everything, by its name.
@Suite("Vault: changing a password keeps notes, TOTP, fields and attachments, on every update path")
struct VaultSecretsUpdateTests {
    static let otp = "otpauth://totp/Example:me?secret=JBSWY3DPEHPK3PXP&issuer=Example"

    /// A vault with one full item: password, notes, a TOTP seed, a PIN field and an attachment.
    func fullItem(_ dir: URL) throws -> (Vault, ItemID) {
        let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
        var secrets = ItemSecrets(password: try secure("old"), notes: try secure("recovery: 1234"),
                                  fields: [SecretField(name: "PIN", value: try secure("0000"))],
                                  attachments: [Attachment(name: "codes.txt", data: try secure("a b c"))])
        try secrets.setTOTP(try TOTP(parsing: try secure(Self.otp)))
        let item = try vault.add(.genericPassword(service: "example.com", account: "me"), secrets: secrets)
        return (vault, item.id)
    }

    /// Everything but the password is as `fullItem` made it, the password is `password`,
    /// and `old` is in the history.
    func expectKept(_ vault: Vault, _ id: ItemID, password: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let secrets = try vault.secrets(for: id)
        #expect(secrets.password?.testString == password, sourceLocation: sourceLocation)
        #expect(secrets.notes?.testString == "recovery: 1234", sourceLocation: sourceLocation)
        #expect(secrets.field(named: "PIN")?.testString == "0000", sourceLocation: sourceLocation)
        #expect(try secrets.totp() != nil, "the TOTP seed is gone", sourceLocation: sourceLocation)
        #expect(secrets.attachments.map(\.name) == ["codes.txt"], sourceLocation: sourceLocation)
        #expect(secrets.passwordHistory.map { $0.password.testString } == ["old"], sourceLocation: sourceLocation)
    }

    @Test("Vault.update(_:secrets:) with only a password (the documented example)")
    func vaultUpdate() throws {
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.update(id, secrets: ItemSecrets(password: try secure("new")))
            try expectKept(vault, id, password: "new")
        }
    }

    @Test("VaultTransaction.update(_:secrets:), upsert (vault and transaction), the keychain, the closure form")
    func otherPaths() throws {
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            _ = try vault.transaction { tx in try tx.update(id, secrets: ItemSecrets(password: try secure("new"))) }
            try expectKept(vault, id, password: "new")
        }
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.upsert(.genericPassword(service: "example.com", account: "me"), secrets: ItemSecrets(password: try secure("new")))
            try expectKept(vault, id, password: "new")
        }
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            _ = try vault.transaction { tx in
                try tx.upsert(.genericPassword(service: "example.com", account: "me"), secrets: ItemSecrets(password: try secure("new")))
            }
            try expectKept(vault, id, password: "new")
        }
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.keychain(service: "example.com").set(try secure("new"), key: "me")
            try expectKept(vault, id, password: "new")
        }
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.update(id) { _, secrets in secrets.password = try secure("new") }
            try expectKept(vault, id, password: "new")
        }
    }

    @Test("A field or attachment given replaces the one of its name, in place; others stay; notes can change alone")
    func partial() throws {
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.update(id, secrets: ItemSecrets(fields: [SecretField(name: "PIN", value: try secure("9999")),
                                                              SecretField(name: "PUK", value: try secure("1111"))]))
            var secrets = try vault.secrets(for: id)
            #expect(secrets.fields.map(\.name) == ["PIN", "otp", "PUK"])
            #expect(secrets.field(named: "PIN")?.testString == "9999" && secrets.password?.testString == "old")
            try vault.update(id, secrets: ItemSecrets(notes: try secure("new notes")))
            secrets = try vault.secrets(for: id)
            #expect(secrets.notes?.testString == "new notes" && secrets.attachments.count == 1 && secrets.passwordHistory.isEmpty)
        }
    }

    @Test("replaceSecrets replaces the whole secret part, as its name says; the old password goes to history")
    func replace() throws {
        try withTemporaryDirectory { dir in
            let (vault, id) = try fullItem(dir)
            try vault.replaceSecrets(of: id, with: ItemSecrets(password: try secure("new")))
            let secrets = try vault.secrets(for: id)
            #expect(secrets.password?.testString == "new" && secrets.notes == nil && secrets.fields.isEmpty && secrets.attachments.isEmpty)
            #expect(secrets.passwordHistory.map { $0.password.testString } == ["old"])
        }
    }
}

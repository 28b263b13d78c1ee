import Foundation
import Testing
import CofferVault
import CofferTestSupport

@Suite("Vault: credential choice and key-file slot removal")
struct VaultCredentialChoiceTests {
    @Test("the choices follow the vault's slots: a key file alone first, then with the password")
    func choices() throws {
        try withTemporaryDirectory { dir in
            let keyFile = try KeyFile.generate(at: dir.appendingPathComponent("k.key").path)
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, credential: .passwordAndKeyFile(try secure("pw"), keyFile), options: testOptions)
            var info = try Vault.info(at: path)
            #expect(info.credentialChoices(withKeyFile: false).isEmpty)
            #expect(info.credentialChoices(withKeyFile: true).map(\.slotKind) == [.passwordAndKeyFile])
            try vault.addKeySlot(.keyFile(keyFile))
            try vault.addKeySlot(.password(try secure("pw")))
            info = try Vault.info(at: path)
            let withFile = info.credentialChoices(withKeyFile: true)
            #expect(withFile.map(\.slotKind) == [.keyFile, .passwordAndKeyFile])
            #expect(withFile.map(\.needsPassword) == [false, true])
            #expect(info.credentialChoices(withKeyFile: false).map(\.slotKind) == [.password])
            #expect(withFile[1].credential(password: nil, keyFile: keyFile) == nil)
            let credential = try #require(withFile[0].credential(password: nil, keyFile: keyFile))
            _ = try Vault.open(at: path, credential: credential, options: testOptions)

            // The file's two slots go in one call; the password slot stays.
            #expect(try vault.removeKeySlots(openedBy: keyFile, password: secure("pw")) == 2)
            #expect(try Vault.info(at: path).slots.map(\.kind) == [.password])
            #expect(throws: CofferError.wrongKeyFile) { try vault.removeKeySlots(openedBy: keyFile) }
        }
    }
}

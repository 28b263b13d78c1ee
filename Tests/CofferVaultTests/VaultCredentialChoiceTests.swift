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
            #expect(try vault.removeKeySlots(openedBy: keyFile, password: secure("pw")).removed.count == 2)
            #expect(try Vault.info(at: path).slots.map(\.kind) == [.password])
            #expect(throws: CofferError.wrongKeyFile) { try vault.removeKeySlots(openedBy: keyFile) }
        }
    }

    /// Opens `path` the way a person gives credentials, counting the password prompts.
    static func open(_ path: String, keyFile: KeyFile?, password: String = "pw",
                     options: VaultOptions = testOptions) throws -> (opened: OpenedVault, asked: Int) {
        var asked = 0
        let opened = try Vault.open(at: path, keyFile: keyFile, options: options) {
            asked += 1
            return try secure(password)
        }
        return (opened, asked)
    }

    @Test("the library's credential loop: the key file alone asks no password; another file falls back to password + file")
    func credentialLoop() throws {
        try withTemporaryDirectory { dir in
            let alone = try KeyFile.generate(at: dir.appendingPathComponent("alone.key").path)
            let second = try KeyFile.generate(at: dir.appendingPathComponent("second.key").path)
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, credential: .password(try secure("pw")),
                                         additional: [.keyFile(alone), .passwordAndKeyFile(try secure("pw"), second)],
                                         options: testOptions)
            // The file of the key-file slot: opened, no password asked.
            var (opened, asked) = try Self.open(path, keyFile: alone)
            #expect(opened.slotKind == .keyFile && asked == 0 && opened.password == nil)
            // The second factor's file: the key-file slot refuses it, so the password is asked once and both open.
            (opened, asked) = try Self.open(path, keyFile: second)
            #expect(opened.slotKind == .passwordAndKeyFile && asked == 1)
            #expect(opened.password?.unsafeStringCopy() == "pw")
            // No key file: the password slot.
            (opened, asked) = try Self.open(path, keyFile: nil)
            #expect(opened.slotKind == .password && asked == 1)
            // Wrong answers: a wrong password alone, a file of no slot (after asking once), a wrong password with the file.
            #expect(throws: CofferError.wrongPassword) { _ = try Self.open(path, keyFile: nil, password: "nope") }
            let stranger = try KeyFile.generate(at: dir.appendingPathComponent("stranger.key").path)
            var strangerAsked = 0
            #expect(throws: CofferError.wrongKeyFile) {
                _ = try Vault.open(at: path, keyFile: stranger, options: testOptions) { strangerAsked += 1; return try secure("pw") }
            }
            #expect(strangerAsked == 1)
            #expect(throws: CofferError.wrongKeyFile) { _ = try Self.open(path, keyFile: second, password: "nope") }
            // What the prompt throws comes through unchanged, and nothing is opened.
            struct Cancelled: Error {}
            #expect(throws: Cancelled.self) { _ = try Vault.open(at: path, keyFile: nil, options: testOptions) { throw Cancelled() } }
            _ = vault
        }
    }

    @Test("the library's credential loop refuses before asking: a missing key file, no slot for these inputs, a KDF over the limit")
    func credentialLoopRefusesEarly() throws {
        try withTemporaryDirectory { dir in
            let keyFile = try KeyFile.generate(at: dir.appendingPathComponent("k.key").path)
            func neverAsked() throws -> SecureBytes { Issue.record("the password was asked for"); return try secure("pw") }
            // Only key-file slots, no key file given.
            let needsFile = dir.appendingPathComponent("file.coffer").path
            _ = try Vault.create(at: needsFile, credential: .passwordAndKeyFile(try secure("pw"), keyFile), options: testOptions)
            #expect(throws: CofferError.keyFileRequired) { _ = try Vault.open(at: needsFile, keyFile: nil, options: testOptions, askPassword: neverAsked) }
            // A key file for a vault without key-file slots; a vault of raw-key slots.
            let passwordOnly = dir.appendingPathComponent("pw.coffer").path
            _ = try Vault.create(at: passwordOnly, password: try secure("pw"), options: testOptions)
            #expect(throws: CofferError.slotUnavailable) { _ = try Vault.open(at: passwordOnly, keyFile: keyFile, options: testOptions, askPassword: neverAsked) }
            let rawOnly = dir.appendingPathComponent("raw.coffer").path
            _ = try Vault.create(at: rawOnly, credential: .rawKey(try SecureBytes.random(count: 32)), options: testOptions)
            #expect(throws: CofferError.slotUnavailable) { _ = try Vault.open(at: rawOnly, keyFile: nil, options: testOptions, askPassword: neverAsked) }
            // Slots that cost more than the limit: refused before the prompt.
            var strict = testOptions
            strict.kdfLimit = KDFLimit(maxMemoryKiB: 8, maxIterations: 1)
            #expect(throws: CofferError.kdfCostTooHigh) { _ = try Vault.open(at: passwordOnly, keyFile: nil, options: strict, askPassword: neverAsked) }
        }
    }
}

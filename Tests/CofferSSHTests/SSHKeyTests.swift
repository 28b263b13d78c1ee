import Foundation
import Testing
import CofferVault
import CofferSSH
import CofferTestSupport

/// OpenSSH private keys, SSH keys in a vault, and the agent's answers (issue 31).
@Suite("SSH: OpenSSH keys, keys in a vault, the agent protocol")
struct SSHKeyTests {
    static let fixtures = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures/ssh")

    static func file(_ name: String) throws -> SecureBytes {
        try SecureBytes(copying: Array(try Data(contentsOf: fixtures.appendingPathComponent(name))))
    }

    static func publicLine(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name + ".pub"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("An Ed25519 key file reads as ssh-keygen wrote it: public line, comment, fingerprint; its signature verifies")
    func readsEd25519() throws {
        let key = try SSHPrivateKey(openSSHFile: try Self.file("id_ed25519"))
        #expect(key.publicKey.openSSHLine == (try Self.publicLine("id_ed25519")))
        #expect(key.publicKey.comment == "coffer-test@example")
        // As `ssh-keygen -lf Tests/Fixtures/ssh/id_ed25519` prints it.
        #expect(key.publicKey.fingerprint == "SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE")
        #expect(try SSHPublicKey(openSSHLine: try Self.publicLine("id_ed25519")) == key.publicKey)
        let data = Array("sign me".utf8)
        let blob = try key.signature(for: data)
        // string "ssh-ed25519", string signature(64): verified with libsodium's Ed25519 verify through the public key.
        #expect(blob.count == 4 + 11 + 4 + 64)
        #expect(Array(blob[4..<15]) == Array("ssh-ed25519".utf8))
        #expect(SSHTestSupport.verify(signature: Array(blob[19...]), data: data, publicKey: key.publicKey.rawKey))
        #expect(!SSHTestSupport.verify(signature: Array(blob[19...]), data: Array("other".utf8), publicKey: key.publicKey.rawKey))
    }

    @Test("Other key types are refused by name; a passphrase, a public key, a damaged file: clear errors")
    func refusals() throws {
        for (name, text) in [("id_rsa", "ssh-rsa keys are not supported"), ("id_ecdsa", "ecdsa-sha2-nistp256 keys are not supported"),
                             ("id_ed25519_passphrase", "protected by a passphrase")] {
            let error = try #require(throws: CofferError.self) { _ = try SSHPrivateKey(openSSHFile: try Self.file(name)) }
            #expect(error.kind == .unsupportedSSHKey, "\(name): \(error)")
            #expect(error.description.contains(text), "\(name): \(error)")
        }
        #expect(throws: CofferError.invalidKey) { _ = try SSHPrivateKey(openSSHFile: try Self.file("id_ed25519.pub")) }
        #expect(throws: CofferError.invalidKey) { _ = try SSHPrivateKey(openSSHFile: try secure("hello")) }
        #expect(throws: CofferError.unsupportedSSHKey) { _ = try SSHPublicKey(openSSHLine: try Self.publicLine("id_rsa")) }
        // Every truncation of the decoded key and every single-bit change of it: a typed error, never a trap,
        // and a changed secret never gives a key whose signature the stated public key accepts.
        let text = try String(contentsOf: Self.fixtures.appendingPathComponent("id_ed25519"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        let decoded = try #require(Data(base64Encoded: lines[1..<(lines.count - 1)].joined()))
        func armored(_ bytes: [UInt8]) throws -> SecureBytes {
            try secure("-----BEGIN OPENSSH PRIVATE KEY-----\n\(Data(bytes).base64EncodedString())\n-----END OPENSSH PRIVATE KEY-----\n")
        }
        for length in 0..<decoded.count {
            #expect(throws: CofferError.self) { _ = try SSHPrivateKey(openSSHFile: try armored(Array(decoded.prefix(length)))) }
        }
        var accepted = 0
        for offset in 0..<decoded.count {
            var changed = Array(decoded)
            changed[offset] ^= 0x01
            do {
                let key = try SSHPrivateKey(openSSHFile: try armored(changed))
                accepted += 1
                let signature = try key.signature(for: [1, 2, 3])
                #expect(SSHTestSupport.verify(signature: Array(signature[19...]), data: [1, 2, 3], publicKey: key.publicKey.rawKey))
            } catch let error as CofferError {
                #expect([CofferError.Kind.invalidKey, .unsupportedSSHKey].contains(error.kind), "byte \(offset): \(error)")
            }
        }
        // Only the comment's bytes (and check words changed in step) can change and still read.
        #expect(accepted < 30, "\(accepted) changed files accepted")
    }

    /// A new vault in a temporary folder holding the fixture key, labelled "laptop".
    func withKeyVault(_ body: (Vault, SSHPrivateKey, SecureBytes, Item) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            let file = try Self.file("id_ed25519")
            let key = try SSHPrivateKey(openSSHFile: file)
            try body(vault, key, file, try vault.addSSHKey(key, file: file, label: "laptop"))
        }
    }

    @Test("Keys in a vault: added once, listed from attributes, read back, a changed public field refused")
    func vaultKeys() throws {
        try withKeyVault { vault, key, file, item in
            #expect(item.label == "laptop" && item.tags == [Vault.sshKeyTag])
            #expect(throws: CofferError.duplicateItem) { try vault.addSSHKey(key, file: file) }
            let stored = try vault.sshKeys()
            #expect(stored.map(\.publicKey) == [key.publicKey])
            #expect(try vault.sshPrivateKey(for: stored[0]).publicKey == key.publicKey)
            #expect(try vault.secrets(for: item.id).field(named: Vault.sshPrivateKeyField) == file)
            // A public field edited to name another key: the private key is not used for it.
            let other = try SSHPublicKey(openSSHLine: try Self.publicLine("id_ed25519_passphrase"))
            _ = try vault.update(item.id) { attributes, _ in
                attributes.fields = [CustomField(name: Vault.sshPublicKeyField, value: other.openSSHLine)]
            }
            let edited = try #require(try vault.sshKeys().first)
            #expect(throws: CofferError.invalidKey) { _ = try vault.sshPrivateKey(for: edited) }
        }
    }

    @Test("The agent lists the vault's keys and signs with them; everything else is SSH_AGENT_FAILURE, locked or not")
    func agentReplies() throws {
        try withKeyVault { vault, key, _, _ in
            let locked = SSHTestSupport.Flag()
            let agent = SSHAgent { locked.value ? nil : vault }
            // 12: one key, its blob and comment.
            var list = agent.reply(to: [11])
            #expect(list.first == 12)
            #expect(Array(list[1..<5]) == [0, 0, 0, 1])
            let blob = key.publicKey.blob
            #expect(Array(list[9..<(9 + blob.count)]) == blob)
            // 14: a signature by that key.
            let data = Array("session".utf8)
            let sign = [13] + SSHTestSupport.string(blob) + SSHTestSupport.string(data) + [0, 0, 0, 0]
            let signed = agent.reply(to: sign)
            #expect(signed.first == 14)
            #expect(SSHTestSupport.verify(signature: Array(signed.suffix(64)), data: data, publicKey: key.publicKey.rawKey))
            // A key not in the vault, truncated and trailing messages, unknown and refused requests: failure (5).
            var otherBlob = blob
            otherBlob[otherBlob.count - 1] ^= 1
            for message: [UInt8] in [[13] + SSHTestSupport.string(otherBlob) + SSHTestSupport.string(data) + [0, 0, 0, 0],
                                     Array(sign.dropLast()), sign + [0], [11, 0], [], [99], [17], [18], [19], [22] + SSHTestSupport.string([1]), [27],
                                     [13, 0xFF, 0xFF, 0xFF, 0xFF]] {
                #expect(agent.reply(to: message) == [5], "\(message.prefix(8))")
            }
            // Locked: no key listed, nothing signed.
            locked.value = true
            list = agent.reply(to: [11])
            #expect(list == [12, 0, 0, 0, 0])
            #expect(agent.reply(to: sign) == [5])
        }
    }
}

import CofferFormat
import CofferTestSupport
import CofferVault
import Foundation
import Testing

/// Issue 30 in the library: a vault shared with age and SSH public keys, opened by their
/// identities without a password, and taken back with a rotation (SPEC.md §4.11, §11.3).
@Suite("Vault: sharing by public key")
struct VaultRecipientTests {
    static let fixtures = TestPaths.repositoryRoot.appendingPathComponent("Tests/Fixtures")
    /// age's CCTV identity and the SSH fixture key.
    static func ageIdentity() throws -> VaultIdentity {
        try VaultIdentity(contents: try secure("# created: 2026-01-01\nAGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0\n"))
    }
    static func sshIdentity() throws -> VaultIdentity {
        try VaultIdentity(contents: try SecureBytes(copying: [UInt8](Data(contentsOf: fixtures.appendingPathComponent("ssh/id_ed25519")))))
    }
    static func sshRecipient() throws -> VaultRecipient {
        try VaultRecipient(String(contentsOf: fixtures.appendingPathComponent("ssh/id_ed25519.pub"), encoding: .utf8))
    }

    private func makeVault(_ dir: URL) throws -> (Vault, String) {
        let path = dir.appendingPathComponent("team.coffer").path
        let vault = try Vault.create(at: path, password: secure("alice"), options: testOptions)
        try vault.add(.genericPassword(service: "wifi", account: "home"), secrets: ItemSecrets(password: secure("s3cret")))
        return (vault, path)
    }

    private func open(_ path: String, _ identity: VaultIdentity) throws -> Vault {
        try Vault.open(at: path, credential: .identity(identity), options: testOptions)
    }

    @Test("a vault shared with an age recipient and an SSH key opens with each identity, no password; shares are listed")
    func shareAndOpen() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let age = try Self.ageIdentity(), ssh = try Self.sshIdentity()
            let carol = try vault.addRecipient(age.recipients[0], label: "carol")
            try vault.addRecipient(try Self.sshRecipient(), label: "bob")
            #expect(carol.label == "carol" && carol.recipient == age.recipients[0])
            #expect(vault.slots == [.password, .ageRecipient, .sshRecipient])
            #expect(vault.recipients.map(\.label) == ["carol", "bob"])
            #expect(vault.recipients.map(\.recipient.fingerprint) == [age.recipients[0].description,
                                                                       "SHA256:PVz9xcWCO76YUCjgz7yzzxNKzYoQTPLuz/UD5yTV3HE"])
            for identity in [age, ssh] {
                let opened = try open(path, identity)
                let item = try #require(try opened.firstItem(matching: ItemQuery(service: "wifi")))
                #expect(try opened.secrets(for: item.id).password?.testString == "s3cret")
                // A holder of the shared key can edit, and the owner sees it.
                try opened.update(item.id) { attributes, _ in attributes.label = "edited by \(identity.kind)" }
            }
            #expect(try Vault.open(at: path, password: secure("alice"), options: testOptions)
                .firstItem(matching: ItemQuery(service: "wifi"))?.label == "edited by ssh-ed25519")
        }
    }

    @Test("an identity the vault is not shared with: wrongIdentity, and the file is unchanged")
    func wrongIdentity() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            try vault.addRecipient(try Self.ageIdentity().recipients[0])
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(throws: CofferError.wrongIdentity) { _ = try open(path, try Self.sshIdentity()) }
            let other = try VaultIdentity(contents: secure("AGE-SECRET-KEY-143WN7DCXU4G8R5AXQSSYD9AEPYDNT3HXSLWSPK36CDU6E8M59SSSAGZ3KG"))
            #expect(throws: CofferError.wrongIdentity) { _ = try open(path, other) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("sharing twice with one key or under a taken label is refused; labels without control characters")
    func refusals() throws {
        try withTemporaryDirectory { dir in
            let (vault, _) = try makeVault(dir)
            let bob = try Self.sshRecipient()
            try vault.addRecipient(bob, label: "bob")
            #expect(throws: CofferError.slotUnavailable) { try vault.addRecipient(bob, label: "bob again") }
            #expect(throws: CofferError.slotUnavailable) { try vault.addRecipient(try Self.ageIdentity().recipients[0], label: "bob") }
            #expect(throws: CofferError.invalidArgument) { try vault.addRecipient(try Self.ageIdentity().recipients[0], label: "a\u{1B}[31m") }
            #expect(throws: CofferError.noSuchKeySlot) { try vault.removeRecipient(labeled: "nobody") }
            #expect(vault.recipients.count == 1)
        }
    }

    @Test("unsharing removes the slot and rotates: the old identity opens nothing saved afterwards, other shares still open")
    func unshareRotates() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            try vault.addRecipient(try Self.sshRecipient(), label: "bob")
            try vault.addRecipient(try Self.ageIdentity().recipients[0], label: "carol")
            let bobsCopy = dir.appendingPathComponent("bob-old.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: bobsCopy)
            let change = try vault.removeRecipient(labeled: "bob")
            #expect(change.removed == [.sshRecipient] && change.rotated)
            try vault.add(.genericPassword(service: "after", account: "a"), secrets: ItemSecrets(password: secure("new")))
            #expect(throws: CofferError.wrongIdentity) { _ = try open(path, try Self.sshIdentity()) }
            // Carol's slot was rewrapped for the new key by the rotation.
            #expect(try open(path, try Self.ageIdentity()).firstItem(matching: ItemQuery(service: "after")) != nil)
            // Bob's old copy still opens with his key, and shows only what it held.
            #expect(try open(bobsCopy, try Self.sshIdentity()).firstItem(matching: ItemQuery(service: "after")) == nil)
        }
    }

    @Test("a cached unlock made through a recipient slot opens the vault again, and ends when the share is taken back")
    func cachedUnlock() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            try vault.addRecipient(try Self.sshRecipient(), label: "bob")
            let cache = MemoryUnlockCache()
            let opened = try open(path, try Self.sshIdentity())
            try opened.cacheUnlock(in: cache, for: .seconds(60))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) != nil)
            try vault.removeRecipient(labeled: "bob")
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
        }
    }

    @Test("slots merge: a share added on one device arrives; an unshare on one device survives a merge with a device that never saw it")
    func merges() throws {
        try withTemporaryDirectory { dir in
            let (a, pathA) = try makeVault(dir)
            try a.addRecipient(try Self.sshRecipient(), label: "bob")
            let pathB = dir.appendingPathComponent("b.coffer").path
            try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
            let b = try Vault.open(at: pathB, password: secure("alice"), options: testOptions)
            // B shares with Carol; A takes Bob's share back. Same epoch: merging across a
            // rotation is the rotation-merge branch's (SPEC.md §17.8).
            try b.addRecipient(try Self.ageIdentity().recipients[0], label: "carol")
            try b.add(.genericPassword(service: "from b", account: "b"), secrets: ItemSecrets(password: secure("b")))
            try a.removeRecipient(labeled: "bob", rotatingKey: false)
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            for (vault, path) in [(a, pathA), (b, pathB)] {
                #expect(vault.recipients.map(\.label) == ["carol"])
                #expect(throws: CofferError.wrongIdentity) { _ = try open(path, try Self.sshIdentity()) }
                #expect(try open(path, try Self.ageIdentity()).firstItem(matching: ItemQuery(service: "from b")) != nil)
            }
        }
    }
}

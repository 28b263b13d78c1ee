import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// An app-provided store, as the protocol's documentation describes one: it keeps the
/// encoded payloads and decodes them on the way out (here in memory).
final class MemoryUnlockCache: UnlockCache, @unchecked Sendable {
    // @unchecked: `blobs` is guarded by `lock`.
    private let lock = NSLock()
    private var blobs: [String: SecureBytes] = [:]
    /// What `cachedUnlock(forVault:)` hands back instead of the stored one, if set.
    var substitute: CachedUnlock?
    /// How many times `cachedUnlock(forVault:)` was asked (an app's cache may ask for a touch each time).
    private var asked = 0
    var lookups: Int { lock.withLock { asked } }

    func store(_ unlock: CachedUnlock) throws(CofferError) {
        let blob = try unlock.encoded()
        lock.withLock { blobs[unlock.vaultID] = blob }
    }
    func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? {
        lock.withLock { asked += 1 }
        if let substitute = lock.withLock({ blobs[vaultID] != nil ? substitute : nil }) { return substitute }
        guard let blob = lock.withLock({ blobs[vaultID] }) else { return nil }
        return try CachedUnlock(decoding: blob)
    }
    func remove(forVault vaultID: String) throws(CofferError) { _ = lock.withLock { blobs.removeValue(forKey: vaultID) } }
    func entries() throws(CofferError) -> [CachedUnlockEntry] {
        var out: [CachedUnlockEntry] = []
        for blob in lock.withLock({ Array(blobs.values) }) { out.append(try CachedUnlock(decoding: blob).entry) }
        return out
    }
    var count: Int { lock.withLock { blobs.count } }
}

/// The kernel keyring's line for a live key in /proc/keys, by description (a key that is
/// revoked, dead, negative or invalidated and waiting for the collector is not live).
func procKeysLine(_ description: String) -> String? {
    guard let text = try? String(contentsOfFile: "/proc/keys", encoding: .utf8) else { return nil }
    return text.split(separator: "\n").first { line in
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 8, line.contains(" " + description + ":") else { return false }
        return !fields[1].contains(where: { "RDNi".contains($0) })
    }.map(String.init)
}

@Suite("Vault: unlock cache (payload, kernel keyring, vault)")
struct VaultUnlockCacheTests {
    func makeVault(_ dir: URL, name: String = "v.coffer", credentials: [VaultCredential]? = nil) throws -> (Vault, String) {
        let path = dir.appendingPathComponent(name).path
        let vault = try Vault.create(at: path, credentials: credentials ?? [.password(try secure("pw"))],
                                     options: testOptions, entropy: .system)
        try vault.add(.genericPassword(service: "gh", account: "me"), secrets: ItemSecrets(password: try secure("s3cret")))
        return (vault, path)
    }

    func password(_ vault: Vault) throws -> String? {
        let item = try #require(try vault.firstItem(matching: ItemQuery(service: "gh")))
        return try vault.secrets(for: item.id).password?.testString
    }

    // MARK: Payload (SPEC.md §13.1)

    @Test("The payload is SPEC §13.1's layout, byte for byte, and decodes to what was encoded")
    func payloadLayout() throws {
        let kek = try SecureBytes(copying: Array(0..<32).map(UInt8.init))
        let identity = Array(repeating: UInt8(0xAB), count: 16)
        let slotKey = SlotKey(slotIdentity: identity, slotKind: .password, kek: kek)
        let unlock = CachedUnlock(vaultID: "00112233445566778899aabbccddeeff", path: "/home/a/v.coffer",
                                  expires: Date(millisecondsSince1970: 1_795_000_000_123), slotKey: slotKey)
        var expected = Array("coffer.unlock.v1".utf8)
        expected += [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff]
        expected += [1] + identity
        expected += withUnsafeBytes(of: UInt64(1_795_000_000_123).littleEndian, Array.init)
        expected += Array(0..<32).map(UInt8.init)
        expected += [16, 0] + Array("/home/a/v.coffer".utf8)
        let encoded = try unlock.encoded()
        #expect(encoded.withUnsafeBytes { Array($0) } == expected)
        let decoded = try CachedUnlock(decoding: encoded)
        #expect(decoded.vaultID == unlock.vaultID && decoded.path == unlock.path && decoded.expires == unlock.expires)
        #expect(decoded.slotKind == .password && decoded.slotKey.slotIdentity == identity && decoded.slotKey.kek == kek)
        #expect(!"\(decoded)".contains("0001020304") && "\(decoded)".contains(unlock.vaultID))
    }

    @Test("Any other payload is a typed malformed error: truncations, extra bytes, magic, slot type, path")
    func hostilePayloads() throws {
        let unlock = CachedUnlock(vaultID: String(repeating: "7", count: 32), path: "/v", expires: Date(),
                                  slotKey: SlotKey(slotIdentity: Array(repeating: 1, count: 16), slotKind: .keyFile,
                                                   kek: try SecureBytes.random(count: 32)))
        let good = try unlock.encoded().withUnsafeBytes { Array($0) }
        var bad: [[UInt8]] = (0..<good.count).map { Array(good[0..<$0]) }     // every truncation
        bad.append(good + [0])                                                  // a byte after the path
        var magic = good; magic[15] = UInt8(ascii: "2"); bad.append(magic)      // coffer.unlock.v2
        var type = good; type[32] = 9; bad.append(type)                         // an unknown slot type
        var path = good; path[path.count - 1] = 0xFF; bad.append(path)         // not UTF-8
        var long = good; long[good.count - 3] = 9; bad.append(long)             // path length past the end
        for bytes in bad {
            #expect(throws: CofferError.malformed) { try CachedUnlock(decoding: try SecureBytes(copying: bytes)) }
        }
        // Random bytes of every length around the valid ones: an error or a value, never a crash.
        var random = SeededRandom(seed: 17)
        for length in 0..<(good.count + 40) {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? CachedUnlock(decoding: try SecureBytes(copying: bytes))
        }
    }

    // MARK: The vault with an app-provided store

    @Test("A cached unlock opens the vault with no password; it is the slot's KEK, not the vault key")
    func opensWithoutPassword() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            let cached = try vault.cacheUnlock(in: cache, for: .seconds(60))
            #expect(cached.vaultID == vault.vaultID && cached.path.hasSuffix("/v.coffer") && cached.path.hasPrefix("/"))
            let before = cache.lookups
            let reopened = try #require(try Vault.open(at: path, unlockCache: cache, options: testOptions))
            #expect(cache.lookups == before + 1, "an open asks the cache once")
            #expect(try password(reopened) == "s3cret")
            // It saves like any vault, and the cache still opens the saved file.
            try reopened.add(.genericPassword(service: "more", account: "x"))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions)?.items().count == 2)
        }
    }

    @Test("Removing the slot it came from ends it; the cache forgets it and the vault asks for the password")
    func removedSlot() throws {
        try withTemporaryDirectory { dir in
            let keyFile = KeyFile(material: try SecureBytes.random(count: 64))
            let (vault, path) = try makeVault(dir, credentials: [.password(try secure("pw")), .keyFile(keyFile)])
            let cache = MemoryUnlockCache()
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            let other = try Vault.open(at: path, credential: .keyFile(keyFile), options: testOptions)
            try other.removeKeySlot(.password(try secure("pw")), rotatingKey: false)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
            // The handle that cached it can no longer cache: its slot is gone.
            _ = try vault.refresh()
            #expect(throws: CofferError.slotUnavailable) { try vault.cacheUnlock(in: cache, for: .seconds(60)) }
        }
    }

    @Test("A password change ends it")
    func passwordChange() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            try vault.changePassword(to: try secure("new password"))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
        }
    }

    @Test("A file replaced by another vault: no unlock, and the one made at that path is forgotten")
    func replacedFile() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            let (other, otherPath) = try makeVault(dir, name: "other.coffer")
            #expect(other.vaultID != vault.vaultID)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: otherPath, toPath: path)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
        }
    }

    @Test("A wrong key, another vault's slot, or an expired unlock never opens anything, and is forgotten")
    func wrongOrExpired() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            let good = try vault.cacheUnlock(in: cache, for: .seconds(60))
            // Same slot identity and vault id, random key: the slot's AEAD refuses it.
            cache.substitute = CachedUnlock(vaultID: good.vaultID, path: good.path, expires: good.expires,
                                            slotKey: SlotKey(slotIdentity: good.slotKey.slotIdentity, slotKind: .password,
                                                             kek: try SecureBytes.random(count: 32)))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
            // An app store that hands back an expired one: the vault checks the time too.
            try cache.store(good)
            cache.substitute = CachedUnlock(vaultID: good.vaultID, path: good.path, expires: Date(timeIntervalSinceNow: -1),
                                            slotKey: good.slotKey)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
            // One that names another vault.
            try cache.store(good)
            cache.substitute = CachedUnlock(vaultID: String(repeating: "0", count: 32), path: good.path, expires: good.expires,
                                            slotKey: good.slotKey)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(cache.count == 0)
        }
    }

    @Test("A damaged file opened through the cache gives the file's error and forgets the unlock")
    func damagedFile() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            // The last row's id in the manifest (its first occurrence): the manifest's MAC,
            // checked once the cached key unlocks the file, fails, so the file does not open
            // (SPEC.md §10). (A damaged overview alone no longer stops the open, §10 notes.)
            let id = try #require(try VaultFileV2.parse(bytes).records.map(\.id).max()).bytes
            let at = try #require((0...(bytes.count - id.count)).first { Array(bytes[$0..<($0 + id.count)]) == id })
            bytes[at + id.count - 1] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: CofferError.self) { try Vault.open(at: path, unlockCache: cache, options: testOptions) }
            #expect(error?.kind == .tampered)
            #expect(cache.count == 0)
        }
    }

    @Test("Without a cached unlock only the file's start is read: a damaged manifest is the password's open's error, not parsed twice")
    func noUnlockReadsTheStartOnly() throws {
        try withTemporaryDirectory { dir in
            let (_, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            // The records cut short: the header parses, the manifest's record lengths do not add up.
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            try Data(bytes.dropLast(7)).write(to: URL(fileURLWithPath: path))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            let error = #expect(throws: CofferError.self) { try Vault.open(at: path, password: try secure("pw"), options: testOptions) }
            #expect(error?.kind == .truncated)
            // A start that does not parse: its error, before the cache is asked.
            try Data(bytes.prefix(40)).write(to: URL(fileURLWithPath: path))
            #expect(throws: CofferError.self) { try Vault.open(at: path, unlockCache: cache, options: testOptions) }
        }
    }

    @Test("A locked vault caches nothing; a created vault caches its first slot")
    func lockedAndCreated() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = MemoryUnlockCache()
            #expect(throws: CofferError.invalidArgument) { try vault.cacheUnlock(in: cache, for: .zero) }
            try vault.cacheUnlock(in: cache, for: .seconds(60))     // straight after create
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) != nil)
            vault.lock()
            #expect(throws: CofferError.vaultLocked) { try vault.cacheUnlock(in: cache, for: .seconds(60)) }
        }
    }

    // MARK: The kernel keyring, for real

    @Test("Kernel keyring: stored possessor-only with a kernel timeout, read back, removed by lock")
    func kernelKeyring() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = KernelKeyring()
            let cached = try vault.cacheUnlock(in: cache, for: .seconds(120))
            defer { try? cache.remove(forVault: cached.vaultID) }
            let line = try #require(procKeysLine("coffer:v1:" + vault.vaultID), "no key in /proc/keys")
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields[4] == "2f000000", "permissions: \(line)")          // possessor only
            #expect(fields[3].hasSuffix("m") || fields[3].hasSuffix("s"), "timeout: \(line)")   // "2m", not "perm"
            #expect(fields[7] == "user")
            let back = try #require(try cache.cachedUnlock(forVault: vault.vaultID))
            #expect(back.slotKey.kek == cached.slotKey.kek && back.path == cached.path && back.expires == cached.expires)
            #expect(try cache.entries().contains { $0.vaultID == vault.vaultID })
            let reopened = try #require(try Vault.open(at: path, unlockCache: cache, options: testOptions))
            #expect(try password(reopened) == "s3cret")
            try cache.remove(forVault: vault.vaultID)
            #expect(try cache.cachedUnlock(forVault: vault.vaultID) == nil)
            #expect(procKeysLine("coffer:v1:" + vault.vaultID) == nil)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            // Unlocking again replaces the earlier one: still one key.
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            try vault.cacheUnlock(in: cache, for: .seconds(90))
            #expect(try cache.entries().filter { $0.vaultID == vault.vaultID }.count == 1)
            #expect(try cache.removeUnlocks(forVaultAt: path) == 1)
        }
    }

    @Test("Kernel keyring: the kernel's timeout ends it")
    func kernelExpiry() throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = KernelKeyring()
            try vault.cacheUnlock(in: cache, for: .seconds(1))
            defer { try? cache.remove(forVault: vault.vaultID) }
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) != nil)
            Thread.sleep(forTimeInterval: 2.2)
            #expect(try cache.cachedUnlock(forVault: vault.vaultID) == nil)
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
        }
    }

    @Test("Kernel keyring: a removed slot and a replaced file, as with any store")
    func kernelInvalidation() throws {
        try withTemporaryDirectory { dir in
            let keyFile = KeyFile(material: try SecureBytes.random(count: 64))
            let (vault, path) = try makeVault(dir, credentials: [.password(try secure("pw")), .keyFile(keyFile)])
            let cache = KernelKeyring()
            try vault.cacheUnlock(in: cache, for: .seconds(60))
            defer { try? cache.remove(forVault: vault.vaultID) }
            try Vault.open(at: path, credential: .keyFile(keyFile), options: testOptions).removeKeySlot(.password(try secure("pw")))
            #expect(try Vault.open(at: path, unlockCache: cache, options: testOptions) == nil)
            #expect(procKeysLine("coffer:v1:" + vault.vaultID) == nil)

            let (second, secondPath) = try makeVault(dir, name: "second.coffer")
            try second.cacheUnlock(in: cache, for: .seconds(60))
            defer { try? cache.remove(forVault: second.vaultID) }
            let (third, thirdPath) = try makeVault(dir, name: "third.coffer")
            try FileManager.default.removeItem(atPath: secondPath)
            try FileManager.default.copyItem(atPath: thirdPath, toPath: secondPath)
            #expect(try Vault.open(at: secondPath, unlockCache: cache, options: testOptions) == nil)
            #expect(try cache.cachedUnlock(forVault: second.vaultID) == nil)
            _ = third
        }
    }

    // MARK: No keyring (through the seam)

    func failing(_ operation: KeyctlOperation?, addKey: Int32? = nil, errno code: Int32) -> KeyringIO {
        let live = KeyringIO.live
        return KeyringIO(
            addKey: { description, payload, ring in
                if let addKey { return .failing(addKey) }
                return live.addKey(description, payload, ring)
            },
            keyctl: { op, a2, a3, a4, a5 in
                if operation == nil || op == operation { return .failing(code) }
                return live.keyctl(op, a2, a3, a4, a5)
            })
    }

    @Test("No kernel keyring, a blocked one, a full quota: a typed unavailable error; the password still opens",
          arguments: [ENOSYS, EPERM, EACCES])
    func noKeyring(code: Int32) throws {
        try withTemporaryDirectory { dir in
            let (vault, path) = try makeVault(dir)
            let cache = KernelKeyring(io: failing(nil, addKey: code, errno: code))
            #expect(throws: CofferError.unlockCacheUnavailable) { try vault.cacheUnlock(in: cache, for: .seconds(60)) }
            #expect(throws: CofferError.unlockCacheUnavailable) { try Vault.open(at: path, unlockCache: cache, options: testOptions) }
            let error = #expect(throws: CofferError.self) { try vault.cacheUnlock(in: cache, for: .seconds(60)) }
            #expect(error?.errno == code && error?.description.isEmpty == false)
            #expect(try password(try Vault.open(at: path, password: secure("pw"), options: testOptions)) == "s3cret")
        }
    }

    @Test("A quota that fills on add, or a timeout the kernel refuses: nothing is left in the keyring")
    func partialStore() throws {
        try withTemporaryDirectory { dir in
            let (vault, _) = try makeVault(dir)
            let quota = KernelKeyring(io: failing(nil, addKey: EDQUOT, errno: EDQUOT))
            #expect(throws: CofferError.unlockCacheUnavailable) { try vault.cacheUnlock(in: quota, for: .seconds(60)) }
            for operation in [KeyctlOperation.setTimeout, .setPermissions] {
                let cache = KernelKeyring(io: failing(operation, errno: EACCES))
                #expect(throws: CofferError.unlockCacheUnavailable) { try vault.cacheUnlock(in: cache, for: .seconds(60)) }
                #expect(try KernelKeyring().cachedUnlock(forVault: vault.vaultID) == nil, "left after \(operation) failed")
            }
        }
    }
}

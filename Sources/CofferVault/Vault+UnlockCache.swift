import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

extension Vault {
    /// Opens a vault with its cached unlock, with no password and no key derivation; nil
    /// when `unlockCache` holds none for this vault, or the one it holds no longer opens it.
    ///
    /// A cached unlock that has expired, whose key slot is gone from the file (a password
    /// change, a removed key file), or that was made at this path for another vault (the
    /// file was replaced) is removed from the cache, and nil is returned: ask for the
    /// password then, as before. One that opens the header but finds the file damaged is
    /// removed too, and the file's error is thrown, as a password would get it. A cached
    /// unlock never yields a wrong vault: it opens only through its slot's AEAD and the
    /// file's MACs (SPEC.md §13.1).
    ///
    /// File errors found before the cache is asked (no such file, not a vault) are thrown
    /// as by ``open(at:credential:options:)-(String,_,_)``, and a cache that cannot be used throws
    /// ``CofferError/Kind/unlockCacheUnavailable``.
    ///
    /// ```swift
    /// let cache = KernelKeyring()
    /// let vault = try Vault.open(at: path, unlockCache: cache)
    ///     ?? Vault.open(at: path, password: askForPassword())
    /// ```
    public static func open(at path: String, unlockCache: some UnlockCache,
                            options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault? {
        try open(at: path, unlockCache: unlockCache, options: options, entropy: .system)
    }

    static func open(at path: String, unlockCache cache: some UnlockCache, options: VaultOptions,
                     entropy: EntropySource, store: VaultFileStore? = nil, clock: WallClock = .system) throws(CofferError) -> Vault? {
        let store = store ?? VaultFileStore(path: path)
        let file = try VaultFileReader.readParsed(store)
        let parsed = file.parsed
        let vaultID = ItemID(validated: parsed.vaultID).hex
        // A cached unlock made at this path for another vault: the file was replaced.
        if let here = VaultFileStore.absolutePath(path) {
            for other in try cache.entries() where other.path == here && other.vaultID != vaultID {
                try cache.remove(forVault: other.vaultID)
            }
        }
        guard let cached = try cache.cachedUnlock(forVault: vaultID) else { return nil }
        guard cached.vaultID == vaultID, !cached.isExpired(at: clock.now()) else {
            try cache.remove(forVault: vaultID)
            return nil
        }
        do {
            guard let opened = try formatCall({ () throws(FormatError) in try parsed.unlock(with: cached.slotKey, entropy: entropy) }) else {
                try cache.remove(forVault: vaultID)
                return nil
            }
            // The overviews are checked here (SPEC.md §10): a damaged one forgets the unlock too.
            let vault = try Vault(opened: opened.codec, identity: file.identity, held: file.held, keys: opened.keys, slotKey: cached.slotKey,
                                  conversion: opened.conversion, path: path, options: options, store: store, entropy: entropy)
            vault.wallClock = clock
            return vault
        } catch {
            try? cache.remove(forVault: vaultID)
            throw error
        }
    }

    /// Keeps this vault's unlock in `cache` for `lifetime`, so that later processes open it
    /// with ``open(at:unlockCache:options:)-(String,_,_)`` and no password; returns what was cached.
    ///
    /// What is cached is the key-encryption key of the slot that opened this vault (see
    /// SPEC.md §13.1 for why not the vault key): it ends when that slot is removed, and
    /// when `lifetime` runs out. Throws ``CofferError/Kind/slotUnavailable`` when that slot
    /// is no longer in the file (this vault changed its password: open it again),
    /// ``CofferError/Kind/vaultLocked`` after ``lock()``, and the cache's errors.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: path, password: password)
    /// try vault.cacheUnlock(in: KernelKeyring(), for: .seconds(15 * 60))
    /// ```
    @discardableResult
    public func cacheUnlock(in cache: some UnlockCache, for lifetime: Duration) throws(CofferError) -> CachedUnlock {
        guard lifetime > .zero else { throw .invalidArgument("a cached unlock lasts longer than zero") }
        guard !isLocked else { throw .vaultLocked }
        guard let slotKey = openingSlotKey else {
            throw .slotUnavailable("the key slot this vault was opened with is gone; open it again to cache its unlock")
        }
        let milliseconds = lifetime.components.seconds * 1000 + lifetime.components.attoseconds / 1_000_000_000_000_000
        let unlock = CachedUnlock(vaultID: vaultID, path: VaultFileStore.absolutePath(path) ?? path,
                                  expires: Date(millisecondsSince1970: now().millisecondsSince1970 + milliseconds),
                                  slotKey: slotKey)
        try cache.store(unlock)
        return unlock
    }
}

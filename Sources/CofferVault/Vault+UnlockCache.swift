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
    /// Only the start of the file is read before the cache is asked: file errors found there
    /// (no such file, not a vault, a damaged header) are thrown as by
    /// ``open(at:credential:options:)-(String,_,_)``; one further in (a damaged manifest) is
    /// thrown when the cache holds an unlock, else by the open with a password that follows.
    /// A cache that cannot be used throws ``CofferError/Kind/unlockCacheUnavailable``.
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
        // A cached unlock made at this path for another vault: the file was replaced.
        func forgetReplaced(_ vaultID: String) throws(CofferError) {
            guard let here = VaultFileStore.absolutePath(path) else { return }
            for other in try cache.entries() where other.path == here && other.vaultID != vaultID {
                try cache.remove(forVault: other.vaultID)
            }
        }
        // The cache is asked first with the vault id of the file's start: without a cached
        // unlock (a command's usual case), the manifest is read and parsed once, by the open
        // with a password that follows, not here too (5.4 MB and 100,000 rows at 100,000
        // entries). A start that does not parse alone is parsed whole below, for its error.
        // The cache is asked once: an app's cache may ask for a touch or a Keychain prompt.
        var asked: (vaultID: String, unlock: CachedUnlock)?
        if let startID = VaultFileReader.vaultID(atStartOf: store) {
            let vaultID = ItemID(validated: startID).hex
            try forgetReplaced(vaultID)
            guard let unlock = try cache.cachedUnlock(forVault: vaultID) else { return nil }
            asked = (vaultID, unlock)
        }
        let file = try VaultFileReader.readParsed(store)
        let parsed = file.parsed
        let vaultID = ItemID(validated: parsed.vaultID).hex
        let cached: CachedUnlock
        if let asked, asked.vaultID == vaultID {
            cached = asked.unlock
        } else {
            // The start did not parse alone, or the file was replaced since it was read.
            try forgetReplaced(vaultID)
            guard let unlock = try cache.cachedUnlock(forVault: vaultID) else { return nil }
            cached = unlock
        }
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

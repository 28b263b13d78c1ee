import CofferCrypto
import CofferFormat

/// Where cached unlocks live between processes: the kernel keyring (``KernelKeyring``)
/// or a store an app provides, such as the macOS Keychain behind Touch ID.
///
/// A store keeps at most one ``CachedUnlock`` per vault id, gives it back only before
/// ``CachedUnlock/expires`` (the vault checks that too), and never writes it where it
/// outlives its expiry unencrypted: not to a plain file, an environment variable or a
/// command line. Every method throws ``CofferError/Kind/unlockCacheUnavailable`` when the
/// store cannot be used; callers then unlock by password as before.
///
/// An app's own store keeps the bytes of ``CachedUnlock/encoded()`` as a secret:
///
/// ```swift
/// final class KeychainUnlockCache: UnlockCache {
///     func store(_ unlock: CachedUnlock) throws(CofferError) {
///         let blob = try unlock.encoded()          // guarded memory
///         // SecItemAdd: kSecAttrAccount = unlock.vaultID, kSecValueData = blob, access
///         // control .biometryCurrentSet, so reading it asks for Touch ID.
///     }
///     func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? {
///         // SecItemCopyMatching (shows the Touch ID sheet), then:
///         // return try CachedUnlock(decoding: SecureBytes(copying: data))
///     }
///     func remove(forVault vaultID: String) throws(CofferError) { /* SecItemDelete */ }
///     func entries() throws(CofferError) -> [CachedUnlockEntry] {
///         // The items' attributes only (kept beside the secret, no Touch ID): no key is read.
///     }
/// }
/// ```
public protocol UnlockCache: Sendable {
    /// Keeps `unlock` for its vault until it expires, replacing any earlier one.
    func store(_ unlock: CachedUnlock) throws(CofferError)
    /// The vault's cached unlock, or nil when there is none or it expired.
    func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock?
    /// Forgets the vault's cached unlock at once; nothing happens when there is none.
    func remove(forVault vaultID: String) throws(CofferError)
    /// What every cached unlock that has not expired unlocks, without the keys: listing
    /// never hands out a key (and never needs a store's user-presence check).
    func entries() throws(CofferError) -> [CachedUnlockEntry]
}

extension UnlockCache {
    /// Forgets every cached unlock; returns how many there were.
    ///
    /// ```swift
    /// try KernelKeyring().removeAll()   // `coffer lock --all`
    /// ```
    @discardableResult
    public func removeAll() throws(CofferError) -> Int {
        let all = try entries()
        for entry in all { try remove(forVault: entry.vaultID) }
        return all.count
    }
}

// "Use Touch ID" of seed 000, as an app-provided `UnlockCache`: a stand-in for a
// Keychain item that only Touch ID releases.
import Coffer
import ExampleSupport
import Foundation

/// Keeps each vault's cached unlock as a secret and hands it back only after the user
/// confirms their presence: the touch.
///
/// "Enable Touch ID" caches the unlock of the password slot that opened the vault
/// (`vault.cacheUnlock(in:for:)`): the vault gets no new key slot and no key file is
/// written. "Use Touch ID" opens the vault with it (`Vault.open(at:unlockCache:)`) and no
/// password; ``cachedUnlock(forVault:)`` asks for the touch first, and a declined touch
/// throws, so nothing opens. The unlock still ends at its expiry and when its slot
/// leaves the file (a changed password).
///
/// The stand-in keeps the bytes of `CachedUnlock.encoded()` in this process's guarded
/// memory (`SecureBytes`), so "Use Touch ID" works until the app quits, and nothing reaches
/// the disk. It does not use `KernelKeyring`: that keyring is shared by every process of
/// the session, and `coffer` or any other app there could open the vault from it without
/// the touch. A macOS app keeps the same bytes in the Keychain, behind Touch ID, where they
/// outlive the app. The same protocol, with the Keychain:
///
/// ```swift
/// import LocalAuthentication
/// import Security
///
/// final class KeychainUnlockCache: UnlockCache {
///     let service = "com.example.accountsbook.unlock"
///
///     func store(_ unlock: CachedUnlock) throws(CofferError) {
///         let blob = try unlock.encoded()                       // the payload: a secret
///         let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
///                                                      .biometryCurrentSet, nil)!   // a new finger ends it
///         try remove(forVault: unlock.vaultID)
///         let status = blob.withUnsafeBytes { bytes in
///             SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrService: service,
///                         kSecAttrAccount: unlock.vaultID, kSecAttrAccessControl: access,
///                         kSecValueData: Data(bytes)] as CFDictionary, nil)   // no prompt to add
///         }
///         guard status == errSecSuccess else { throw .unlockCacheUnavailable("SecItemAdd: \(status)") }
///     }
///
///     func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? {
///         let context = LAContext()
///         context.localizedReason = "open your accounts"
///         var data: CFTypeRef?
///         let status = SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecAttrService: service,
///                                           kSecAttrAccount: vaultID, kSecReturnData: true,
///                                           kSecUseAuthenticationContext: context] as CFDictionary, &data)
///         switch status {                                        // the Touch ID sheet shows here
///         case errSecSuccess: break
///         case errSecItemNotFound: return nil
///         case errSecUserCanceled, errSecAuthFailed: throw .unlockCacheUnavailable("Touch ID was not confirmed")
///         default: throw .unlockCacheUnavailable("SecItemCopyMatching: \(status)")
///         }
///         let unlock = try CachedUnlock(decoding: SecureBytes(copying: data as! Data))
///         guard !unlock.isExpired() else { try remove(forVault: vaultID); return nil }   // items never expire
///         return unlock
///     }
///
///     func remove(forVault vaultID: String) throws(CofferError) {          // no prompt to delete
///         SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service,
///                        kSecAttrAccount: vaultID] as CFDictionary)
///     }
///
///     func entries() throws(CofferError) -> [CachedUnlockEntry] {
///         // SecItemCopyMatching with kSecMatchLimitAll and kSecReturnAttributes only (no
///         // kSecReturnData): the vault id, path, slot kind and expiry were saved in the
///         // item's attributes by `store`, so listing asks for no touch and reads no key.
///     }
/// }
/// ```
final class TouchIDUnlockCache: UnlockCache, @unchecked Sendable {
    /// Asks the user to confirm their presence for `reason`; true when they did.
    typealias PresenceCheck = @Sendable (_ reason: String) -> Bool

    /// What the Touch ID sheet says.
    static let reason = "open your accounts"

    private let confirmPresence: PresenceCheck
    private let lock = NSLock()
    /// Vault id -> the bytes of `CachedUnlock.encoded()`, in guarded memory.
    private var secrets: [String: SecureBytes] = [:]
    /// Vault id -> what it unlocks, kept beside the secret (as a Keychain item's
    /// attributes are), so listing reads no key and asks for no touch.
    private var listed: [String: CachedUnlockEntry] = [:]
    private var touches = 0

    /// `confirmPresence` is the touch: a prompt on the terminal, the scripted answer in
    /// the walk-through, the sensor in a real app.
    init(confirmPresence: @escaping PresenceCheck) {
        self.confirmPresence = confirmPresence
    }

    /// How many times the touch was asked for.
    var touchesAsked: Int { lock.withLock { touches } }

    /// Keeps `unlock`, replacing the vault's earlier one. Adding asks for no touch, as
    /// adding a Keychain item does not.
    func store(_ unlock: CachedUnlock) throws(CofferError) {
        guard !unlock.isExpired() else { throw .invalidArgument("the cached unlock has already expired") }
        let secret = try unlock.encoded()
        lock.withLock {
            secrets[unlock.vaultID.lowercased()] = secret
            listed[unlock.vaultID.lowercased()] = unlock.entry
        }
    }

    /// The vault's cached unlock, after the touch; nil when there is none or it expired
    /// (asking for no touch then). A declined touch throws
    /// `CofferError.unlockCacheUnavailable`, so `Vault.open(at:unlockCache:)` opens nothing
    /// and the unlock stays for the next try.
    func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? {
        guard let unlock = try unexpired(vaultID.lowercased()) else { return nil }
        lock.withLock { touches += 1 }
        guard confirmPresence(Self.reason) else { throw .unlockCacheUnavailable("Touch ID was not confirmed") }
        return unlock
    }

    func remove(forVault vaultID: String) throws(CofferError) {
        lock.withLock {
            secrets.removeValue(forKey: vaultID.lowercased())   // its memory is wiped when freed
            listed.removeValue(forKey: vaultID.lowercased())
        }
    }

    /// What every unexpired cached unlock opens, without a touch and without reading a
    /// key: `Vault.open(at:unlockCache:)` lists them to forget those of a replaced vault
    /// file, and "Delete Login" forgets them by id. Only ``cachedUnlock(forVault:)``, the
    /// one a vault opens with, asks for the touch, as with the Keychain above.
    func entries() throws(CofferError) -> [CachedUnlockEntry] {
        let all = lock.withLock { Array(listed.values) }
        for entry in all where entry.isExpired() { try remove(forVault: entry.vaultID) }
        return all.filter { !$0.isExpired() }.sorted { $0.vaultID < $1.vaultID }
    }

    /// The kept unlock of `vaultID`, decoded; an expired one is forgotten.
    private func unexpired(_ vaultID: String) throws(CofferError) -> CachedUnlock? {
        guard let secret = lock.withLock({ secrets[vaultID] }) else { return nil }
        let unlock = try CachedUnlock(decoding: secret)
        guard !unlock.isExpired() else {
            try remove(forVault: vaultID)
            return nil
        }
        return unlock
    }
}

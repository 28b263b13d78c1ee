import CofferCrypto
import CofferFormat
import CofferStore

extension UnlockCache {
    /// Forgets the cached unlock of the vault at `path` (by its vault id), and any made at
    /// that path for another vault (the file was replaced or deleted since). Returns how
    /// many were removed. A missing or unreadable file only removes those made at `path`.
    ///
    /// ```swift
    /// try KernelKeyring().removeUnlocks(forVaultAt: "vault.coffer")   // `coffer lock vault.coffer`
    /// ```
    @discardableResult
    public func removeUnlocks(forVaultAt path: String) throws(CofferError) -> Int {
        let vaultID = try? Vault.info(at: path).vaultID
        let here = VaultFileStore.absolutePath(path)
        var removed = 0
        for unlock in try entries() where unlock.vaultID == vaultID || unlock.path == here {
            try remove(forVault: unlock.vaultID)
            removed += 1
        }
        return removed
    }
}

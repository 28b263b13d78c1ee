import CofferCrypto
import CofferStore

/// What ``Vault/putAwayMergedCopy(at:unchangedSince:_:)`` does with a copy once it is merged.
public enum MergedCopyDisposal: Sendable, Hashable {
    /// Move the copy into `folder` (which must exist; ``Vault/mergedCopiesFolder(forVaultAt:creating:)``
    /// makes the usual one), keeping its name; when the name is taken there, with `~2`, `~3`…
    /// before its extension. A file already there is never replaced. Across file systems the
    /// copy is copied (mode 0600, flushed to disk), then removed.
    case move(into: String)
    /// Delete the copy.
    case delete
}

/// What became of a merged copy (``Vault/putAwayMergedCopy(at:unchangedSince:_:)``).
public enum MergedCopyOutcome: Sendable, Hashable {
    /// Moved; the new path.
    case moved(to: String)
    /// Deleted.
    case deleted
    /// The file is not the version noted before the merge (a sync service was still
    /// writing it, or replaced it): left in place, so that merging it again takes the
    /// change in.
    case changed
}

extension Vault {
    /// The folder merged copies of the vault at `vaultPath` are moved into: `.coffer-merged`
    /// beside the file the path finally names (after symbolic links), where sync services
    /// leave their conflict copies (``conflictCopies(of:)-(String)``). A folder inside the
    /// synced folder is synced too, so the copies stay recoverable on every device.
    ///
    /// With `creating`, a missing folder is created with mode 0700. Something other than a
    /// folder at its path throws ``CofferError/Kind/fileExists``; a folder that cannot be
    /// made, ``CofferError/Kind/io``.
    ///
    /// ```swift
    /// let folder = try Vault.mergedCopiesFolder(forVaultAt: "/home/me/Sync/vault.coffer")
    /// // "/home/me/Sync/.coffer-merged", now a folder
    /// ```
    public static func mergedCopiesFolder(forVaultAt vaultPath: String, creating: Bool = true) throws(CofferError) -> String {
        try storeCall { () throws(StoreError) in
            let folder = try VaultFileStore(path: vaultPath).mergedCopiesFolder()
            if creating { try MergedCopyStore().prepareFolder(folder) }
            return folder
        }
    }

    /// Puts away a copy of a vault once it has been merged (``merge(contentsOf:)-(String)``
    /// returned, so the vault is saved with it): moves it aside or deletes it, so that it is
    /// not merged again. Only if `path` still names the version noted before the merge read
    /// it (``FileVersion``); otherwise nothing is done and the result is
    /// ``MergedCopyOutcome/changed``.
    ///
    /// On failure the copy stays where it was, nothing is left in the folder, and the error
    /// is ``CofferError/Kind/io`` naming the call that failed; the vault is never touched.
    /// Merging a copy again changes nothing, so a copy left behind does no harm.
    ///
    /// ```swift
    /// guard let noted = FileVersion(of: copyPath) else { return }    // before the merge reads it
    /// try vault.merge(contentsOf: copyPath)                            // saved atomically
    /// let folder = try Vault.mergedCopiesFolder(forVaultAt: vaultPath)  // .coffer-merged, mode 0700
    /// switch try Vault.putAwayMergedCopy(at: copyPath, unchangedSince: noted, .move(into: folder)) {
    /// case .moved(let moved): print("merged; the copy is now \(moved)")
    /// case .deleted: break
    /// case .changed: print("rewritten since it was merged: merge it again")
    /// }
    /// ```
    public static func putAwayMergedCopy(at path: String, unchangedSince noted: FileVersion,
                                         _ disposal: MergedCopyDisposal) throws(CofferError) -> MergedCopyOutcome {
        try storeCall { () throws(StoreError) in
            let store = MergedCopyStore()
            switch disposal {
            case .move(let folder):
                guard let moved = try store.move(path, into: folder, unchangedSince: noted.identity) else { return .changed }
                return .moved(to: moved)
            case .delete:
                return try store.delete(path, unchangedSince: noted.identity) ? .deleted : .changed
            }
        }
    }
}

import CofferCrypto
import CofferStore

/// What ``Vault/putAwayMergedCopy(at:unchangedSince:_:)`` does with a copy once it is merged.
public enum MergedCopyDisposal: Sendable, Hashable {
    /// Move the copy into `folder` (which must exist; ``Vault/mergedCopiesFolder(forVaultAt:state:creating:)``
    /// makes the usual one, in this device's state folder), keeping its name; when the name is
    /// taken there, with `~2`, `~3`… before its extension. A file already there is never
    /// replaced. Across file systems the copy is copied (mode 0600, flushed to disk), then removed.
    case move(into: String)
    /// Delete the copy: everything it held is in the vault, which was saved first.
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
    /// Where this device keeps merged copies of the vault at `vaultPath` when an app keeps
    /// them at all: `merged/<vault id>` in the device's state folder (`state`, by default
    /// `$XDG_STATE_HOME/coffer`, else `~/.local/state/coffer`; ``ReplicaStateLocation``),
    /// outside the synced folder. A copy left inside a synced folder would travel to every
    /// device and keep opening with every password it ever had, so merged copies are
    /// deleted (``MergedCopyDisposal/delete``, what `coffer sync` does) or kept here, on
    /// this device only.
    ///
    /// Reads the vault's header (for its id; no password). With `creating`, missing
    /// folders are created with mode 0700. Something other than a folder at its path throws
    /// ``CofferError/Kind/fileExists``; a folder that cannot be made, ``CofferError/Kind/io``;
    /// no state folder (`state` is ``ReplicaStateLocation/none``, or neither
    /// `XDG_STATE_HOME` nor `HOME` is an absolute path), ``CofferError/Kind/fileNotFound``.
    ///
    /// ```swift
    /// let folder = try Vault.mergedCopiesFolder(forVaultAt: "/home/me/Sync/vault.coffer")
    /// // "/home/me/.local/state/coffer/merged/<vault id>", now a folder
    /// ```
    public static func mergedCopiesFolder(forVaultAt vaultPath: String, state: ReplicaStateLocation = .standard,
                                          creating: Bool = true) throws(CofferError) -> String {
        guard let directory = state.folder else {
            throw CofferError(.fileNotFound, detail: "no state folder for merged copies (XDG_STATE_HOME and HOME are not absolute paths, or the state is .none)")
        }
        let vaultID = try info(at: vaultPath).vaultID
        return try storeCall { () throws(StoreError) in
            let store = ReplicaStateStore(directory: directory)
            let folder = store.mergedCopiesFolder(vaultID: vaultID)
            if creating {
                try store.ensureDirectory(PathName.parent(of: folder))
                try MergedCopyStore().prepareFolder(folder)
            }
            return folder
        }
    }

    /// Puts away a copy of a vault once it has been merged (``merge(contentsOf:)-(String)``
    /// returned, so the vault is saved with it and the copy passed every check): deletes it,
    /// or moves it aside, so that it is not merged again. Only if `path` still names the
    /// version noted before the merge read it (``FileVersion``); otherwise nothing is done
    /// and the result is ``MergedCopyOutcome/changed``.
    ///
    /// Delete merged copies, or move them into ``mergedCopiesFolder(forVaultAt:state:creating:)``
    /// (this device's state folder): never into a folder that is synced, where they would
    /// keep opening with old passwords on every device.
    ///
    /// On failure the copy stays where it was, nothing is left in the folder, and the error
    /// is ``CofferError/Kind/io`` naming the call that failed; the vault is never touched.
    /// Merging a copy again changes nothing, so a copy left behind does no harm.
    ///
    /// ```swift
    /// guard let noted = FileVersion(of: copyPath) else { return }    // before the merge reads it
    /// try vault.merge(contentsOf: copyPath)                            // checked, saved atomically
    /// switch try Vault.putAwayMergedCopy(at: copyPath, unchangedSince: noted, .delete) {
    /// case .deleted: print("merged; the copy is gone")
    /// case .moved(let moved): print("merged; the copy is now \(moved)")
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

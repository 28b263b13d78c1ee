import CofferCrypto

/// The kinds of error the vault owns: items and names, transactions and key slots, and
/// the replicas of one vault (conflicting saves, other vaults, rolled-back files).
extension CofferError.Kind {
    // MARK: Items
    /// No item matches the query.
    public static let itemNotFound = Self("itemNotFound") { _ in "no item matched" }
    /// A name matches several items (``Vault/item(named:)``); the detail lists them by
    /// label and short id, so one can be named by its id.
    public static let ambiguousItem = Self("ambiguousItem",
                                           recoverySuggestion: "Name the item by its id (or its first 8 digits), or add its account.") {
        "several items match: \($0.shownDetail)"
    }
    /// An item with the same unique key already exists.
    public static let duplicateItem = Self("duplicateItem") { _ in "item already exists" }
    /// A stored value is not of the type asked for (``ServiceKeychain``-style access).
    public static let valueTypeMismatch = Self("valueTypeMismatch") { "wrong value type: \($0.shownDetail)" }

    /// A request from another program is not as its protocol says (a git credential
    /// request, an SSH agent message): too large, truncated, or with a line or field it
    /// does not allow. The detail names what; it never holds a secret.
    public static let malformedRequest = Self("malformedRequest") { "malformed request (\($0.shownDetail))" }

    // MARK: The open vault
    /// The vault is locked: its keys were wiped. Open it again.
    public static let vaultLocked = Self("vaultLocked",
                                         failureReason: "The vault's keys were wiped when it was locked.",
                                         recoverySuggestion: "Unlock the vault again.") { _ in "vault is locked" }
    /// The transaction has ended; start a new one.
    public static let transactionEnded = Self("transactionEnded") { _ in "the transaction has ended; start a new one" }
    /// The vault opens only with a key file (its slots are `key-file` or
    /// `password+key-file` ones), and none was given: thrown before any password is asked
    /// for (``Vault/open(at:keyFile:options:askPassword:)-(String,_,_,_)``).
    public static let keyFileRequired = Self("keyFileRequired",
                                             recoverySuggestion: "Choose the vault's key file and try again.") {
        "a key file is required" + ($0.detail.map { ": \($0)" } ?? "")
    }
    /// No key slot has this index.
    public static let noSuchKeySlot = Self("noSuchKeySlot") { "no such key slot: \($0.shownDetail)" }

    // MARK: Replicas
    /// The file changed on disk since it was opened and the change cannot be merged.
    public static let conflict = Self("conflict",
                                      failureReason: "Another process changed the same data since the vault was read.",
                                      recoverySuggestion: "Refresh the vault and make the change again.") {
        "vault changed on disk and cannot be merged: \($0.shownDetail)"
    }
    /// A file offered as a replica of this vault (a copy to merge) holds another vault:
    /// its vault id differs. It is left untouched.
    public static let differentVault = Self("differentVault",
                                            failureReason: "The file is a copy of another vault (its vault id differs).") {
        "not a replica of this vault: \($0.shownDetail)"
    }
    /// A copy offered as a replica of this vault (a copy to merge, a conflict copy, the
    /// file another process wrote, the backup) is sealed under another key epoch: the vault
    /// key was rotated (``Vault/rotateKey()``, `coffer rekey`) on one side after the copy
    /// was made. Merging across a rotation (SPEC.md §17.8) is not supported yet, so the copy
    /// is refused whole and left untouched: nothing of it is merged and none of its key
    /// slots is added. The detail says which side was rotated.
    public static let otherKeyEpoch = Self(
        "otherKeyEpoch",
        failureReason: "The copy and this vault are sealed under different vault keys: the key was rotated (rekey) on one side after the copy was made.",
        recoverySuggestion: "Merging across a key rotation is not supported yet: make the copy's changes again in the vault that was rotated, then delete the copy."
    ) { "sealed under another vault key: \($0.shownDetail)" }
    /// The vault file is older than a version this device has already seen (it lacks
    /// edits this device saw, and merging would not bring them back): restored from a
    /// backup, or put back by a sync tool. Saves are refused until the rollback is
    /// accepted (``Vault/acceptRollback()``); see ``Vault/rollback``.
    public static let rolledBack = Self(
        "rolledBack",
        failureReason: "The file lacks changes this device has already seen: it was restored from a backup or put back by a sync tool.",
        recoverySuggestion: "Accept the rollback to keep this version, or restore the newer copy."
    ) { "the vault file was rolled back: \($0.shownDetail)" }
    /// A copy this device already refused to merge, unchanged since: it was not read again
    /// (``Vault/mergeConflictCopy(at:rereadingRefused:)``); the detail says when and why.
    public static let refusedBefore = Self(
        "refusedBefore",
        failureReason: "This device refused the copy before (another vault, damaged, or too large), and the file has not changed since.",
        recoverySuggestion: "Remove the copy, or read it again (`coffer sync --retry-refused`)."
    ) { "refused before and unchanged since: \($0.shownDetail)" }
}

// MARK: Static members, so `throw .itemNotFound` and `catch CofferError.itemNotFound` read well.
extension CofferError {
    public static let itemNotFound = CofferError(Kind.itemNotFound)
    public static let ambiguousItem = CofferError(Kind.ambiguousItem)
    public static func ambiguousItem(_ candidates: String) -> CofferError { CofferError(Kind.ambiguousItem, detail: candidates) }
    public static let duplicateItem = CofferError(Kind.duplicateItem)
    public static let malformedRequest = CofferError(Kind.malformedRequest)
    public static func malformedRequest(_ why: String) -> CofferError { CofferError(Kind.malformedRequest, detail: why) }
    public static let valueTypeMismatch = CofferError(Kind.valueTypeMismatch)
    public static func valueTypeMismatch(_ why: String) -> CofferError { CofferError(Kind.valueTypeMismatch, detail: why) }

    public static let vaultLocked = CofferError(Kind.vaultLocked)
    public static let transactionEnded = CofferError(Kind.transactionEnded)
    public static let keyFileRequired = CofferError(Kind.keyFileRequired)
    public static func keyFileRequired(_ why: String) -> CofferError { CofferError(Kind.keyFileRequired, detail: why) }
    public static let noSuchKeySlot = CofferError(Kind.noSuchKeySlot)
    public static func noSuchKeySlot(_ index: Int) -> CofferError { CofferError(Kind.noSuchKeySlot, detail: "index \(index)") }

    public static let conflict = CofferError(Kind.conflict)
    public static func conflict(_ why: String) -> CofferError { CofferError(Kind.conflict, detail: why) }
    public static let differentVault = CofferError(Kind.differentVault)
    public static func differentVault(_ why: String) -> CofferError { CofferError(Kind.differentVault, detail: why) }
    public static let otherKeyEpoch = CofferError(Kind.otherKeyEpoch)
    public static func otherKeyEpoch(_ why: String) -> CofferError { CofferError(Kind.otherKeyEpoch, detail: why) }
    public static let rolledBack = CofferError(Kind.rolledBack)
    public static func rolledBack(_ why: String) -> CofferError { CofferError(Kind.rolledBack, detail: why) }
    public static let refusedBefore = CofferError(Kind.refusedBefore)
    public static func refusedBefore(_ why: String, path: String) -> CofferError { CofferError(Kind.refusedBefore, detail: why, path: path) }
}

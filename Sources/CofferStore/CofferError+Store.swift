import CofferCrypto

/// The kinds of error the store owns: the files it creates and checks, the write lock,
/// and the unlock cache. (A failed system call, a missing file and a file too large are
/// the crypto layer's, as every layer that meets the system gives them.)
extension CofferError.Kind {
    /// Creating: a file already exists at ``CofferError/path``.
    public static let fileExists = Self("fileExists",
                                        recoverySuggestion: "Choose another file name, or delete the existing file first.") {
        "file exists: \($0.path ?? "?")"
    }
    /// The path names something other than a regular file (a folder, a device, a FIFO).
    public static let notARegularFile = Self("notARegularFile") { "not a regular file: \($0.shownDetail)" }
    /// A secret file (a key file) that others may read or write: its mode allows more than its owner.
    public static let insecurePermissions = Self(
        "insecurePermissions",
        failureReason: "Other users may read or write the file.",
        recoverySuggestion: "Make the file readable and writable by its owner only (chmod 600)."
    ) { "unsafe file permissions: \($0.shownDetail)" }
    /// Another process holds the vault's write lock past the timeout.
    public static let lockTimeout = Self(
        "lockTimeout",
        failureReason: "Another process holds the vault's write lock.",
        recoverySuggestion: "Another process is using the vault: wait for it to finish, or close it, and try again."
    ) { "timed out waiting for the lock on \($0.path ?? "?")" }
    /// The unlock cache cannot be used: no kernel keyring (a kernel without keys, a
    /// container that filters the calls), its quota is full, or an app's store failed.
    /// ``CofferError/errno`` is the C error number when there is one. Unlocking by
    /// password works as before.
    public static let unlockCacheUnavailable = Self("unlockCacheUnavailable",
                                                    recoverySuggestion: "Unlock the vault with its password.") { error in
        "the unlock cache is unavailable: \(error.shownDetail)" + (error.errno.map { " (\(CofferError.errnoText($0)))" } ?? "")
    }
}

// MARK: Static members, so `throw .fileExists(path)` and `catch CofferError.fileExists` read well.
extension CofferError {
    public static let fileExists = CofferError(Kind.fileExists)
    public static func fileExists(_ path: String) -> CofferError { CofferError(Kind.fileExists, path: path) }
    public static let notARegularFile = CofferError(Kind.notARegularFile)
    public static func notARegularFile(_ why: String, path: String) -> CofferError { CofferError(Kind.notARegularFile, detail: why, path: path) }
    public static let insecurePermissions = CofferError(Kind.insecurePermissions)
    public static func insecurePermissions(_ why: String, path: String) -> CofferError { CofferError(Kind.insecurePermissions, detail: why, path: path) }
    public static let lockTimeout = CofferError(Kind.lockTimeout)
    public static func lockTimeout(_ path: String) -> CofferError { CofferError(Kind.lockTimeout, path: path) }
    public static let unlockCacheUnavailable = CofferError(Kind.unlockCacheUnavailable)
    public static func unlockCacheUnavailable(_ why: String, errno: Int32? = nil) -> CofferError {
        CofferError(Kind.unlockCacheUnavailable, detail: why, errno: errno)
    }
}

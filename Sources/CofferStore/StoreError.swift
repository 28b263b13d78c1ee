import CofferCrypto
import CofferFormat

/// What the store layer throws: files, locks and atomic saves. Layers above see it only
/// through ``CofferError/init(_:)-(StoreError)``, the one conversion, or switch on it where
/// the store's outcome matters (e.g. ``StoreOperation/syncDirectory`` after a commit).
package enum StoreError: Error, Sendable, Equatable {
    /// Creating: a file exists at the path.
    case fileExists(String)
    /// The file (or, when creating, its folder) does not exist.
    case fileNotFound(String)
    /// The path names something other than a regular file; the detail says which.
    case notARegularFile(String, path: String)
    /// A secret file whose mode lets others read or write it; the detail says which.
    case insecurePermissions(String, path: String)
    /// A file is over the size the store reads or writes for its purpose.
    case fileTooLarge(String, path: String)
    /// The vault file is over ``VaultFileStore/maximumFileSize``: no vault is that large.
    case vaultTooLarge(String)
    /// The file ended before bytes it had when it was opened (another program truncated it
    /// in place while it was read): the detail says where.
    case changedWhileRead(String, path: String)
    /// Another process holds the lock on the path past the timeout.
    case lockTimeout(String)
    /// A system call failed.
    case system(StoreOperation, path: String, errno: Int32)
    /// The caller passed a value the store cannot use (a vault id of the wrong length).
    case invalidArgument(String)
    /// The crypto layer failed (guarded memory for a secret file).
    case crypto(CofferError)
}

extension CofferError {
    /// The store's errors as the public error: the one place they are converted.
    package init(_ error: StoreError) {
        switch error {
        case .fileExists(let path): self = .fileExists(path)
        case .fileNotFound(let path): self = .fileNotFound(path)
        case .notARegularFile(let why, let path): self = .notARegularFile(why, path: path)
        case .insecurePermissions(let why, let path): self = .insecurePermissions(why, path: path)
        case .fileTooLarge(let why, let path): self = .fileTooLarge(why, path: path)
        // A vault file over 1 GiB is not a vault Coffer wrote: reported as malformed.
        case .vaultTooLarge(let path): self = CofferError(.malformed, detail: "file larger than 1 GiB", path: path)
        case .changedWhileRead(let why, let path): self = CofferError(.truncated, detail: why, path: path)
        case .lockTimeout(let path): self = .lockTimeout(path)
        case .system(let operation, let path, let code): self = .io(operation: operation.description, path: path, errno: code)
        case .invalidArgument(let why): self = .invalidArgument(why)
        case .crypto(let error): self = error
        }
    }
}

/// Runs a store call for a layer above, converting its error to ``CofferError``.
package func storeCall<R>(_ body: () throws(StoreError) -> R) throws(CofferError) -> R {
    do {
        return try body()
    } catch {
        throw CofferError(error)
    }
}

/// The kinds of error the crypto layer owns: its own failures, the bounds of its
/// arguments and of key derivation, and the operating system's answers (a failed system
/// call, a missing or oversized file), which every layer that meets the system gives:
/// process hardening here, the generator's bundled lists, the store's files.
extension CofferError.Kind {
    // MARK: Arguments
    /// A low-level argument is outside its documented domain (a negative count, a
    /// range, a buffer or output length): a programming error, not bad input.
    public static let invalidArgument = Self("invalidArgument") { "invalid argument: \($0.shownDetail)" }
    /// A key is unusable: a raw key that is not 32 bytes, an empty key file.
    public static let invalidKey = Self("invalidKey") { "invalid key: \($0.shownDetail)" }
    /// A structure is not encoded as SPEC.md requires; the detail names it.
    public static let malformed = Self("malformed", failureReason: nil,
                                       recoverySuggestion: "Restore the vault from a backup (its .bak file or another copy).") {
        "malformed vault (\($0.shownDetail))"
    }

    // MARK: Key derivation
    /// Key-derivation parameters are outside the bounds in SPEC.md §9: one kind whether
    /// they come from the caller (creating a slot, calibrating) or from a file being read.
    /// (SPEC.md names this kind, so it keeps its name.)
    public static let kdfParametersOutOfBounds = Self("kdfParametersOutOfBounds") {
        "key-derivation parameters out of bounds (\($0.shownDetail))"
    }
    /// The slots an unlock would try cost more key derivation than the ``KDFLimit`` in
    /// force (`VaultOptions.kdfLimit`), or new slots would: refused before any KDF runs.
    /// The detail names the cost and the limit.
    public static let kdfCostTooHigh = Self(
        "kdfCostTooHigh",
        failureReason: "The vault asks for more key derivation (memory or passes) than this app allows.",
        recoverySuggestion: "If you trust this vault, raise the key-derivation limit (VaultOptions.kdfLimit) and open it again."
    ) { "key derivation would cost more than the limit: \($0.shownDetail)" }
    /// The key-derivation function failed; the detail is the library's message.
    public static let kdfFailed = Self("kdfFailed") { "key derivation failed: \($0.shownDetail)" }

    // MARK: Primitives
    /// An AEAD open failed: wrong key, nonce, associated data or modified ciphertext.
    public static let authenticationFailed = Self("authenticationFailed") { _ in "authentication failed" }
    /// An AEAD seal failed (libsodium refused to encrypt).
    public static let sealFailed = Self("sealFailed") { _ in "encryption failed" }
    /// A cryptographic primitive (libsodium, libcrypto) returned an error.
    public static let cryptoFailure = Self("cryptoFailure") { "cryptographic operation failed: \($0.shownDetail)" }
    /// Guarded memory (`sodium_malloc`) or libsodium initialisation is unavailable.
    public static let secureMemoryUnavailable = Self("secureMemoryUnavailable") { _ in "secure memory is unavailable" }

    // MARK: The operating system
    /// A system call failed; ``CofferError/errno`` is the C error number.
    public static let io = Self("io") { error in
        "I/O error: \(error.detail ?? "a system call") failed for \(error.path ?? "?"): \(error.errno.map(CofferError.errnoText) ?? "unknown error")"
    }
    /// The vault file, key file or folder at ``CofferError/path`` does not exist.
    public static let fileNotFound = Self("fileNotFound", recoverySuggestion: "Check the path and try again.") {
        "no such file: \($0.path ?? "?")"
    }
    /// A file is larger than Coffer reads or writes for its purpose.
    public static let fileTooLarge = Self("fileTooLarge") { "file too large: \($0.shownDetail)" }
}

// MARK: Static members, so `throw .invalidKey(…)` and `catch CofferError.invalidKey` read well.
// A kind with a detail has both a value (for matching) and a function (for throwing).
extension CofferError {
    public static let invalidArgument = CofferError(Kind.invalidArgument)
    public static func invalidArgument(_ why: String) -> CofferError { CofferError(Kind.invalidArgument, detail: why) }
    public static let invalidKey = CofferError(Kind.invalidKey)
    public static func invalidKey(_ why: String) -> CofferError { CofferError(Kind.invalidKey, detail: why) }
    public static let malformed = CofferError(Kind.malformed)
    public static func malformed(_ structure: String) -> CofferError { CofferError(Kind.malformed, detail: structure) }

    public static let kdfParametersOutOfBounds = CofferError(Kind.kdfParametersOutOfBounds)
    public static func kdfParametersOutOfBounds(_ why: String) -> CofferError { CofferError(Kind.kdfParametersOutOfBounds, detail: why) }
    public static let kdfCostTooHigh = CofferError(Kind.kdfCostTooHigh)
    public static func kdfCostTooHigh(_ why: String) -> CofferError { CofferError(Kind.kdfCostTooHigh, detail: why) }
    public static let kdfFailed = CofferError(Kind.kdfFailed)
    public static func kdfFailed(_ why: String) -> CofferError { CofferError(Kind.kdfFailed, detail: why) }

    public static let authenticationFailed = CofferError(Kind.authenticationFailed)
    public static let sealFailed = CofferError(Kind.sealFailed)
    public static let cryptoFailure = CofferError(Kind.cryptoFailure)
    public static func cryptoFailure(_ what: String) -> CofferError { CofferError(Kind.cryptoFailure, detail: what) }
    public static let secureMemoryUnavailable = CofferError(Kind.secureMemoryUnavailable)

    public static let io = CofferError(Kind.io)
    /// A failed system call: `operation` is a short human phrase ("fsync directory").
    public static func io(operation: String, path: String, errno: Int32) -> CofferError {
        CofferError(Kind.io, detail: operation, path: path, errno: errno)
    }
    public static let fileNotFound = CofferError(Kind.fileNotFound)
    public static func fileNotFound(_ path: String) -> CofferError { CofferError(Kind.fileNotFound, path: path) }
    public static let fileTooLarge = CofferError(Kind.fileTooLarge)
    public static func fileTooLarge(_ why: String, path: String? = nil) -> CofferError { CofferError(Kind.fileTooLarge, detail: why, path: path) }
}

#if canImport(Foundation)
import Foundation
#endif

/// Every error Coffer throws.
///
/// It lives in CofferCrypto, the bottom layer, because public crypto API (e.g.
/// `SecureBytes(copying:)`) throws it; the crypto layer throws it directly, as a separate
/// `CryptoError` would only add a one-to-one conversion. The layers above throw their own
/// `package` errors (`FormatError`, `StoreError`) and convert them in one place each.
///
/// Switch on ``kind``: the kinds are stable and exhaustive. The human text (``detail``,
/// ``description``) is for people and may change between releases; it never takes part
/// in equality, so two errors of the same kind with different wording are equal.
/// Structured values ride along where they exist (``path``, ``errno``, ``tamperedPart``,
/// ``version``). Only ``tamperedPart`` is structure that callers act on, so it is the one
/// value besides the kind that `==` and `hash(into:)` compare: `.tampered(.header)` is
/// not `.tampered(.manifest)`.
///
/// No error ever carries a secret: details name structures, paths and parameters, never
/// passwords, keys or item contents.
///
/// Each kind has a static member, so the familiar patterns work:
///
/// ```swift
/// do {
///     let vault = try Vault.open(at: url, password: password)
/// } catch CofferError.wrongPassword {
///     print("Try again")
/// } catch let error as CofferError where error.kind == .tampered {
///     print("The vault was modified: \(error.tamperedPart.map(String.init(describing:)) ?? "?")")
/// }
/// ```
public struct CofferError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as something a caller can switch on.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        // MARK: Reading a vault file
        /// The bytes do not start with Coffer's magic: this is not a Coffer vault.
        case notACofferFile
        /// The file is a Coffer vault of a version this library does not read (``CofferError/version``).
        case unsupportedVersion
        /// The file ends before a structure is complete; the detail names it.
        case truncated
        /// A structure is not encoded as SPEC.md requires; the detail names it.
        case malformed
        /// No password slot opens with this password.
        case wrongPassword
        /// No key-file slot opens with this key file (alone or with the password given).
        case wrongKeyFile
        /// No raw-key slot opens with this raw key.
        case wrongRawKey
        /// Authentication failed: ``CofferError/tamperedPart`` was modified or corrupted.
        case tampered
        /// Key-derivation parameters are outside the bounds in SPEC.md §9: one kind whether
        /// they come from the caller (creating a slot, calibrating) or from a file being read.
        /// (SPEC.md names this kind, so it keeps its name.)
        case kdfParametersOutOfBounds
        /// The slots an unlock would try cost more key derivation than the ``KDFLimit`` in
        /// force (``VaultOptions/kdfLimit``), or new slots would: refused before any KDF runs.
        /// The detail names the cost and the limit.
        case kdfCostTooHigh

        // MARK: Import
        /// A file to import is not in the format named; the detail names the line or element.
        case malformedImport
        /// A file to import is in a form Coffer does not read, e.g. an encrypted Bitwarden export.
        case unsupportedImport

        // MARK: Arguments
        /// A generator policy no password or passphrase can satisfy (length, classes,
        /// exclusions, separator, word count, or a policy the word list cannot serve).
        case invalidGeneratorPolicy
        /// A word list (or bundled dictionary) is unusable: empty or duplicate words,
        /// bad characters, not UTF-8, too few words.
        case invalidWordList
        /// A one-time password is unusable: an otpauth URI, base32 secret or TOTP parameter.
        case invalidOneTimePassword
        /// An item is not valid: a missing service, server or title, attributes or
        /// secrets too large, dates out of range.
        case invalidItem
        /// A key is unusable: a raw key that is not 32 bytes, an empty key file.
        case invalidKey
        /// The transaction has ended; start a new one.
        case transactionEnded
        /// No key slot has this index.
        case noSuchKeySlot
        /// A stored value is not of the type asked for (``ServiceKeychain``-style access).
        case valueTypeMismatch
        /// A low-level argument is outside its documented domain (a negative count, a
        /// range, a buffer or output length): a programming error, not bad input.
        case invalidArgument

        // MARK: Items and slots
        /// No item matches the query.
        case itemNotFound
        /// A name matches several items (``Vault/item(named:)``); the detail lists them by
        /// label and short id, so one can be named by its id.
        case ambiguousItem
        /// An item with the same unique key already exists.
        case duplicateItem
        /// The vault is locked: its keys were wiped. Open it again.
        case vaultLocked
        /// The vault cannot do this because of its key slots, e.g. removing the last slot.
        case slotUnavailable

        // MARK: Files
        /// Creating: a file already exists at ``CofferError/path``.
        case fileExists
        /// The vault file, key file or folder at ``CofferError/path`` does not exist.
        case fileNotFound
        /// The path names something other than a regular file (a folder, a device, a FIFO).
        case notARegularFile
        /// A secret file (a key file) that others may read or write: its mode allows more than its owner.
        case insecurePermissions
        /// A file is larger than Coffer reads or writes for its purpose.
        case fileTooLarge
        /// Another process holds the vault's write lock past the timeout.
        case lockTimeout
        /// The file changed on disk since it was opened and the change cannot be merged.
        case conflict
        /// A file offered as a replica of this vault (a copy to merge) holds another vault:
        /// its vault id differs. It is left untouched.
        case differentVault
        /// The vault file is older than a version this device has already seen (it lacks
        /// edits this device saw, and merging would not bring them back): restored from a
        /// backup, or put back by a sync tool. Saves are refused until the rollback is
        /// accepted (``Vault/acceptRollback()``); see ``Vault/rollback``.
        case rolledBack
        /// A system call failed; ``CofferError/errno`` is the C error number.
        case io
        /// The unlock cache cannot be used: no kernel keyring (a kernel without keys, a
        /// container that filters the calls), its quota is full, or an app's store failed.
        /// ``CofferError/errno`` is the C error number when there is one. Unlocking by
        /// password works as before.
        case unlockCacheUnavailable

        // MARK: Crypto layer
        /// An AEAD open failed: wrong key, nonce, associated data or modified ciphertext.
        case authenticationFailed
        /// An AEAD seal failed (libsodium refused to encrypt).
        case sealFailed
        /// A cryptographic primitive (libsodium, libcrypto) returned an error.
        case cryptoFailure
        /// Guarded memory (`sodium_malloc`) or libsodium initialisation is unavailable.
        case secureMemoryUnavailable
        /// The key-derivation function failed; the detail is the library's message.
        case kdfFailed

        public var description: String { rawValue }
    }

    /// What went wrong; stable, and what `==` compares.
    public let kind: Kind
    /// Secret-free human detail (which structure, argument or line); not part of equality.
    public let detail: String?
    /// The file the error is about, when there is one.
    public let path: String?
    /// The C error number of a failed system call (``Kind/io``).
    public let errno: Int32?
    /// The part whose authentication failed (``Kind/tampered``); part of equality.
    public let tamperedPart: TamperedPart?
    /// The format version found (``Kind/unsupportedVersion``).
    public let version: UInt16?

    /// An error of `kind`. `detail` must not contain a secret.
    public init(_ kind: Kind, detail: String? = nil, path: String? = nil, errno: Int32? = nil,
                tamperedPart: TamperedPart? = nil, version: UInt16? = nil) {
        self.kind = kind
        self.detail = detail
        self.path = path
        self.errno = errno
        self.tamperedPart = tamperedPart
        self.version = version
    }

    /// Same kind (and, for ``Kind/tampered``, same part); the detail is ignored.
    public static func == (lhs: CofferError, rhs: CofferError) -> Bool {
        lhs.kind == rhs.kind && lhs.tamperedPart == rhs.tamperedPart
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(tamperedPart)
    }

    /// Lets `catch CofferError.wrongPassword` match in an untyped `catch` (where the
    /// error is `any Error`); typed catches use `==`.
    public static func ~= (pattern: CofferError, value: any Error) -> Bool {
        guard let error = value as? CofferError else { return false }
        return pattern == error
    }
}

// MARK: Static members, so `throw .wrongPassword` and `catch CofferError.wrongPassword` read well.
// A kind with a detail has both a value (for matching) and a function (for throwing).
extension CofferError {
    public static let notACofferFile = CofferError(.notACofferFile)
    public static let unsupportedVersion = CofferError(.unsupportedVersion)
    public static func unsupportedVersion(_ version: UInt16) -> CofferError { CofferError(.unsupportedVersion, version: version) }
    public static let truncated = CofferError(.truncated)
    public static func truncated(_ structure: String) -> CofferError { CofferError(.truncated, detail: structure) }
    public static let malformed = CofferError(.malformed)
    public static func malformed(_ structure: String) -> CofferError { CofferError(.malformed, detail: structure) }
    public static let wrongPassword = CofferError(.wrongPassword)
    public static let wrongKeyFile = CofferError(.wrongKeyFile)
    public static let wrongRawKey = CofferError(.wrongRawKey)
    public static func tampered(_ part: TamperedPart) -> CofferError { CofferError(.tampered, tamperedPart: part) }
    public static let kdfParametersOutOfBounds = CofferError(.kdfParametersOutOfBounds)
    public static func kdfParametersOutOfBounds(_ why: String) -> CofferError { CofferError(.kdfParametersOutOfBounds, detail: why) }
    public static let kdfCostTooHigh = CofferError(.kdfCostTooHigh)
    public static func kdfCostTooHigh(_ why: String) -> CofferError { CofferError(.kdfCostTooHigh, detail: why) }

    public static let malformedImport = CofferError(.malformedImport)
    public static func malformedImport(_ what: String) -> CofferError { CofferError(.malformedImport, detail: what) }
    public static let unsupportedImport = CofferError(.unsupportedImport)
    public static func unsupportedImport(_ why: String) -> CofferError { CofferError(.unsupportedImport, detail: why) }

    public static let invalidGeneratorPolicy = CofferError(.invalidGeneratorPolicy)
    public static func invalidGeneratorPolicy(_ why: String) -> CofferError { CofferError(.invalidGeneratorPolicy, detail: why) }
    public static let invalidWordList = CofferError(.invalidWordList)
    public static func invalidWordList(_ why: String) -> CofferError { CofferError(.invalidWordList, detail: why) }
    public static let invalidOneTimePassword = CofferError(.invalidOneTimePassword)
    public static func invalidOneTimePassword(_ why: String) -> CofferError { CofferError(.invalidOneTimePassword, detail: why) }
    public static let invalidItem = CofferError(.invalidItem)
    public static func invalidItem(_ why: String) -> CofferError { CofferError(.invalidItem, detail: why) }
    public static let invalidKey = CofferError(.invalidKey)
    public static func invalidKey(_ why: String) -> CofferError { CofferError(.invalidKey, detail: why) }
    public static let transactionEnded = CofferError(.transactionEnded, detail: "the transaction has ended")
    public static let noSuchKeySlot = CofferError(.noSuchKeySlot)
    public static func noSuchKeySlot(_ index: Int) -> CofferError { CofferError(.noSuchKeySlot, detail: "no key slot \(index)") }
    public static let valueTypeMismatch = CofferError(.valueTypeMismatch)
    public static func valueTypeMismatch(_ why: String) -> CofferError { CofferError(.valueTypeMismatch, detail: why) }
    public static let invalidArgument = CofferError(.invalidArgument)
    public static func invalidArgument(_ why: String) -> CofferError { CofferError(.invalidArgument, detail: why) }

    public static let itemNotFound = CofferError(.itemNotFound)
    public static let ambiguousItem = CofferError(.ambiguousItem)
    public static func ambiguousItem(_ candidates: String) -> CofferError { CofferError(.ambiguousItem, detail: candidates) }
    public static let duplicateItem = CofferError(.duplicateItem)
    public static let vaultLocked = CofferError(.vaultLocked)
    public static let slotUnavailable = CofferError(.slotUnavailable)
    public static func slotUnavailable(_ why: String) -> CofferError { CofferError(.slotUnavailable, detail: why) }

    public static let fileExists = CofferError(.fileExists)
    public static func fileExists(_ path: String) -> CofferError { CofferError(.fileExists, path: path) }
    public static let fileNotFound = CofferError(.fileNotFound)
    public static func fileNotFound(_ path: String) -> CofferError { CofferError(.fileNotFound, path: path) }
    public static let notARegularFile = CofferError(.notARegularFile)
    public static let insecurePermissions = CofferError(.insecurePermissions)
    public static func insecurePermissions(_ why: String, path: String) -> CofferError { CofferError(.insecurePermissions, detail: why, path: path) }
    public static func notARegularFile(_ why: String, path: String) -> CofferError { CofferError(.notARegularFile, detail: why, path: path) }
    public static let fileTooLarge = CofferError(.fileTooLarge)
    public static func fileTooLarge(_ why: String, path: String? = nil) -> CofferError { CofferError(.fileTooLarge, detail: why, path: path) }
    public static let lockTimeout = CofferError(.lockTimeout)
    public static func lockTimeout(_ path: String) -> CofferError { CofferError(.lockTimeout, path: path) }
    public static let conflict = CofferError(.conflict)
    public static func conflict(_ why: String) -> CofferError { CofferError(.conflict, detail: why) }
    public static let differentVault = CofferError(.differentVault)
    public static func differentVault(_ why: String) -> CofferError { CofferError(.differentVault, detail: why) }
    public static let rolledBack = CofferError(.rolledBack)
    public static func rolledBack(_ why: String) -> CofferError { CofferError(.rolledBack, detail: why) }
    public static let unlockCacheUnavailable = CofferError(.unlockCacheUnavailable)
    public static func unlockCacheUnavailable(_ why: String, errno: Int32? = nil) -> CofferError {
        CofferError(.unlockCacheUnavailable, detail: why, errno: errno)
    }
    public static let io = CofferError(.io)
    /// A failed system call: `operation` is a short human phrase ("fsync directory").
    public static func io(operation: String, path: String, errno: Int32) -> CofferError {
        CofferError(.io, detail: operation, path: path, errno: errno)
    }

    public static let authenticationFailed = CofferError(.authenticationFailed)
    public static let sealFailed = CofferError(.sealFailed)
    public static let cryptoFailure = CofferError(.cryptoFailure)
    public static func cryptoFailure(_ what: String) -> CofferError { CofferError(.cryptoFailure, detail: what) }
    public static let secureMemoryUnavailable = CofferError(.secureMemoryUnavailable)
    public static let kdfFailed = CofferError(.kdfFailed)
    public static func kdfFailed(_ why: String) -> CofferError { CofferError(.kdfFailed, detail: why) }
}

/// The part of a vault whose authentication failed, for ``CofferError/tamperedPart``.
public enum TamperedPart: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The file header (format fields, vault id, key slots list).
    case header
    /// The manifest: the authenticated list of entries and their revisions.
    case manifest
    /// One entry; the value is its id in lowercase hex.
    case entry(String)

    public var description: String {
        switch self {
        case .header: return "header"
        case .manifest: return "manifest"
        case .entry(let id): return "entry \(id)"
        }
    }
}

extension CofferError {
    /// A one-line, secret-free message suitable for users. Wording may change; match ``kind``.
    public var description: String {
        let what = detail ?? kind.rawValue
        switch kind {
        case .notACofferFile: return "not a Coffer vault"
        case .unsupportedVersion: return "unsupported vault format version \(version.map(String.init) ?? "?")"
        case .truncated: return "file is truncated (\(what))"
        case .malformed: return "malformed vault (\(what))"
        case .malformedImport: return "malformed import file (\(what))"
        case .wrongPassword: return "wrong password"
        case .wrongKeyFile: return "wrong key file"
        case .wrongRawKey: return "wrong raw key"
        case .tampered:
            return "vault is corrupted or was tampered with (\(tamperedPart.map(String.init(describing:)) ?? "a part") failed authentication)"
        case .kdfParametersOutOfBounds: return "key-derivation parameters out of bounds (\(what))"
        case .kdfCostTooHigh: return "key derivation would cost more than the limit: \(what)"
        case .unsupportedImport, .invalidGeneratorPolicy, .invalidWordList, .invalidOneTimePassword, .invalidItem,
             .invalidKey, .transactionEnded, .noSuchKeySlot, .valueTypeMismatch, .invalidArgument,
             .notARegularFile, .insecurePermissions, .fileTooLarge:
            return "invalid argument: \(what)"
        case .itemNotFound: return "no item matched"
        case .ambiguousItem: return "several items match: \(what)"
        case .duplicateItem: return "item already exists"
        case .vaultLocked: return "vault is locked"
        case .slotUnavailable: return "key slot unavailable: \(what)"
        case .fileExists: return "file exists: \(path ?? "?")"
        case .fileNotFound: return "no such file: \(path ?? "?")"
        case .lockTimeout: return "timed out waiting for the lock on \(path ?? "?")"
        case .conflict: return "vault changed on disk and cannot be merged: \(what)"
        case .differentVault: return "not a replica of this vault: \(what)"
        case .rolledBack: return "the vault file was rolled back: \(what)"
        case .unlockCacheUnavailable:
            return "the unlock cache is unavailable: \(what)" + (errno.map { " (\(Self.errnoText($0)))" } ?? "")
        case .io:
            return "\(detail ?? "a system call") failed for \(path ?? "?"): \(errno.map(Self.errnoText) ?? "unknown error")"
        case .authenticationFailed: return "authentication failed"
        case .sealFailed: return "encryption failed"
        case .cryptoFailure: return "cryptographic operation failed: \(what)"
        case .secureMemoryUnavailable: return "secure memory is unavailable"
        case .kdfFailed: return "key derivation failed: \(what)"
        }
    }

    private static func errnoText(_ code: Int32) -> String {
        guard let text = Platform.errorText(code) else { return "errno \(code)" }
        return text + " (errno \(code))"
    }
}

#if canImport(Foundation)
/// So that `error.localizedDescription`, and an app's alert built from `LocalizedError`,
/// show Coffer's own message rather than "The operation couldn't be completed". Nothing
/// here takes part in equality (that stays on ``CofferError/kind``), and nothing holds a
/// secret: the texts are built from the kind, the path and the secret-free detail only.
///
/// ```swift
/// do {
///     let vault = try Vault.open(at: url, password: password)
/// } catch let error as CofferError {
///     alert(title: error.localizedDescription,             // "wrong password"
///           message: error.recoverySuggestion ?? "")       // "Check the password and try again."
/// }
/// ```
extension CofferError: LocalizedError {
    /// The secret-free ``description``.
    public var errorDescription: String? { description }

    /// Why it happened, where there is more to say than ``description``; nil otherwise.
    public var failureReason: String? {
        switch kind {
        case .wrongPassword: return "No key slot of the vault opens with this password."
        case .wrongKeyFile: return "No key slot of the vault opens with this key file (and password, if one was given)."
        case .wrongRawKey: return "No key slot of the vault opens with this raw key."
        case .tampered: return "The vault's contents do not match their authentication codes: the file was damaged or changed outside Coffer."
        case .kdfCostTooHigh: return "The vault asks for more key derivation (memory or passes) than this app allows."
        case .lockTimeout: return "Another process holds the vault's write lock."
        case .vaultLocked: return "The vault's keys were wiped when it was locked."
        case .conflict: return "Another process changed the same data since the vault was read."
        case .rolledBack: return "The file lacks changes this device has already seen: it was restored from a backup or put back by a sync tool."
        case .differentVault: return "The file is a copy of another vault (its vault id differs)."
        case .notACofferFile: return "The file does not start with a Coffer vault's header."
        case .unsupportedVersion: return "The vault was written by a newer version of Coffer."
        case .insecurePermissions: return "Other users may read or write the file."
        default: return nil
        }
    }

    /// What the user can do about it, where there is something; nil otherwise.
    public var recoverySuggestion: String? {
        switch kind {
        case .wrongPassword: return "Check the password and try again."
        case .wrongKeyFile: return "Choose the key file this vault was created with and try again."
        case .wrongRawKey: return "Check the key and try again."
        case .tampered, .truncated, .malformed:
            return "Restore the vault from a backup (its .bak file or another copy)."
        case .kdfCostTooHigh:
            return "If you trust this vault, raise the key-derivation limit (VaultOptions.kdfLimit) and open it again."
        case .lockTimeout: return "Another process is using the vault: wait for it to finish, or close it, and try again."
        case .vaultLocked: return "Unlock the vault again."
        case .ambiguousItem: return "Name the item by its id (or its first 8 digits), or add its account."
        case .conflict: return "Refresh the vault and make the change again."
        case .rolledBack: return "Accept the rollback to keep this version, or restore the newer copy."
        case .fileExists: return "Choose another file name, or delete the existing file first."
        case .fileNotFound: return "Check the path and try again."
        case .unsupportedVersion: return "Update the app to open this vault."
        case .insecurePermissions: return "Make the file readable and writable by its owner only (chmod 600)."
        case .unlockCacheUnavailable: return "Unlock the vault with its password."
        default: return nil
        }
    }
}
#endif


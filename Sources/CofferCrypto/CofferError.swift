/// Every error Coffer throws. Callers can switch on it exhaustively.
///
/// No case ever carries a secret: associated values name structures, paths and
/// parameters, never passwords, keys or item contents.
///
/// ```swift
/// do {
///     let vault = try Vault.open(at: url, password: password)
/// } catch CofferError.wrongPassword {
///     print("Try again")
/// } catch CofferError.tampered(let part) {
///     print("The vault was modified: \(part)")
/// }
/// ```
public enum CofferError: Error, Sendable, Equatable, Hashable {
    // MARK: Reading a vault file
    /// The bytes do not start with Coffer's magic: this is not a Coffer vault.
    case notACofferFile
    /// The file is a Coffer vault of a version this library does not read.
    case unsupportedVersion(UInt16)
    /// The file ends before the structure named here is complete.
    case truncated(String)
    /// A structure is not encoded as SPEC.md requires; the value names it.
    case malformed(String)
    /// No password slot opens with this password.
    case wrongPassword
    /// No key-file slot opens with this key file (alone or with the password given).
    case wrongKeyFile
    /// No raw-key slot opens with this raw key.
    case wrongRawKey
    /// Authentication failed: the named part was modified or corrupted.
    case tampered(TamperedPart)
    /// Key-derivation parameters are outside the bounds in SPEC.md.
    case kdfParametersOutOfBounds(String)
    /// A file to import is not in the format named; the value names the line or element.
    case malformedImport(String)

    // MARK: Arguments and items
    /// An argument is not valid; the value says which and why.
    case invalidArgument(String)
    /// No item matches the query.
    case itemNotFound
    /// An item with the same unique key already exists.
    case duplicateItem
    /// The vault is locked: its keys were wiped. Open it again.
    case vaultLocked
    /// The vault cannot do this because of its key slots, e.g. removing the last slot.
    case slotUnavailable(String)

    // MARK: Files
    /// Creating a vault: a file already exists at this path.
    case fileExists(String)
    /// The vault file, key file or folder does not exist.
    case fileNotFound(String)
    /// Another process holds the vault's write lock past the timeout.
    case lockTimeout(String)
    /// The file changed on disk since it was opened and the changes touch the same items.
    case conflict(String)
    /// A system call failed; `errno` is the C error number.
    case io(operation: String, path: String, errno: Int32)

    // MARK: Crypto layer
    /// An AEAD open failed: wrong key, nonce, associated data or modified ciphertext.
    case authenticationFailed
    /// Guarded memory (`sodium_malloc`) or libsodium initialisation is unavailable.
    case secureMemoryUnavailable
    /// The key-derivation function failed; the value is the library's message.
    case kdfFailed(String)
}

/// The part of a vault whose authentication failed, for ``CofferError/tampered(_:)``.
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

extension CofferError: CustomStringConvertible {
    /// A one-line, secret-free message suitable for users.
    public var description: String {
        switch self {
        case .notACofferFile: return "not a Coffer vault"
        case .unsupportedVersion(let v): return "unsupported vault format version \(v)"
        case .truncated(let what): return "file is truncated (\(what))"
        case .malformed(let what): return "malformed vault (\(what))"
        case .malformedImport(let what): return "malformed import file (\(what))"
        case .wrongPassword: return "wrong password"
        case .wrongKeyFile: return "wrong key file"
        case .wrongRawKey: return "wrong raw key"
        case .tampered(let part): return "vault is corrupted or was tampered with (\(part) failed authentication)"
        case .kdfParametersOutOfBounds(let why): return "key-derivation parameters out of bounds (\(why))"
        case .invalidArgument(let why): return "invalid argument: \(why)"
        case .itemNotFound: return "no item matched"
        case .duplicateItem: return "item already exists"
        case .vaultLocked: return "vault is locked"
        case .slotUnavailable(let why): return "key slot unavailable: \(why)"
        case .fileExists(let path): return "file exists: \(path)"
        case .fileNotFound(let path): return "no such file: \(path)"
        case .lockTimeout(let path): return "timed out waiting for the lock on \(path)"
        case .conflict(let why): return "vault changed on disk and cannot be merged: \(why)"
        case .io(let op, let path, let code): return "\(op) failed for \(path): \(Self.errnoText(code))"
        case .authenticationFailed: return "authentication failed"
        case .secureMemoryUnavailable: return "secure memory is unavailable"
        case .kdfFailed(let why): return "key derivation failed: \(why)"
        }
    }

    private static func errnoText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text) + " (errno \(code))"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import Coffer

/// The exit codes of `coffer`: the one table. `coffer --help` prints ``helpTable``,
/// built from it, and a test checks README's "Exit codes" table against ``meaning``.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case noMatch = 1
    case duplicate = 2
    case usage = 64
    case vaultUnreadable = 65
    case cannotCreate = 73
    case ioError = 74
    case busy = 75
    case rolledBack = 76
    case wrongCredential = 77
    case commandNotRunnable = 126
    case commandNotFound = 127

    /// What the code means, as README's "Exit codes" table says it (Markdown).
    var meaning: String {
        switch self {
        case .success: "success"
        case .noMatch: "no item matched (`get`/`edit`/`remove` find nothing, `search` finds nothing, a filtered `list` is empty, `get --field` names a missing field; `audit --fail-on-findings` found something)"
        case .duplicate: "item already exists"
        case .usage: "usage error: bad flags or values (including `--notes TEXT`), a missing stdin line, a line over 64 KiB, an empty new password, a mismatch, several items match, the vault needs `--key-file`, the last key slot cannot be removed"
        case .vaultUnreadable: "vault unreadable: not a Coffer file, corrupted, tampered with, an unsupported version, its key derivation costs more than the limit (raise it with `--max-kdf-memory`, `--max-kdf-passes`), a file to merge holds another vault, or the vault reached a bound of its format; a damaged entry (`list` and `search` print the readable items first; `coffer repair`)"
        case .cannotCreate: "cannot create: the file exists, or its folder is missing (`init`, generating a key file)"
        case .ioError: "I/O error, including a missing vault file (other than for `init`), a vault path that is a folder, no clipboard tool, a file to merge that cannot be read, a merged copy that cannot be moved or deleted (`sync`), no usable kernel keyring (`unlock`, `lock`, `status`)"
        case .busy: "busy: lock timeout, or the file changed on disk in a way that cannot be merged"
        case .rolledBack: "rolled back: the vault file is older than a version this device has seen; nothing was saved (`--accept-rollback` saves anyway)"
        case .wrongCredential: "wrong password or key"
        case .commandNotRunnable: "`run`: the command exists but cannot be run (not executable); otherwise `run` exits with the command's own status"
        case .commandNotFound: "`run`: the command is not found"
        }
    }

    /// The same, in one short line for `coffer --help`.
    var summary: String {
        switch self {
        case .success: "success"
        case .noMatch: "no item matched (or the item has no such field)"
        case .duplicate: "item already exists"
        case .usage: "usage error (also: several items match, the vault needs --key-file, a slot cannot be removed)"
        case .vaultUnreadable: "vault unreadable: not a Coffer file, corrupted, tampered, unsupported version, KDF over the limit"
        case .cannotCreate: "cannot create: the file exists, or its folder is missing"
        case .ioError: "I/O error (also: the vault file does not exist, no clipboard tool, a copy to merge cannot be read or moved, no kernel keyring)"
        case .busy: "busy: lock timeout, or the file changed on disk in a way that cannot be merged"
        case .rolledBack: "rolled back: the file is older than a version seen here; nothing saved"
        case .wrongCredential: "wrong password or key"
        case .commandNotRunnable: "run: the command cannot be run (else run exits with the command's status)"
        case .commandNotFound: "run: the command is not found"
        }
    }

    /// The "EXIT CODES" section of `coffer --help`.
    static let helpTable = (["EXIT CODES:"] + allCases.map { status in
        let code = String(status.rawValue)
        return "  " + code + String(repeating: " ", count: 4 - code.count) + status.summary
    }).joined(separator: "\n")
}

/// A failure the command reports: one plain line on stderr and an exit code.
/// The message never carries a secret (it is also its description).
struct CLIFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }
}

/// What the command was doing with the vault, for the exit code of a missing file.
enum VaultAccess {
    /// `init`: a missing folder is "cannot create" (73).
    case creating
    /// Every other command: a missing vault is an I/O error (74).
    case using
}

extension CLIFailure {
    /// The single mapping from ``CofferError`` to an exit code and message. The library's
    /// kinds are an open set: a kind this table does not name (one a later library adds)
    /// is reported with its own message as an I/O error (74).
    init(_ error: CofferError, vault: String?, access: VaultAccess = .using) {
        let name = vault ?? "the vault"
        switch error.kind {
        case .itemNotFound:
            self.init(.noMatch, "no item matched in \(name)")
        case .ambiguousItem:
            self.init(.usage, "\(error.detail ?? "several items match") in \(name); add --account, or name one by its id (or its first 8 digits)")
        case .duplicateItem:
            self.init(.duplicate, "item already exists in \(name)")
        case let kind where kind.isBadRequest:
            self.init(.usage, error.description)
        case .slotUnavailable:
            self.init(.usage, "\(error.description) (\(name))")
        case .keyFileRequired:
            self.init(.usage, "\(name) needs a key file: add --key-file PATH")
        case .vaultLocked:
            self.init(.usage, error.description)
        case .notACofferFile:
            self.init(.vaultUnreadable, "\(name) is not a Coffer vault")
        case .tampered where vault != nil && error.tamperedPart.map({ if case .entry = $0 { true } else { false } }) == true:
            // One damaged record: the rest of the vault is readable, and there are ways out.
            self.init(.vaultUnreadable, "\(name): \(error.description); \(DamagedEntries.wayOut(name))")
        case .unsupportedVersion, .truncated, .malformed, .malformedImport, .tampered, .authenticationFailed, .sealFailed:
            self.init(.vaultUnreadable, "\(name): \(error.description)")
        case .kdfParametersOutOfBounds:
            // While creating, the parameters came from the command line.
            self.init(access == .creating ? .usage : .vaultUnreadable, "\(name): \(error.description)")
        case .kdfCostTooHigh:
            // Creating: the cost came from the command line; otherwise from the file.
            self.init(access == .creating ? .usage : .vaultUnreadable, "\(name): \(error.description); \(KDFLimitArguments.hint)")
        case .fileExists:
            self.init(.cannotCreate, "cannot create \(error.path ?? name): the file exists")
        case .fileNotFound:
            if access == .creating {
                self.init(.cannotCreate, "cannot create \(name): no such folder \(error.path ?? "?")")
            } else {
                self.init(.ioError, error.description)
            }
        case .unlockCacheUnavailable:
            self.init(.ioError, "\(error.description); commands ask for the password as before")
        case .lockTimeout, .conflict:
            self.init(.busy, error.description)
        case .differentVault, .otherKeyEpoch, .refusedBefore:
            self.init(.vaultUnreadable, error.description)
        case .formatLimit:
            // The vault's data, not the request, reached the bound: not a usage error.
            self.init(.vaultUnreadable, "\(name): \(error.description)")
        case .rolledBack:
            // The warning printed on opening (RollbackArguments.warn) has the details: not again.
            self.init(.rolledBack, "nothing was saved: \(name) is older than a version seen on this device (see the warning); "
                      + "`coffer merge` a newer copy, or --accept-rollback saves this version")
        case .wrongPassword, .wrongKeyFile, .wrongRawKey:
            self.init(.wrongCredential, "wrong password or key for \(name)")
        case .wrongIdentity:
            self.init(.wrongCredential, "\(name) is not shared with this identity's key (ask its owner to `coffer share` it with you)")
        default:
            // `.io`, `.secureMemoryUnavailable`, `.kdfFailed`, and any kind not named above.
            self.init(.ioError, error.description)
        }
    }
}

extension CofferError.Kind {
    /// A value in the request cannot be used (exit 64): a bad argument, policy, word list,
    /// one-time password, item, key or file; a malformed request from another program; an SSH key Coffer does not use.
    var isBadRequest: Bool {
        [.invalidArgument, .invalidGeneratorPolicy, .invalidWordList, .invalidOneTimePassword, .invalidItem,
         .invalidKey, .transactionEnded, .noSuchKeySlot, .valueTypeMismatch, .unsupportedImport,
         .notARegularFile, .insecurePermissions, .fileTooLarge, .cryptoFailure, .malformedRequest, .unsupportedSSHKey].contains(self)
    }
}

/// Runs `body`, turning a ``CofferError`` into a ``CLIFailure`` about `vault`.
func mappingErrors<R>(vault: String?, access: VaultAccess = .using, _ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let error as CofferError {
        throw CLIFailure(error, vault: vault, access: access)
    }
}

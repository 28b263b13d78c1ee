import Coffer

/// The exit codes of `coffer`, in one place. README and `coffer --help` list them.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    /// No item matched (or the item has no such field).
    case noMatch = 1
    /// An item with the same service and account (or server, protocol, port, path and account) exists.
    case duplicate = 2
    /// Usage error: bad flags or values, missing input, a request the vault's key slots cannot serve.
    case usage = 64
    /// The vault is unreadable: not a Coffer file, corrupted, tampered with, or an unsupported version.
    case vaultUnreadable = 65
    /// Cannot create: the file exists, or its folder is missing.
    case cannotCreate = 73
    /// I/O error: a file cannot be read or written (including a missing vault file), no clipboard tool.
    case ioError = 74
    /// Busy: the lock timed out, or the file changed on disk in a way that cannot be merged.
    case busy = 75
    /// Wrong password or key.
    case wrongCredential = 77

    /// One line each, for `coffer --help`.
    static let helpTable = """
        EXIT CODES:
          0   success
          1   no item matched (or the item has no such field)
          2   item already exists
          64  usage error (also: several items match, the vault needs --key-file, a slot cannot be removed)
          65  vault unreadable: not a Coffer file, corrupted, tampered, or unsupported version
          73  cannot create: the file exists, or its folder is missing
          74  I/O error (also: the vault file does not exist, no clipboard tool)
          75  busy: lock timeout, or the file changed on disk in a way that cannot be merged
          77  wrong password or key
        """
}

/// A failure the command reports: one plain line on stderr and an exit code.
/// The message never carries a secret.
struct CLIFailure: Error {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// What the command was doing with the vault, for the exit code of a missing file.
enum VaultAccess {
    /// `init`: a missing folder is "cannot create" (73).
    case creating
    /// Every other command: a missing vault is an I/O error (74).
    case using
}

extension CLIFailure {
    /// The single mapping from ``CofferError`` to an exit code and message.
    init(_ error: CofferError, vault: String?, access: VaultAccess = .using) {
        let name = vault ?? "the vault"
        switch error.kind {
        case .itemNotFound:
            self.init(.noMatch, "no item matched in \(name)")
        case .duplicateItem:
            self.init(.duplicate, "item already exists in \(name)")
        case .invalidArgument, .invalidGeneratorPolicy, .invalidWordList, .invalidOneTimePassword, .invalidItem,
             .invalidKey, .transactionEnded, .noSuchKeySlot, .valueTypeMismatch, .unsupportedImport,
             .notARegularFile, .fileTooLarge, .cryptoFailure:
            // The kinds of `isBadRequest`.
            self.init(.usage, error.description)
        case .slotUnavailable:
            self.init(.usage, "\(error.description) (\(name))")
        case .vaultLocked:
            self.init(.usage, error.description)
        case .notACofferFile:
            self.init(.vaultUnreadable, "\(name) is not a Coffer vault")
        case .unsupportedVersion, .truncated, .malformed, .malformedImport, .tampered, .authenticationFailed, .sealFailed:
            self.init(.vaultUnreadable, "\(name): \(error.description)")
        case .kdfParametersOutOfBounds:
            // While creating, the parameters came from the command line.
            self.init(access == .creating ? .usage : .vaultUnreadable, "\(name): \(error.description)")
        case .fileExists:
            self.init(.cannotCreate, "cannot create \(error.path ?? name): the file exists")
        case .fileNotFound:
            if access == .creating {
                self.init(.cannotCreate, "cannot create \(name): no such folder \(error.path ?? "?")")
            } else {
                self.init(.ioError, error.description)
            }
        case .io:
            self.init(.ioError, error.description)
        case .secureMemoryUnavailable, .kdfFailed:
            self.init(.ioError, error.description)
        case .lockTimeout, .conflict:
            self.init(.busy, error.description)
        case .wrongPassword, .wrongKeyFile, .wrongRawKey:
            self.init(.wrongCredential, "wrong password or key for \(name)")
        }
    }
}

extension CofferError.Kind {
    /// A value in the request cannot be used (exit 64): a bad argument, policy, word list,
    /// one-time password, item, key or file.
    var isBadRequest: Bool {
        switch self {
        case .invalidArgument, .invalidGeneratorPolicy, .invalidWordList, .invalidOneTimePassword, .invalidItem,
             .invalidKey, .transactionEnded, .noSuchKeySlot, .valueTypeMismatch, .unsupportedImport,
             .notARegularFile, .fileTooLarge, .cryptoFailure:
            return true
        default:
            return false
        }
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

#if canImport(Foundation)
import Foundation
#endif

/// The error of Coffer's library: every function of the `Coffer` product that throws,
/// throws it, with these exceptions (each documented where it is thrown):
///
/// - errors your own closures throw pass through unchanged (a vault transaction's body,
///   `update`'s edit, the `askPassword` of `Vault.open(at:keyFile:options:askPassword:)`);
/// - `ServerAddress(parsing:)` throws its own `ServerAddress.ParseError` (typed), which says
///   which part of the address is wrong;
/// - the `async` entry points (`Vault.openAsync`, `createAsync`, `unlockAsync`) throw
///   `CancellationError` when their task was cancelled before the work started;
/// - `Codable` conformances (`ItemID`, `KeySlotKind`) throw the coder's errors (`DecodingError`);
/// - `CofferTerminal`, a separate module for command-line apps, throws `TerminalError`.
///
/// It lives in CofferCrypto, the bottom layer, because public crypto API (e.g.
/// `SecureBytes(copying:)`) throws it; the crypto layer throws it directly, as a separate
/// `CryptoError` would only add a one-to-one conversion. The layers above throw their own
/// `package` errors (`FormatError`, `StoreError`) and convert them in one place each.
///
/// Match on ``kind``: the kinds are stable, but they are an open set (``Kind``), so a
/// `switch` over them has a `default:`, and a kind added in a later release breaks no
/// caller. The human text (``detail``, ``description``) is for people and may change
/// between releases; it never takes part in equality, so two errors of the same kind with
/// different wording are equal. Structured values ride along where they exist (``path``,
/// ``errno``, ``tamperedPart``, ``version``). Only ``tamperedPart`` is structure that
/// callers act on, so it is the one value besides the kind that `==` and `hash(into:)`
/// compare: `.tampered(.header)` is not `.tampered(.manifest)`.
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
    /// What went wrong, as something a caller can switch on: an open set of kinds, each
    /// a static member (`CofferError.Kind.wrongPassword`), compared by its ``rawValue``
    /// (the name `--json` output and the documentation use).
    ///
    /// Each layer of the library declares the kinds it owns, beside its code: the crypto
    /// layer its failures and the operating system's (`io`, `fileNotFound`), the format
    /// layer what a vault file's bytes can be (`truncated`, `tampered`, `wrongPassword`),
    /// the store its files and locks, the vault its items, slots and replicas, and the
    /// features theirs (`invalidOneTimePassword`, `invalidGeneratorPolicy`,
    /// `malformedImport`). So a new kind is added where it is thrown, and a `switch` over
    /// kinds needs a `default:`:
    ///
    /// ```swift
    /// switch error.kind {
    /// case .wrongPassword, .wrongKeyFile: askAgain()
    /// case .tampered, .truncated, .malformed: offerBackup()
    /// default: show(error.localizedDescription)
    /// }
    /// ```
    ///
    /// A kind made from a raw value alone (`Kind(rawValue: "wrongPassword")`, e.g. read back
    /// from JSON) equals the declared one; errors Coffer throws always carry the declared
    /// kind, with its message.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind's stable name, e.g. `"wrongPassword"`.
        public let rawValue: String
        /// The one-line message of an error of this kind (``CofferError/description``),
        /// starting with the kind's own human prefix.
        let message: @Sendable (CofferError) -> String
        /// Why it happened, where there is more to say than the message.
        let failureReason: String?
        /// What the user can do about it, where there is something.
        let recoverySuggestion: String?

        /// A kind by name only; its errors read "`rawValue`: detail".
        public init(rawValue: String) {
            self.init(rawValue) { error in error.detail.map { "\(rawValue): \($0)" } ?? rawValue }
        }

        /// A kind a layer of the library declares: its name, its message, and, for
        /// `LocalizedError`, why it happens and what to do about it.
        package init(_ rawValue: String, failureReason: String? = nil, recoverySuggestion: String? = nil,
                     message: @escaping @Sendable (CofferError) -> String) {
            self.rawValue = rawValue
            self.message = message
            self.failureReason = failureReason
            self.recoverySuggestion = recoverySuggestion
        }

        /// Kinds are equal when their names are.
        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue == rhs.rawValue }

        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

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

    /// A one-line, secret-free message suitable for users, starting with the kind's own
    /// human prefix ("wrong password", "file too large: …"). Wording may change; match ``kind``.
    public var description: String { kind.message(self) }

    /// The detail, or the kind's name when there is none: what a message shows after its prefix.
    package var shownDetail: String { detail ?? kind.rawValue }

    /// `strerror`'s text for `code`, with the number.
    package static func errnoText(_ code: Int32) -> String {
        guard let text = Platform.errorText(code) else { return "errno \(code)" }
        return text + " (errno \(code))"
    }
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
    public var failureReason: String? { kind.failureReason }

    /// What the user can do about it, where there is something; nil otherwise.
    public var recoverySuggestion: String? { kind.recoverySuggestion }
}
#endif


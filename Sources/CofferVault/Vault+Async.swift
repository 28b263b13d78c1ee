import CofferCrypto
import CofferFormat
import CofferStore
import Dispatch
import Foundation

// Async variants of the entry points that run Argon2id (create, open, unlock): the key
// derivation takes about half a second and 256 MiB by default, and blocks its thread, so
// these run it on a Coffer queue instead of the caller's executor (the main actor, or a
// cooperative-pool thread that other tasks need).
//
// They are named `…Async` because an `async` overload of the same name would be preferred
// in every async context, so each existing `try Vault.open(…)` written in an async function
// (without `await`) would stop compiling. Swift's importer takes the same `Async` suffix
// when an async name would clash.
//
// They throw `any Error`, not `throws(CofferError)`: a ``CofferError`` as the sync versions
// throw it, or `CancellationError` when the task was cancelled before the work started.
// Once Argon2id starts it cannot be interrupted: a task cancelled during it waits for it
// to end, then gets the vault (or the error) as if it had not been cancelled. A `Vault`
// returned to a cancelled task is an ordinary vault; let it go, or ``Vault/lock()`` it.

extension Vault {
    /// ``create(at:credential:additional:options:)-(String,_,_,_)``, with the key derivation run off the
    /// caller's executor.
    ///
    /// Throws ``CofferError`` as the sync version does, and `CancellationError` when the task
    /// is cancelled before the work starts (a derivation under way is never interrupted).
    ///
    /// ```swift
    /// let vault = try await Vault.createAsync(at: path, credential: .password(password),
    ///                                         additional: [.keyFile(keyFile)])
    /// ```
    public static func createAsync(at path: String, credential: VaultCredential, additional: [VaultCredential] = [],
                                   options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await offloaded { () throws(CofferError) in
            try create(at: path, credential: credential, additional: additional, options: options)
        }
    }

    /// ``create(at:password:options:)-(String,_,_)``, with the key derivation run off the caller's executor;
    /// see ``createAsync(at:credential:additional:options:)-(String,_,_,_)``.
    ///
    /// ```swift
    /// @MainActor func newVault() async throws {
    ///     let vault = try await Vault.createAsync(at: path, password: password)   // the UI stays responsive
    /// }
    /// ```
    public static func createAsync(at path: String, password: SecureBytes,
                                   options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await offloaded { () throws(CofferError) in try create(at: path, password: password, options: options) }
    }

    /// ``open(at:credential:options:)-(String,_,_)``, with the key derivation run off the caller's executor.
    ///
    /// Throws ``CofferError`` as the sync version does (``CofferError/wrongPassword``…), and
    /// `CancellationError` when the task is cancelled before the work starts.
    ///
    /// ```swift
    /// let vault = try await Vault.openAsync(at: path, credential: .password(password))
    /// ```
    public static func openAsync(at path: String, credential: VaultCredential,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await offloaded { () throws(CofferError) in try open(at: path, credential: credential, options: options) }
    }

    /// ``open(at:password:options:)-(String,_,_)``, with the key derivation run off the caller's executor.
    ///
    /// ```swift
    /// do {
    ///     let vault = try await Vault.openAsync(at: path, password: password)
    /// } catch CofferError.wrongPassword {
    ///     showWrongPassword()
    /// } catch is CancellationError {
    ///     // the sheet was dismissed before the vault was opened
    /// }
    /// ```
    public static func openAsync(at path: String, password: SecureBytes,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await offloaded { () throws(CofferError) in try open(at: path, password: password, options: options) }
    }

    /// ``open(at:unlockCache:options:)-(String,_,_)`` off the caller's executor (no key derivation runs,
    /// but the file is read and checked, which takes a while for a large vault).
    ///
    /// ```swift
    /// let vault = try await Vault.openAsync(at: path, unlockCache: KernelKeyring())
    /// ```
    public static func openAsync(at path: String, unlockCache: some UnlockCache,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault? {
        try await offloaded { () throws(CofferError) in try open(at: path, unlockCache: unlockCache, options: options) }
    }

    /// ``unlock(with:)``, with the key derivation run off the caller's executor.
    ///
    /// ```swift
    /// vault.lock()                                          // the app went to the background
    /// try await vault.unlockAsync(with: .password(password))
    /// ```
    public func unlockAsync(with credential: VaultCredential) async throws {
        try await Self.offloaded { () throws(CofferError) in try self.unlock(with: credential) }
    }

    // MARK: URL overloads

    /// ``createAsync(at:credential:additional:options:)-(String,_,_,_)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try await Vault.createAsync(at: vaultURL, credential: .password(password))
    /// ```
    public static func createAsync(at url: URL, credential: VaultCredential, additional: [VaultCredential] = [],
                                   options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await createAsync(at: url.cofferFilePath(), credential: credential, additional: additional, options: options)
    }

    /// ``createAsync(at:password:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try await Vault.createAsync(at: vaultURL, password: password)
    /// ```
    public static func createAsync(at url: URL, password: SecureBytes,
                                   options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await createAsync(at: url.cofferFilePath(), password: password, options: options)
    }

    /// ``openAsync(at:credential:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try await Vault.openAsync(at: vaultURL, credential: .keyFile(try KeyFile(contentsOf: keyURL)))
    /// ```
    public static func openAsync(at url: URL, credential: VaultCredential,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await openAsync(at: url.cofferFilePath(), credential: credential, options: options)
    }

    /// ``openAsync(at:password:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try await Vault.openAsync(at: vaultURL, password: password)
    /// ```
    public static func openAsync(at url: URL, password: SecureBytes,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault {
        try await openAsync(at: url.cofferFilePath(), password: password, options: options)
    }

    /// ``openAsync(at:unlockCache:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try await Vault.openAsync(at: vaultURL, unlockCache: KernelKeyring())
    /// ```
    public static func openAsync(at url: URL, unlockCache: some UnlockCache,
                                 options: VaultOptions = VaultOptions()) async throws -> Vault? {
        try await openAsync(at: url.cofferFilePath(), unlockCache: unlockCache, options: options)
    }

    // MARK: The one way off the caller's executor

    /// Where the async entry points run their blocking work: concurrent, so one slow
    /// open does not hold up another (each Argon2id run holds its own memory).
    private static let blockingQueue = DispatchQueue(label: "coffer.vault.blocking", qos: .userInitiated,
                                                     attributes: .concurrent)

    /// Runs `work` on ``blockingQueue`` and resumes the caller with its result. Throws
    /// `CancellationError` if the task is cancelled before `work` starts (checked on entry
    /// and again when the queue picks the work up); `work` itself is never interrupted.
    static func offloaded<R: Sendable>(_ work: @escaping @Sendable () throws(CofferError) -> R) async throws -> R {
        try Task.checkCancellation()
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                blockingQueue.async {
                    if cancelled.isSet {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume(with: Result<R, CofferError>(catching: work))
                    }
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }
}

/// Set by a task's cancellation handler, read by the queued work before it starts.
private final class CancellationFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

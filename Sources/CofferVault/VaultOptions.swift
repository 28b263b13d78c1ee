import CofferCrypto
import CofferFormat
import CofferStore
/// How a vault is created and saved.
///
/// ```swift
/// var options = VaultOptions()
/// options.kdf = try .calibrated(targetSeconds: 0.5)
/// options.lockTimeout = .seconds(2)
/// options.kdfLimit = KDFLimit(maxMemoryKiB: 2 * 1024 * 1024, maxIterations: 10)   // only to open a costlier vault
/// let vault = try Vault.create(at: path, password: password, options: options)
/// ```
public struct VaultOptions: Sendable {
    /// Argon2id parameters for new password and key-file slots. Default: 256 MiB, 3 iterations, 1 lane.
    public var kdf: Argon2idParameters
    /// Keep the previous file as `<path>.bak` on every save. Default: true.
    public var keepsBackup: Bool
    /// How long a save waits for another process's write lock. Default:
    /// ``defaultLockTimeout``, 10 seconds.
    public var lockTimeout: Duration
    /// How many earlier passwords an item keeps. Default: 10.
    public var passwordHistoryLimit: Int
    /// The most key derivation one unlock may do, checked before any KDF runs; new slots
    /// must fit it too. Default: ``KDFLimit/default`` (1 GiB × 10 passes per slot and in
    /// all). A file over it is refused with ``CofferError/kdfCostTooHigh(_:)``.
    public var kdfLimit: KDFLimit
    /// Where this device remembers the vault's replica id and the newest version it has
    /// seen, to warn of a rolled-back file (``Vault/rollback``). Default: ``ReplicaStateLocation/standard``.
    public var replicaState: ReplicaStateLocation

    /// How long a save, a restore or a destroy waits for another process's write lock
    /// unless told otherwise: 10 seconds. The one default of every `lockTimeout`
    /// (``lockTimeout``, ``Vault/restoreBackup(at:lockTimeout:)-(String,_)``,
    /// ``Vault/destroy(at:lockTimeout:)-(String,_)``) and of `coffer --lock-timeout`.
    ///
    /// ```swift
    /// let patient = VaultOptions(lockTimeout: VaultOptions.defaultLockTimeout * 3)
    /// ```
    public static let defaultLockTimeout: Duration = .seconds(10)

    /// How many earlier versions this device keeps, and for how long (``Vault/undoVersions()``):
    /// by default 10, for 30 days. Kept in the state folder of ``replicaState``; none with
    /// ``ReplicaStateLocation/none`` or without ``keepsBackup``.
    public var undoVersions: UndoVersionLimits = .default

    public init(kdf: Argon2idParameters = .default, keepsBackup: Bool = true,
                lockTimeout: Duration = defaultLockTimeout, passwordHistoryLimit: Int = 10,
                kdfLimit: KDFLimit = .default, replicaState: ReplicaStateLocation = .standard) {
        self.kdfLimit = kdfLimit
        self.replicaState = replicaState
        self.kdf = kdf
        self.keepsBackup = keepsBackup
        self.lockTimeout = lockTimeout
        self.passwordHistoryLimit = passwordHistoryLimit
    }
}

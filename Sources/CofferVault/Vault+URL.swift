import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

// `URL` overloads of every public entry point that takes a path, for apps that hold
// file URLs (document pickers, `FileManager.url(for:in:...)`). Each one turns the URL
// into a path (``Foundation/URL/cofferFilePath()``) and calls the `String` version: the
// path is the one owner of what happens next. A URL that is not a `file:` URL throws
// ``CofferError/invalidArgument(_:)`` before anything is read or written.

extension URL {
    /// The file-system path of a `file:` URL; throws ``CofferError/invalidArgument(_:)``
    /// for any other scheme (`https:`, `data:`...) or an empty path. The URL is not
    /// shown in the error: it may hold a user name or a token.
    package func cofferFilePath() throws(CofferError) -> String {
        guard isFileURL else {
            throw .invalidArgument("a vault path must be a file URL, not a \(scheme.map { "\($0):" } ?? "relative") URL")
        }
        let path = self.path
        guard !path.isEmpty else { throw .invalidArgument("the file URL has no path") }
        return path
    }
}

extension Vault {
    /// The vault file, as a file URL (``path``).
    public var url: URL { URL(fileURLWithPath: path) }

    /// ``create(at:credential:additional:options:)`` at a file URL.
    ///
    /// ```swift
    /// let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    /// let vault = try Vault.create(at: folder.appendingPathComponent("main.coffer"),
    ///                              credential: .password(password), additional: [.keyFile(keyFile)])
    /// ```
    public static func create(at url: URL, credential: VaultCredential, additional: [VaultCredential] = [],
                              options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try create(at: url.cofferFilePath(), credential: credential, additional: additional, options: options)
    }

    /// ``create(at:password:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try Vault.create(at: URL(fileURLWithPath: "/tmp/demo.coffer"), password: password)
    /// ```
    public static func create(at url: URL, password: SecureBytes, options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try create(at: url.cofferFilePath(), password: password, options: options)
    }

    /// ``open(at:credential:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: vaultURL, credential: .keyFile(try KeyFile(contentsOf: keyURL)))
    /// ```
    public static func open(at url: URL, credential: VaultCredential,
                            options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try open(at: url.cofferFilePath(), credential: credential, options: options)
    }

    /// ``open(at:password:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: vaultURL, password: password)
    /// ```
    public static func open(at url: URL, password: SecureBytes, options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault {
        try open(at: url.cofferFilePath(), password: password, options: options)
    }

    /// ``open(at:unlockCache:options:)`` at a file URL.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: vaultURL, unlockCache: KernelKeyring())
    ///     ?? Vault.open(at: vaultURL, password: askForPassword())
    /// ```
    public static func open(at url: URL, unlockCache: some UnlockCache,
                            options: VaultOptions = VaultOptions()) throws(CofferError) -> Vault? {
        try open(at: url.cofferFilePath(), unlockCache: unlockCache, options: options)
    }

    /// ``open(at:keyFile:options:askPassword:)-(String,_,_,_)`` at a file URL.
    ///
    /// ```swift
    /// let opened = try Vault.open(at: url, keyFile: try KeyFile(contentsOf: keyURL)) { try askUser("Master password") }
    /// ```
    public static func open(at url: URL, keyFile: KeyFile?, options: VaultOptions = VaultOptions(),
                            askPassword: () throws -> SecureBytes) throws -> OpenedVault {
        try open(at: url.cofferFilePath(), keyFile: keyFile, options: options, askPassword: askPassword)
    }

    /// `info(at:scope:)` with a file URL.
    ///
    /// ```swift
    /// let info = try Vault.info(at: vaultURL)   // no password needed
    /// ```
    public static func info(at url: URL, scope: VaultInfo.Scope = .header) throws(CofferError) -> VaultInfo {
        try info(at: url.cofferFilePath(), scope: scope)
    }

    /// ``restoreBackup(at:lockTimeout:)`` at a file URL.
    ///
    /// ```swift
    /// try Vault.restoreBackup(at: vaultURL)   // puts `<file>.bak` back
    /// ```
    public static func restoreBackup(at url: URL, lockTimeout: Duration = VaultOptions.defaultLockTimeout) throws(CofferError) {
        try restoreBackup(at: url.cofferFilePath(), lockTimeout: lockTimeout)
    }

    /// ``destroy(at:lockTimeout:)`` at a file URL.
    ///
    /// ```swift
    /// try Vault.destroy(at: vaultURL)
    /// ```
    public static func destroy(at url: URL, lockTimeout: Duration = VaultOptions.defaultLockTimeout) throws(CofferError) {
        try destroy(at: url.cofferFilePath(), lockTimeout: lockTimeout)
    }

    /// ``merge(contentsOf:)`` for a replica at a file URL.
    ///
    /// ```swift
    /// for copy in try Vault.conflictCopies(of: vault.url) {
    ///     try vault.merge(contentsOf: copy.url)
    /// }
    /// ```
    @discardableResult
    public func merge(contentsOf url: URL) throws(CofferError) -> MergeReport {
        try merge(contentsOf: url.cofferFilePath())
    }

    /// ``conflictCopies(of:)`` of the vault file at a file URL.
    ///
    /// ```swift
    /// let copies = try Vault.conflictCopies(of: vaultURL).map(\.url)
    /// ```
    public static func conflictCopies(of vaultURL: URL) throws(CofferError) -> [ConflictCopy] {
        try conflictCopies(of: vaultURL.cofferFilePath())
    }
}

extension ConflictCopy {
    /// The copy, as a file URL (``path``).
    public var url: URL { URL(fileURLWithPath: path) }
}

extension KeyFile {
    /// `init(contentsOf:)` for a key file at a file URL.
    ///
    /// ```swift
    /// let key = try KeyFile(contentsOf: URL(fileURLWithPath: "/media/usb/vault.key"))
    /// ```
    public init(contentsOf url: URL) throws(CofferError) {
        try self.init(contentsOf: url.cofferFilePath())
    }

    /// `generate(at:)` at a file URL.
    ///
    /// ```swift
    /// let key = try KeyFile.generate(at: URL(fileURLWithPath: "/media/usb/vault.key"))
    /// ```
    public static func generate(at url: URL) throws(CofferError) -> KeyFile {
        try generate(at: url.cofferFilePath())
    }
}

extension UnlockCache {
    /// `removeUnlocks(forVaultAt:)` for the vault at a file URL.
    ///
    /// ```swift
    /// try KernelKeyring().removeUnlocks(forVaultAt: vault.url)
    /// ```
    @discardableResult
    public func removeUnlocks(forVaultAt url: URL) throws(CofferError) -> Int {
        try removeUnlocks(forVaultAt: url.cofferFilePath())
    }
}

import ArgumentParser
import Coffer

/// What every command that works on a vault takes: the `VAULT` path, an optional
/// key file or identity, and the lock timeout.
struct VaultArguments: ParsableArguments {
    @Argument(help: "The vault file.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("A key file that opens the vault, alone or with the master password, according to the vault's key slots.",
                               valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("identity"),
            help: ArgumentHelp("An age identity file or OpenSSH Ed25519 private key that opens the vault shared with its public key (`coffer share`); no password is asked for.",
                               valueName: "path"),
            completion: .file())
    var identity: String?

    @Option(name: .customLong("lock-timeout"),
            help: ArgumentHelp("Seconds to wait for another process's write lock before giving up (exit 75).", valueName: "seconds"))
    var lockTimeout = Double(VaultOptions.defaultLockTimeout.components.seconds)

    @Flag(name: .customLong("no-cache"),
          help: "Ask for the password even when `coffer unlock` left this vault unlocked.")
    var noCache = false

    @OptionGroup var kdfLimit: KDFLimitArguments

    func validate() throws {
        guard lockTimeout >= 0, lockTimeout <= 3600, lockTimeout.isFinite else {
            throw ValidationError("--lock-timeout must be 0 to 3600 seconds")
        }
        guard !vault.isEmpty else { throw ValidationError("the vault path is empty") }
        guard keyFile == nil || identity == nil else { throw ValidationError("--key-file and --identity exclude each other") }
    }

    /// Library options for opening or creating this vault.
    var options: VaultOptions {
        var options = VaultOptions()
        options.lockTimeout = .milliseconds(Int64((lockTimeout * 1000).rounded()))
        options.kdfLimit = kdfLimit.limit
        return options
    }

    /// Runs `body`, mapping library errors to exit codes for this vault.
    func run<R>(access: VaultAccess = .using, _ body: () throws -> R) throws -> R {
        try mappingErrors(vault: vault, access: access, body)
    }

    /// Opens the vault with the factors its key slots need (see ``Unlocked`` and
    /// ``VaultInfo/credentialChoices(withKeyFile:)``), for a command that only reads it.
    /// A rolled-back file (``Vault/rollback``) is shown as it is, with a warning.
    func unlock(cache: CacheUse = .use) throws -> Unlocked {
        let unlocked = try open(cache: cache)
        RollbackArguments.warn(unlocked.vault, path: vault, access: .reading)
        return unlocked
    }

    /// ``unlock()`` for a command that saves: a rolled-back file is warned about, and its
    /// saves are refused by the library (exit 76) unless `--accept-rollback` accepted it.
    /// With `cache: .credentialsOnly` (changing key slots), the credentials are asked for
    /// even when the vault is unlocked: who can open a vault changes only with them.
    func unlock(saving rollback: RollbackArguments, cache: CacheUse = .use) throws -> Unlocked {
        let unlocked = try open(cache: cache)
        RollbackArguments.warn(unlocked.vault, path: vault, access: rollback.acceptRollback ? .savingAccepted : .saving)
        if rollback.acceptRollback { unlocked.vault.acceptRollback() }
        return unlocked
    }

    private func open(cache: CacheUse) throws -> Unlocked {
        if cache == .use, !noCache, let vault = try CachedUnlocking.open(self.vault, options: options) {
            return Unlocked(vault: vault, password: nil, keyFile: nil, usedSlot: nil, opened: nil)
        }
        if let identityPath = identity {
            return try run { () throws -> Unlocked in
                let identity = try VaultIdentity(contentsOf: identityPath)
                let opened = try Vault.open(at: vault, credential: .identity(identity), options: options)
                return Unlocked(vault: opened, password: nil, keyFile: nil, usedSlot: identity.slotKind, opened: nil)
            }
        }
        return try run {
            let keyFile = try self.keyFile.map { try KeyFile(contentsOf: $0) }
            do {
                // The library's order of choices (Vault.open(at:keyFile:options:askPassword:)): the
                // key file alone first, then the password with it; no password is read for a key
                // file alone, and none for a vault over the KDF limit.
                let opened = try withProgressHint { hint in
                    try Vault.open(at: vault, keyFile: keyFile, options: options) {
                        try hint.pausing { try SecretReader.masterPassword(for: vault) }
                    }
                }
                return Unlocked(vault: opened.vault, password: opened.password, keyFile: keyFile, usedSlot: opened.slotKind, opened: opened)
            } catch CofferError.slotUnavailable {
                throw CLIFailure(.usage, keyFile != nil ? "\(vault) has no key-file slot; open it without --key-file"
                                                        : "\(vault) has no password or key-file slot the coffer command can open")
            }
        }
    }
}

/// An open vault and the factors that opened it: which are used, given the vault's key
/// slots and `--key-file`, is the library's rule (``Vault/open(at:keyFile:options:askPassword:)``).
struct Unlocked {
    let vault: Vault
    let password: SecureBytes?
    let keyFile: KeyFile?
    /// Nil when a cached unlock (`coffer unlock`) opened it.
    let usedSlot: KeySlotKind?
    /// The library's open with a password or key file (nil for a cached unlock or an identity):
    /// it changes the password it was opened with without deriving its key again.
    let opened: OpenedVault?
}

/// Whether a command may use a cached unlock.
enum CacheUse {
    /// Yes, unless `--no-cache`.
    case use
    /// No: the command changes key slots, so it asks for the credentials.
    case credentialsOnly

    /// For a command that reads secrets from standard input after the master password
    /// (`readsSecrets`): on a pipe it reads the master password line first, unlocked or
    /// not, so a script's lines never shift (its master password never becomes an item's
    /// password); on a terminal, or reading no secret, the cached unlock is used.
    static func readingStdin(secrets readsSecrets: Bool) -> CacheUse {
        readsSecrets && !SecretReader.isInteractive ? .credentialsOnly : .use
    }
}

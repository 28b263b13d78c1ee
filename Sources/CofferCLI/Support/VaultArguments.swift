import ArgumentParser
import Coffer

/// What every command that works on a vault takes: the `VAULT` path, an optional
/// key file and the lock timeout.
struct VaultArguments: ParsableArguments {
    @Argument(help: "The vault file.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("A key file that opens the vault, alone or with the master password, according to the vault's key slots.",
                               valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("lock-timeout"),
            help: ArgumentHelp("Seconds to wait for another process's write lock before giving up (exit 75).", valueName: "seconds"))
    var lockTimeout: Double = 10

    @Flag(name: .customLong("no-cache"),
          help: "Ask for the password even when `coffer unlock` left this vault unlocked.")
    var noCache = false

    @OptionGroup var kdfLimit: KDFLimitArguments

    func validate() throws {
        guard lockTimeout >= 0, lockTimeout <= 3600, lockTimeout.isFinite else {
            throw ValidationError("--lock-timeout must be 0 to 3600 seconds")
        }
        guard !vault.isEmpty else { throw ValidationError("the vault path is empty") }
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
            return Unlocked(vault: vault, password: nil, keyFile: nil, usedSlot: nil)
        }
        return try run {
            let info = try Vault.info(at: vault)
            let keyFile = try self.keyFile.map { try KeyFile(contentsOf: $0) }
            let choices = info.credentialChoices(withKeyFile: keyFile != nil)
            guard !choices.isEmpty else {
                if keyFile != nil { throw CLIFailure(.usage, "\(vault) has no key-file slot; open it without --key-file") }
                if !info.credentialChoices(withKeyFile: true).isEmpty {
                    throw CLIFailure(.usage, "\(vault) needs a key file: add --key-file PATH")
                }
                throw CLIFailure(.usage, "\(vault) has no password or key-file slot the coffer command can open")
            }
            let options = self.options
            // Refuse a costly vault before any KDF and before the password prompt.
            try info.checkUnlockCost(limit: options.kdfLimit, kinds: choices.map(\.slotKind))
            var password: SecureBytes?
            for (index, choice) in choices.enumerated() {
                // A key file alone reads no master password.
                if choice.needsPassword, password == nil { password = try SecretReader.masterPassword(for: vault) }
                guard let credential = choice.credential(password: password, keyFile: keyFile) else { continue }
                do {
                    let vault = try withProgressHint { try Vault.open(at: self.vault, credential: credential, options: options) }
                    return Unlocked(vault: vault, password: password, keyFile: keyFile, usedSlot: choice.slotKind)
                } catch CofferError.wrongKeyFile where index < choices.count - 1 {
                    // Not a key-file-only slot's file: try the next choice.
                }
            }
            throw CofferError.wrongKeyFile
        }
    }
}

/// An open vault and the factors that opened it.
///
/// Which factors are used, given the vault's key slots:
/// - without `--key-file`: the master password (a `password` slot);
/// - with `--key-file` and a `key-file` slot: the key file alone, and no password is
///   read; if that file opens no key-file-only slot and the vault has a
///   `password+key-file` slot, the password is read and both are used;
/// - with `--key-file` and only a `password+key-file` slot: the password and the file.
struct Unlocked {
    let vault: Vault
    let password: SecureBytes?
    let keyFile: KeyFile?
    /// Nil when a cached unlock (`coffer unlock`) opened it.
    let usedSlot: KeySlotKind?
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

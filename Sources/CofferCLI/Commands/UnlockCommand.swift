import ArgumentParser
import Coffer
import Foundation

/// `coffer unlock VAULT [--for DURATION]`
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Keep a vault unlocked for a while, so other commands ask for no password.",
        discussion: """
            Asks for the master password (and reads --key-file as usual), then keeps what \
            opens the vault in the kernel keyring of this login session for DURATION \
            (default 15 minutes, at most 24 hours). Until then, every command on this vault, \
            in this session, opens it without a password or key derivation; `coffer lock` \
            ends it at once, and the kernel removes it when the time is up. Unlocking again \
            replaces the earlier time.

            What is kept is the key of the slot you opened with, readable only by processes \
            of this session (not other users, not other logins of yours): any program you \
            run here meanwhile can read the vault, as with ssh-agent. Nothing is written to \
            disk, the environment or a command line. Changing the password (`passwd`) or \
            removing the key slot ends it. See README "Unlock once".

            Where the kernel offers no keyring (some containers), this exits 74 and every \
            command asks for the password as before.

            EXAMPLES:
              coffer unlock vault.coffer
              coffer unlock vault.coffer --for 1h
              coffer unlock vault.coffer --for 90s --key-file ~/vault.key
            """)

    @OptionGroup var vault: VaultArguments

    @Option(name: .customLong("for"),
            help: ArgumentHelp("How long it stays unlocked: 15m, 1h30m, 90s, or minutes (1 second to 24 hours).",
                               valueName: "duration"),
            transform: UnlockDuration.init(parsing:))
    var lifetime = UnlockDuration(seconds: 15 * 60)

    func run() throws {
        // Always with the credentials: unlocking is where they are checked.
        let unlocked = try vault.unlock(cache: .credentialsOnly)
        let cached = try vault.run { try unlocked.vault.cacheUnlock(in: CachedUnlocking.cache, for: lifetime.duration) }
        let until = cached.expires.clockTime
        Output.error("unlocked \(vault.vault) for \(lifetime.spoken) (until \(until)); `coffer lock` ends it")
    }
}

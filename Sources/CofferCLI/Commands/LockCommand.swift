import ArgumentParser
import Coffer

/// `coffer lock [VAULT | --all]`
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "End a `coffer unlock` at once: of VAULT, or of every vault.",
        discussion: """
            Removes what `coffer unlock` kept in the kernel keyring, so the next command \
            asks for the password again. Without VAULT (or with --all) every unlocked vault \
            is locked. Locking a vault that is not unlocked is not an error. Needs no password.

            EXAMPLES:
              coffer lock vault.coffer
              coffer lock --all
            """)

    @Argument(help: "The vault file to lock; every unlocked vault when omitted.", completion: .file(extensions: ["coffer"]))
    var vault: String?

    @Flag(help: "Lock every unlocked vault.")
    var all = false

    func validate() throws {
        if all, vault != nil { throw ValidationError("give VAULT or --all, not both") }
    }

    func run() throws {
        let removed = try mappingErrors(vault: vault) { () throws -> Int in
            if let vault { return try CachedUnlocking.cache.removeUnlocks(forVaultAt: vault) }
            return try CachedUnlocking.cache.removeAll()
        }
        if let vault {
            Output.error(removed > 0 ? "locked \(Output.visible(vault))" : "\(Output.visible(vault)) was not unlocked")
        } else {
            Output.error(removed == 1 ? "locked 1 vault" : "locked \(removed) vaults")
        }
    }
}

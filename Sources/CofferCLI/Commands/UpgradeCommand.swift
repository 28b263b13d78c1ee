import ArgumentParser
import Coffer

/// `coffer upgrade VAULT`
struct UpgradeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upgrade",
        abstract: "Write a format-1 vault as format 2 now, changing nothing else.",
        discussion: """
            Coffer reads vaults of format 1 and 2 and writes format 2: the first save of a \
            format-1 vault (an add, an edit, a merge) upgrades it anyway. This command does \
            only that, in one atomic replace: items, passwords and key slots stay as they \
            are (the slot you unlock with becomes a format-2 slot of the same credential), \
            and the format-1 file is kept beside it as VAULT.bak. Other format-1 slots keep \
            working; `coffer rekey` removes them. A vault already in format 2 is left as it \
            is (exit 0).

            EXAMPLES:
              coffer upgrade vault.coffer
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let upgraded = try vault.run { try unlocked.vault.upgrade() }
        if upgraded {
            // What `coffer unlock` kept named the format-1 slot, which the upgrade replaced.
            CachedUnlocking.forget(vault.vault)
            Output.error("upgraded \(vault.vault) to format 2 (the format-1 file is \(vault.vault).bak)")
        } else {
            Output.error("\(vault.vault) is format 2 already")
        }
    }
}

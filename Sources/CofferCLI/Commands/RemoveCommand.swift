import ArgumentParser
import Coffer

/// `coffer remove VAULT --service S --account A`
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Delete an item.",
        discussion: """
            Name the item as for `coffer get`; no match is exit 1, several matches exit 64. \
            The vault's previous version stays in VAULT.bak until the next change.

            EXAMPLES:
              coffer remove vault.coffer --service github.com --account octocat
              coffer remove vault.coffer --title "Old Wi-Fi"
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let unlocked = try vault.unlock(saving: rollback)
        let item = try vault.run { () throws -> Item in
            let item = try selector.resolve(in: unlocked.vault)
            try unlocked.vault.delete(item.id)
            return item
        }
        Output.error("removed \(item.summary)")
    }
}

import ArgumentParser
import Coffer
import CofferTerminal

/// `coffer remove VAULT --service S --account A`
struct RemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Delete an item.",
        discussion: """
            Name the item as for `coffer get`; no match is exit 1, several matches exit 64. \
            On a terminal, remove names the item and asks first (as `pass rm` does); --yes \
            removes without asking, for scripts. Without a question (--yes, or stdin not a \
            terminal) the name must be exact: one that only approximately names an item \
            (`gith` for github.com) is exit 64. The vault's previous version stays in \
            VAULT.bak until the next change.

            EXAMPLES:
              coffer remove vault.coffer --service github.com --account octocat
              coffer remove vault.coffer --title "Old Wi-Fi" --yes
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Flag(help: "Remove without asking on a terminal (for scripts).")
    var yes = false

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let asks = !yes && SecretReader.isInteractive
        let unlocked = try vault.unlock(saving: rollback)
        let removed = try vault.run { () throws -> Item? in
            let item = try selector.resolve(in: unlocked.vault, exactOnly: !asks)
            if asks, !SecretInput.confirm("Remove \(Output.visible(item.candidateDescription))?") { return nil }
            try unlocked.vault.delete(item.id)
            return item
        }
        guard let removed else { return Output.error("nothing was removed") }
        Output.error("removed \(removed.summary)")
    }
}

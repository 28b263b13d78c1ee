import ArgumentParser
import Coffer

/// `coffer resolve VAULT --service S [--account A]`
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Mark an item's conflicting edits as reviewed: the losing values are dropped.",
        discussion: """
            Name the item as for `coffer get`. After a merge, a field edited on two devices \
            keeps the newer value and records the other as a conflict (`coffer list \
            --conflicts`, `coffer history`). Once you have checked the item (and edited it \
            if the other value was the right one), `coffer resolve` drops those records, on \
            every device once the vault is merged there. Losing passwords stay in the \
            password history. An item without conflicts is left unchanged (exit 0).

            EXAMPLES:
              coffer history vault.coffer --service github.com
              coffer resolve vault.coffer --service github.com
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let unlocked = try vault.unlock(saving: rollback)
        let (item, count) = try vault.run { () throws -> (Item, Int) in
            let item = try selector.resolve(in: unlocked.vault)
            let count = try unlocked.vault.conflicts(for: item.id).count
            if count > 0 { try unlocked.vault.resolveConflicts(for: item.id) }
            return (item, count)
        }
        if count == 0 {
            Output.error("\(item.summary) has no conflicting edits; nothing changed")
        } else {
            Output.error("resolved \(ReplicaMerging.plural(count, "conflicting edit")) of \(item.summary)")
        }
    }
}

import ArgumentParser
import Coffer

/// `coffer merge VAULT OTHER... [--json]`
struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge other copies of the vault, edited elsewhere, into it; the other files are only read.",
        discussion: """
            Each OTHER must be a replica of VAULT: a copy of the same vault (same vault id, as \
            `coffer info` shows), edited on another device or restored from a backup. Each is \
            merged in and VAULT is saved (atomically) before the next; no password is needed \
            beyond VAULT's own, since replicas share the vault key. Nothing is lost: an edit \
            beats no edit, edits of different fields are both kept, and of the same field the \
            newer one wins while the other is kept as a conflict (`coffer list --conflicts`, \
            `coffer history`; a losing password also goes to the password history). A deletion \
            loses to an edit it had not seen. Merging A into B and B into A gives the same items.

            The OTHER files are never changed, moved or deleted (`coffer sync` puts conflict \
            copies away). A file of another vault, a damaged one, or one that cannot be read is \
            reported on stderr and skipped, the others are merged, and the exit code names the \
            worst problem: 76 (the vault was rolled back), 75 (busy), 74 (cannot read), 65 \
            (another vault, or damaged).

            \(ReplicaMerging.keySlotsHelp)

            \(EarlierKeyReporting.help) A copy with held edits is not counted as merged.

            One line per file and a summary go to stderr; with --json, the report goes to stdout.

            JSON shape (as for `coffer sync`; "movedTo" is always null and "removed" false):
            \(ReplicaMerging.jsonShape)

            EXAMPLES:
              coffer merge vault.coffer /media/usb/vault.coffer
              coffer merge vault.coffer laptop/vault.coffer phone/vault.coffer --json
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: ArgumentHelp("Copies of the vault to merge in; they are only read.", valueName: "other"),
              completion: .file(extensions: ["coffer"]))
    var others: [String] = []

    @OptionGroup var earlierKey: EarlierKeyArguments

    @Flag(help: "Print the report as JSON on stdout (shape above).")
    var json = false

    func validate() throws {
        guard !others.isEmpty else { throw ValidationError("name at least one copy of the vault to merge (OTHER)") }
    }

    func run() throws {
        let files = try ReplicaMerging.distinct(others.map { ReplicaFile(path: $0, service: nil) }, vault: vault.vault)
        let unlocked = try vault.unlock(saving: rollback)
        let wasRolledBack = unlocked.vault.rollback != nil
        let options = earlierKey.options
        let outcomes = ReplicaMerging.merge(files, into: unlocked.vault, vaultPath: vault.vault, merging: { (vault, path) throws(CofferError) in
            try vault.merge(contentsOf: path, options: options)
        })
        ReplicaMerging.printOutcomes(outcomes, vault: vault.vault)
        ReplicaMerging.printSummary(outcomes, vault: vault.vault)
        RollbackArguments.sayIfHealed(unlocked.vault, path: vault.vault, wasRolledBack: wasRolledBack)
        if json { try ReplicaMerging.json(outcomes, vault: vault.vault).print() }
        if let status = ReplicaMerging.worstProblem(outcomes) {
            throw CLIFailure(status, "\(ReplicaMerging.plural(outcomes.count { !$0.merged }, "file")) not merged (see above)")
        }
    }
}

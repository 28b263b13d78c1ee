import ArgumentParser
import Coffer

/// `coffer merge-driver --key-file KEYFILE %O %A %B [%P]`: a git merge driver.
struct MergeDriverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge-driver",
        abstract: "Merge two versions of a vault for git (a merge driver); a `coffer unlock` or the key file alone opens it.",
        discussion: """
            git runs it when both sides of a merge changed a vault file. It opens OURS (git's \
            %A) with the vault's cached unlock when `coffer unlock` left it unlocked in this \
            session, else with the key file alone, merges THEIRS (%B) into it as `coffer merge` does, \
            writes the result to OURS atomically and exits 0, so git records a clean merge. \
            BASE (%O) is accepted but not needed: the vault records what each side saw. \
            PATH (%P) is only used in messages. Its line says which key slots the merge \
            added or removed (by kind), with a warning when THEIRS added one; a THEIRS sealed \
            under an earlier vault key (before a password change or `coffer rekey`) is refused \
            and adds none.

            Without a cached unlock, the vault needs a key-file slot that opens it alone \
            (`coffer add-keyfile --alone`, or `coffer init --key-file PATH --no-password`); keep the \
            key file outside the repository. With neither, it exits 64. The driver never asks for a password and never reads a secret from \
            its arguments or the environment. It keeps no backup, remembers no replica state \
            on this device (OURS is a temporary file), and removes the lock file it used. On \
            any failure (another vault, a damaged file, a wrong key file) it writes one line \
            to stderr and exits non-zero, so git reports a conflict and leaves OURS as it was.

            \(EarlierKeyReporting.help) With held edits the driver saves OURS with the rest \
            merged and exits 65, so git reports a conflict.

            SETUP (in each clone):
              echo '*.coffer merge=coffer -diff' >> .gitattributes
              git config merge.coffer.name "coffer vault merge"
              git config merge.coffer.driver "coffer merge-driver --key-file ~/.config/coffer/vault.key %O %A %B %P"

            EXAMPLES:
              coffer merge-driver --key-file ~/.config/coffer/vault.key base ours theirs vault.coffer
            """)

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("The key file of a slot that opens the vault alone, used when the vault is not unlocked (`coffer unlock`).",
                               valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("identity"),
            help: ArgumentHelp("An age identity file or OpenSSH Ed25519 private key of a recipient slot (`coffer share`), used when the vault is not unlocked.",
                               valueName: "path"),
            completion: .file())
    var identity: String?

    @Argument(help: ArgumentHelp("The common ancestor (git's %O); not read.", valueName: "base"), completion: .file())
    var base: String

    @Argument(help: ArgumentHelp("Our version (git's %A): merged into and rewritten.", valueName: "ours"), completion: .file())
    var ours: String

    @Argument(help: ArgumentHelp("Their version (git's %B): only read.", valueName: "theirs"), completion: .file())
    var theirs: String

    @Argument(help: ArgumentHelp("The file's path in the repository (git's %P), for messages.", valueName: "path"))
    var pathname: String?

    @OptionGroup var kdfLimit: KDFLimitArguments
    @OptionGroup var earlierKey: EarlierKeyArguments

    func validate() throws {
        guard keyFile?.isEmpty != true, !ours.isEmpty, !theirs.isEmpty else { throw ValidationError("the key file, OURS and THEIRS must be paths") }
    }

    func run() throws {
        let name = pathname ?? ours
        let lockFile = ours + ".lock"
        // The store leaves a lock file beside the vault; git's %A is a temporary file in
        // the work tree, so remove the lock file this run created (and only that).
        let hadLockFile = FileChecks.exists(lockFile)
        defer { if !hadLockFile { FileChecks.remove(lockFile) } }

        var options = VaultOptions(keepsBackup: false, replicaState: .none)
        options.kdfLimit = kdfLimit.limit
        let report = try mappingErrors(vault: name) { () throws -> MergeReport in
            let vault = try CachedUnlocking.openUnattended(ours, name: name, keyFile: keyFile, identity: identity, options: options)
            return try vault.merge(contentsOf: theirs, options: earlierKey.options)
        }
        var line = "coffer merge-driver: merged \(name): \(ReplicaMerging.counts(report))"
        if !report.conflicted.isEmpty { line += " (see `coffer list --conflicts`)" }
        Output.error(line)
        if let warning = SlotChangeOutput.addedWarning(report.keySlots, merging: theirs, into: name) { Output.error(warning) }
        for line in EarlierKeyReporting.lines(report, path: theirs) { Output.error(line) }
        // Held edits: git must not record a clean merge without them (SPEC.md §17.8).
        if !report.earlierKey.held.isEmpty {
            throw CLIFailure(.vaultUnreadable, "\(Output.plural(report.earlierKey.held.count, "item")) of THEIRS held (edited under an earlier key after it was changed); "
                + "OURS holds the rest; run the driver again with --accept-old-key to take them")
        }
    }
}

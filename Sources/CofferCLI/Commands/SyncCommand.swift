import ArgumentParser
import Coffer

/// `coffer sync VAULT [--copy PATH]... [--keep-copies] [--json]`
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Merge the conflict copies a sync service left beside the vault, then delete them.",
        discussion: """
            When two devices change the vault before the sync service (Syncthing, Dropbox, \
            Nextcloud or ownCloud) has carried one change to the other, the service keeps one \
            version under the vault's name and the other as a conflict copy beside it, named \
            like these:
              vault.sync-conflict-20260301-101500-ABCDEF2.coffer     Syncthing
              vault (Jane's conflicted copy 2026-03-01).coffer       Dropbox
              vault (conflicted copy 2026-03-01 101500).coffer       Nextcloud
            `coffer sync` finds them (by name, next to the file VAULT names if it is a link), \
            adds the files given with --copy, and merges each into VAULT; every merge is \
            saved (atomically) before the next. Nothing is lost: an edit beats no edit, edits \
            of different fields are both kept, and of the same field the newer one wins while \
            the other is kept as a conflict (`coffer list --conflicts`, `coffer history`; a \
            losing password also goes to the password history). A deletion loses to an edit \
            it had not seen.

            Only after VAULT is saved with a copy merged in, and only if the copy passed every \
            check (MACs, every record's digest, and the secret part of every record taken from \
            it), is the copy deleted: everything it held is now in VAULT, and a copy left in the \
            synced folder would travel to every device and keep opening with every password it \
            ever had. With --keep-copies it is moved instead into this device's state folder \
            ($XDG_STATE_HOME/coffer/merged/VAULT-ID/, else ~/.local/state/coffer/merged/VAULT-ID/, \
            mode 0700), outside the synced folder, keeping its name (a name already there gets \
            ~2, ~3… before the extension: nothing there is ever replaced); the line for each \
            copy says where it went. A copy that fails a check (another vault, damaged anywhere, \
            unreadable) is never reported merged: it is reported on stderr and left where it is, \
            and the others are merged all the same; the exit code then names the worst problem: \
            76 (the vault was rolled back and no copy brought the newer version back: nothing \
            could be saved), 75 (busy), 74 (a file could not be read, moved or deleted), 65 \
            (another vault, or damaged). A copy refused because the vault was rolled back is \
            tried again after a later copy heals the rollback. Without any copy, the vault is \
            not even unlocked, and the exit code is 0.

            A copy is checked from its start (its vault id, key epoch and header MAC, then its \
            manifest and whether the file's size fits the records it declares) before the rest \
            is read. A copy refused for what it holds (another vault, damaged, too large) is \
            remembered on this device (in the state folder, $XDG_STATE_HOME/coffer/refused/): \
            while the file stays unchanged (same inode, size and modification time), later runs \
            report it again (error "refusedBefore", exit 65) without reading it, or unlocking \
            the vault for it alone. `coffer status` lists such copies. Remove the copy once you \
            have looked at it, or read it again with --retry-refused.

            \(ReplicaMerging.keySlotsHelp)

            \(EarlierKeyReporting.help) A copy with held edits is left where it is and not \
            counted as merged.

            One line per file and a summary go to stderr; with --json, the report goes to stdout.

            JSON shape:
            \(ReplicaMerging.jsonShape)

            Run it by hand after the service reports a conflict, or from a timer with a key \
            file that opens the vault alone (`coffer add-keyfile --alone`), so no password is asked.

            EXAMPLES:
              coffer sync ~/Sync/vault.coffer
              coffer sync ~/Sync/vault.coffer --retry-refused
              coffer sync ~/Dropbox/vault.coffer --key-file ~/.config/coffer/vault.key --keep-copies
              coffer sync vault.coffer --copy /media/usb/vault.coffer --json
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Option(name: .customLong("copy"),
            help: ArgumentHelp("Another copy of the vault to merge and put away like a conflict copy (repeatable).", valueName: "path"),
            completion: .file(extensions: ["coffer"]))
    var copies: [String] = []

    @Flag(name: .customLong("keep-copies"),
          help: "Move each merged copy into this device's state folder (merged/VAULT-ID/, outside the synced folder) instead of deleting it.")
    var keepCopies = false

    @Flag(name: .customLong("retry-refused"), help: "Read again the copies refused on an earlier run, even if unchanged.")
    var retryRefused = false

    @OptionGroup var earlierKey: EarlierKeyArguments

    @Flag(help: "Print the report as JSON on stdout (shape above).")
    var json = false

    func run() throws {
        guard FileChecks.existsFollowingLinks(vault.vault) else {
            throw CLIFailure(.ioError, "no such file: \(vault.vault)")
        }
        let found = try vault.run { try Vault.conflictCopies(of: vault.vault) }
        let files = try ReplicaMerging.distinct(found.map { ReplicaFile(path: $0.path, service: $0.service) }
                                                    + copies.map { ReplicaFile(path: $0, service: nil) },
                                                vault: vault.vault)
        guard !files.isEmpty else {
            Output.error("no conflict copies of \(vault.vault) to merge")
            if json { try ReplicaMerging.json([], vault: vault.vault).print() }
            return
        }
        // Copies refused on an earlier run and unchanged since are reported without being read;
        // the vault is unlocked only when another copy is left to merge.
        var outcomes: [ReplicaOutcome] = []
        var toMerge: [ReplicaFile] = []
        for file in files {
            if !retryRefused, let refused = Vault.refusal(ofCopyAt: file.path, forVaultAt: vault.vault) {
                var outcome = ReplicaOutcome(file: file)
                outcome.failure = CLIFailure(.vaultUnreadable, "\(refused.error.description) (--retry-refused reads it again)")
                outcome.errorKind = CofferError.Kind.refusedBefore.rawValue
                outcomes.append(outcome)
            } else {
                toMerge.append(file)
            }
        }
        var healing: (vault: Vault, wasRolledBack: Bool)?
        if !toMerge.isEmpty {
            let (merged, mergedInto, wasRolledBack) = try merge(toMerge)
            healing = (mergedInto, wasRolledBack)
            for var outcome in merged {
                if outcome.failure != nil, Vault.refusal(ofCopyAt: outcome.file.path, forVaultAt: vault.vault) != nil {
                    outcome.note = "remembered on this device: later syncs skip \(outcome.file.path) without reading it while it is unchanged "
                        + "(`coffer status` lists it; remove it, or read it again with --retry-refused)"
                }
                outcomes.append(outcome)
            }
        }
        let order = Dictionary(files.enumerated().map { ($1.path, $0) }, uniquingKeysWith: { first, _ in first })
        outcomes.sort { (order[$0.file.path] ?? 0) < (order[$1.file.path] ?? 0) }
        ReplicaMerging.printOutcomes(outcomes, vault: vault.vault)
        ReplicaMerging.printSummary(outcomes, vault: vault.vault)
        if let healing { RollbackArguments.sayIfHealed(healing.vault, path: vault.vault, wasRolledBack: healing.wasRolledBack) }
        if json { try ReplicaMerging.json(outcomes, vault: vault.vault).print() }
        if let status = ReplicaMerging.worstProblem(outcomes) {
            let failed = outcomes.count { !$0.merged }
            let stuck = outcomes.count { $0.disposalFailure != nil }
            var parts: [String] = []
            if failed > 0 { parts.append("\(ReplicaMerging.plural(failed, "file")) not merged") }
            if stuck > 0 { parts.append(stuck == 1 ? "1 merged copy not put away" : "\(stuck) merged copies not put away") }
            throw CLIFailure(status, parts.joined(separator: ", ") + " (see above)")
        }
    }

    /// Unlocks the vault and merges `files` into it, putting each away once merged; with
    /// the vault, and whether it was rolled back before (to say whether a merge healed it).
    private func merge(_ files: [ReplicaFile]) throws -> (outcomes: [ReplicaOutcome], vault: Vault, wasRolledBack: Bool) {
        let unlocked = try vault.unlock(saving: rollback)
        let wasRolledBack = unlocked.vault.rollback != nil
        // Where kept copies go (--keep-copies): this device's state folder, created when the
        // first one needs it; never a folder that is synced.
        var keptFolder: String?
        var folderProblem: CLIFailure?
        let retry = retryRefused, mergeOptions = earlierKey.options
        let outcomes = ReplicaMerging.merge(files, into: unlocked.vault, vaultPath: vault.vault, merging: { (vault, path) throws(CofferError) in
            try vault.mergeConflictCopy(at: path, rereadingRefused: retry, options: mergeOptions)
        }) { outcome in
            // Edits held back (a copy under an earlier key): the copy still holds them, and stays.
            guard !outcome.holdsEdits else { return }
            // The vault is saved with this copy merged in, and the copy passed every check: now it may go.
            let path = outcome.file.path
            let changed = "\(path) changed while it was merged; left in place for the next sync"
            guard let noted = outcome.version else {
                outcome.note = changed
                return
            }
            do {
                let disposal: MergedCopyDisposal
                if keepCopies {
                    if let folderProblem { throw folderProblem }
                    if keptFolder == nil {
                        do throws(CofferError) {
                            keptFolder = try Vault.mergedCopiesFolder(forVaultAt: vault.vault)
                        } catch {
                            let problem = CLIFailure(.ioError, "cannot make the folder for kept copies: \(Self.reason(error)); merged copies were left in place")
                            folderProblem = problem
                            throw problem
                        }
                    }
                    disposal = .move(into: keptFolder ?? "")
                } else {
                    disposal = .delete
                }
                switch try Vault.putAwayMergedCopy(at: path, unchangedSince: noted, disposal) {
                case .moved(let to): outcome.movedTo = to
                case .deleted: outcome.removed = true
                case .changed: outcome.note = changed
                }
            } catch let failure as CLIFailure {
                outcome.disposalFailure = failure
            } catch let error as CofferError {
                outcome.disposalFailure = keepCopies
                    ? CLIFailure(.ioError, "cannot move \(path) to \(keptFolder ?? "the state folder"): \(Self.reason(error)); it was left in place")
                    : CLIFailure(.ioError, "cannot delete \(path): \(Self.reason(error)); it was left in place")
            } catch {
                outcome.disposalFailure = CLIFailure(.ioError, "cannot put \(path) away: \(error)")
            }
        }
        return (outcomes, unlocked.vault, wasRolledBack)
    }

    /// Why putting a copy away failed, as the system says it ("Permission denied").
    private static func reason(_ error: CofferError) -> String {
        error.errno.map(ProcessIO.errorText) ?? error.description
    }
}

import Coffer

/// A file to merge into a vault: a conflict copy found beside it, or a path given.
struct ReplicaFile {
    let path: String
    /// The sync service whose naming a found copy follows; nil for a path given.
    let service: ConflictCopyService?
}

/// What `sync` or `merge` did with one file.
struct ReplicaOutcome {
    let file: ReplicaFile
    /// Set when the file was merged (and the vault saved).
    var report: MergeReport?
    /// Why the file was not merged; it was left as it was.
    var failure: CLIFailure?
    /// The library's error kind for ``failure`` (for JSON), when it came from the library.
    var errorKind: String?
    /// `sync`: where the merged copy was moved, or whether it was deleted.
    var movedTo: String?
    var removed = false
    /// `sync`: why a merged copy could not be moved or deleted (it stays; merging it again changes nothing).
    var disposalFailure: CLIFailure?
    /// `sync`: why a merged copy was left in place without it being a problem.
    var note: String?
    /// The file as it was just before the merge read it, to notice a change before it is moved.
    var version: FileVersion?

    /// Merged whole: saved, and nothing held back (SPEC.md §17.8).
    var merged: Bool { report != nil && !holdsEdits }
    /// Saved with edits of the file held back (a copy under an earlier key): it stays in place.
    var holdsEdits: Bool { report?.earlierKey.held.isEmpty == false }
}

/// Merges replicas into an open vault, one file at a time, for `sync` and `merge`. The
/// library decides everything about the merge (``Vault/merge(contentsOf:)``); this only
/// runs it per file and reports.
enum ReplicaMerging {
    /// Merges `files` into `vault`, in order; each merge is saved before the next starts.
    /// A file that cannot be merged (another vault, damaged, unreadable, or refused because
    /// the vault was rolled back) is reported and skipped; a busy vault (lock timeout, or a
    /// change on disk that cannot be merged) stops the rest, which are reported as not tried.
    /// A file refused because the vault was rolled back is tried again after a later one
    /// merged (it may have brought the newer version back). `merged` runs after each
    /// successful merge, e.g. to put the copy away. Outcomes are in the order of `files`.
    /// `merging` merges one file (`sync`: ``Vault/mergeConflictCopy(at:rereadingRefused:)``,
    /// which remembers a copy it refuses).
    static func merge(_ files: [ReplicaFile], into vault: Vault, vaultPath: String,
                      merging: (Vault, String) throws(CofferError) -> MergeReport = { (vault, path) throws(CofferError) in try vault.merge(contentsOf: path) },
                      merged: (inout ReplicaOutcome) -> Void = { _ in }) -> [ReplicaOutcome] {
        var outcomes = files.map { ReplicaOutcome(file: $0) }
        var stopped: (failure: CLIFailure, kind: String)?
        // Refused as rolled back, waiting for a merge that heals the vault.
        var waiting: [Int] = []
        func attempt(_ index: Int) {
            var outcome = ReplicaOutcome(file: files[index])
            do {
                outcome.version = FileVersion(of: outcome.file.path)
                outcome.report = try merging(vault, outcome.file.path)
                merged(&outcome)
            } catch {
                outcome.failure = CLIFailure(error, vault: outcome.file.path)
                outcome.errorKind = error.kind.rawValue
                if error.kind == .rolledBack || error.kind == .lockTimeout || error.kind == .conflict {
                    // About the vault, not the file: say so in the vault's name.
                    outcome.failure = CLIFailure(error, vault: vaultPath)
                }
                if error.kind == .lockTimeout || error.kind == .conflict || error.kind == .vaultLocked, let failure = outcome.failure {
                    stopped = (failure, error.kind.rawValue)
                }
            }
            outcomes[index] = outcome
        }
        for index in files.indices {
            if let stopped {
                outcomes[index].failure = CLIFailure(stopped.failure.status, "not tried: \(stopped.failure.message)")
                outcomes[index].errorKind = stopped.kind
                continue
            }
            attempt(index)
            if outcomes[index].errorKind == CofferError.Kind.rolledBack.rawValue {
                waiting.append(index)
                continue
            }
            // A merge saved: the files refused as rolled back may merge now.
            var healed = outcomes[index].report != nil
            while healed, stopped == nil, !waiting.isEmpty {
                healed = false
                for retry in waiting {
                    attempt(retry)
                    if outcomes[retry].report != nil { healed = true }
                }
                waiting.removeAll { outcomes[$0].report != nil || outcomes[$0].errorKind != CofferError.Kind.rolledBack.rawValue }
            }
        }
        return outcomes
    }

    /// Refuses (exit 64) a file to merge that is the vault file itself, and drops the
    /// second mention of a file named twice (the same file under two paths counts once).
    static func distinct(_ files: [ReplicaFile], vault: String) throws -> [ReplicaFile] {
        let vaultVersion = FileVersion(of: vault)
        var seen: [FileVersion] = []
        var seenPaths = Set<String>()
        var result: [ReplicaFile] = []
        for file in files {
            guard !file.path.isEmpty else { throw CLIFailure(.usage, "a path to merge is empty") }
            let version = FileVersion(of: file.path)
            if let version, let vaultVersion, version.isSameFile(as: vaultVersion) {
                throw CLIFailure(.usage, "\(file.path) is the vault file itself; name another copy to merge")
            }
            if let version {
                guard !seen.contains(where: version.isSameFile(as:)) else { continue }
                seen.append(version)
            } else {
                guard seenPaths.insert(file.path).inserted else { continue }
            }
            result.append(file)
        }
        return result
    }

    // MARK: - Reporting

    /// One line per file on stderr: what was merged, what was not and why.
    static func printOutcomes(_ outcomes: [ReplicaOutcome], vault: String) {
        for outcome in outcomes {
            let name = outcome.file.path + (outcome.file.service.map { " (\($0.rawValue))" } ?? "")
            if let report = outcome.report {
                var line = "merged \(name): \(counts(report))"
                if let movedTo = outcome.movedTo { line += "; kept in \(movedTo)" }
                if outcome.removed { line += "; deleted it" }
                Output.error(line)
                if let warning = SlotChangeOutput.addedWarning(report.keySlots, merging: outcome.file.path, into: vault) { Output.error(warning) }
                for extra in EarlierKeyReporting.lines(report, path: outcome.file.path) { Output.error(extra) }
                if let problem = outcome.disposalFailure { Output.error("coffer: \(problem.message)") }
                if let note = outcome.note { Output.error("coffer: note: \(note)") }
            } else if let failure = outcome.failure {
                Output.error("coffer: not merged: \(failure.message); \(outcome.file.path) left in place, none of its key slots added")
                if let note = outcome.note { Output.error("coffer: note: \(note)") }
            }
        }
    }

    /// The last line: totals over the files merged.
    static func printSummary(_ outcomes: [ReplicaOutcome], vault: String) {
        let total = totals(outcomes)
        let mergedCount = outcomes.count { $0.merged }
        var line = "merged \(mergedCount) of \(outcomes.count) file\(outcomes.count == 1 ? "" : "s") into \(vault): "
            + "\(plural(total.added, "item")) added, \(total.updated) updated, \(total.deleted) deleted, \(total.restored) restored"
        if !total.conflicted.isEmpty {
            line += "; \(plural(total.conflicted.count, "item")) with conflicting edits (see `coffer list \(vault) --conflicts`)"
        }
        if outcomes.contains(where: \.holdsEdits) { line += "; \(plural(outcomes.count(where: \.holdsEdits), "file")) with held edits (--accept-old-key)" }
        Output.error(line + "; " + SlotChangeOutput.summary(total.keySlots))
    }

    /// The exit status for the worst problem, or nil when every file was merged and put away.
    static func worstProblem(_ outcomes: [ReplicaOutcome]) -> ExitStatus? {
        let statuses = outcomes.compactMap { $0.failure?.status } + outcomes.compactMap { $0.disposalFailure?.status }
        return severity.first(where: statuses.contains) ?? statuses.first
    }

    /// Worst first: the vault could not be saved at all, then problems with single files.
    static let severity: [ExitStatus] = [.rolledBack, .busy, .ioError, .vaultUnreadable, .wrongCredential, .usage]

    /// The `--json` report of `sync` and `merge` (shape in their help).
    static func json(_ outcomes: [ReplicaOutcome], vault: String) -> JSONValue {
        let total = totals(outcomes)
        let files: [JSONValue] = outcomes.map { outcome in
            let report = outcome.report ?? MergeReport()
            return .object([
                ("path", .string(outcome.file.path)),
                ("service", .optional(outcome.file.service?.rawValue)),
                ("merged", .bool(outcome.merged)),
                ("added", .int(Int64(report.added))),
                ("updated", .int(Int64(report.updated))),
                ("deleted", .int(Int64(report.deleted))),
                ("restored", .int(Int64(report.restored))),
                ("conflicted", .strings(report.conflicted.map(\.hex))),
            ] + SlotChangeOutput.json(report.keySlots) + [
                ("movedTo", .optional(outcome.movedTo)),
                ("removed", .bool(outcome.removed)),
                ("error", .optional(outcome.failure == nil ? nil : outcome.errorKind)),
                ("message", .optional(outcome.failure?.message ?? outcome.disposalFailure?.message ?? outcome.note)),
                ("earlierKey", EarlierKeyReporting.json(report)),
            ])
        }
        return .object([
            ("vault", .string(vault)),
            ("files", .array(files)),
            ("merged", .int(Int64(outcomes.count { $0.merged }))),
            ("failed", .int(Int64(outcomes.count { !$0.merged }))),
            ("added", .int(Int64(total.added))),
            ("updated", .int(Int64(total.updated))),
            ("deleted", .int(Int64(total.deleted))),
            ("restored", .int(Int64(total.restored))),
            ("conflicted", .strings(total.conflicted.map(\.hex))),
        ] + SlotChangeOutput.json(total.keySlots))
    }

    /// What `merge` and `sync` say about key slots, for their help.
    static let keySlotsHelp = """
        KEY SLOTS: a copy's key slots join VAULT's, except those either side removed (a \
        password set on a copy opens the merged vault too). Each file's line says which \
        slots its merge added or removed, by kind, with a warning when it added one; the \
        summary says "key slots: none added or removed" otherwise, and --json lists them \
        ("slotsAdded", "slotsRemoved"). A copy sealed under an earlier vault key (made \
        before a password change, a key-file removal or `coffer rekey`) adds none of its \
        slots, and removes none: only its items merge.
        """

    /// The JSON shape, for the commands' help.
    static let jsonShape = """
          {"vault": str,
           "files": [{"path": str,
                      "service": "syncthing"|"dropbox"|"nextcloud"|null,
                      "merged": bool, "added": int, "updated": int,
                      "deleted": int, "restored": int, "conflicted": [id],
                      "slotsAdded": [kind], "slotsRemoved": [kind],
                      "movedTo": str|null, "removed": bool,
                      "error": str|null, "message": str|null,
                      \(EarlierKeyReporting.jsonShape)}],
           "merged": int, "failed": int, "added": int, "updated": int,
           "deleted": int, "restored": int, "conflicted": [id],
           "slotsAdded": [kind], "slotsRemoved": [kind]}
          with each kind "password", "password+key-file", "key-file", "raw-key",
          "age-recipient" or "ssh-recipient":
          key slots a merged file added to the vault or removed from it (a file not
          merged adds none).
        """

    private static func totals(_ outcomes: [ReplicaOutcome]) -> (added: Int, updated: Int, deleted: Int, restored: Int, conflicted: [ItemID], keySlots: KeySlotChange) {
        var total = (added: 0, updated: 0, deleted: 0, restored: 0, conflicted: [ItemID](), keySlots: KeySlotChange.none)
        for report in outcomes.compactMap(\.report) {
            total.added += report.added
            total.updated += report.updated
            total.deleted += report.deleted
            total.restored += report.restored
            total.conflicted += report.conflicted.filter { !total.conflicted.contains($0) }
            total.keySlots = total.keySlots.followed(by: report.keySlots)
        }
        return total
    }

    static func counts(_ report: MergeReport) -> String {
        "\(report.added) added, \(report.updated) updated, \(report.deleted) deleted, \(report.restored) restored, "
            + "\(report.conflicted.count) with conflicting edits"
            + (report.keySlots.added.isEmpty && report.keySlots.removed.isEmpty ? "" : "; " + SlotChangeOutput.summary(report.keySlots))
    }

    static func plural(_ count: Int, _ noun: String) -> String { Output.plural(count, noun) }
}

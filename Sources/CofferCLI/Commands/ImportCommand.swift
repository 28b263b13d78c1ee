import ArgumentParser
import Coffer

/// `coffer import VAULT --format F FILE [--json] [--dry-run]`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import another password manager's export (KeePassXC, Bitwarden, a browser) or Coffer's own JSON.",
        discussion: """
            FORMATS (--format; without it, the format is told from the file's first bytes \
            and named in the summary):
              keepassxc-xml   keepassxc-cli export --format xml (groups become tags, history, OTP, attributes)
              keepassxc-csv   keepassxc-cli export --format csv
              bitwarden-json  Bitwarden's unencrypted JSON export
              csv             a browser's CSV (Chrome, Edge, Firefox, Safari) or any CSV with a header row
              coffer-json     `coffer export --format json`

            The whole file is imported in one transaction: a file that is malformed halfway \
            imports nothing (exit 65, naming the line). An item already in the vault, or earlier \
            in the file, is not added twice: it matches by service and account (or server, \
            protocol, port, path and account), or as a browser matches logins, by site (host \
            without www., and account) across kinds and paths; notes match by title and text. \
            What it holds that the item lacks is carried into the item (custom and secret \
            fields, the one-time password, notes, attachments, a label, earlier passwords; tags \
            and URLs are joined), and what differs is reported by name, never by value, and \
            left out: the item keeps its own. One that holds nothing new is a skipped \
            duplicate. A password that differs from the item's is a conflict: each is listed \
            (name and line, never a password) and --on-conflict settles it: skip (the default: \
            leave it), keep-both (keep the current password; the imported one goes first in the \
            item's password history, see `coffer history`), update (the imported password \
            becomes current, also after an earlier keep-both; the old one goes to the history). \
            The summary goes to stderr; with --json, the report goes to stdout. --dry-run reads \
            and checks everything and saves nothing.

            JSON shape:
              {"format": str, "file": str, "dryRun": bool, "imported": int,
               "skippedDuplicates": [{"label": str, "location": str, "reason": str}],
               "conflicts": [{"label": str, "location": str, "resolution": "skip"|"keep-both"|"update"}],
               "merged": [{"label": str, "location": str, "into": str, "matchedBy": str,
                           "carried": [str], "notCarried": [str]}],
               "skipped": [{"label": str, "location": str, "reason": str}],
               "unreadable": [{"location": str, "reason": str}],
               "warnings": [{"location": str, "message": str}],
               "recognisedColumns": [{"column": str, "field": str}] | null}

            The import file is plaintext: delete it (securely) once imported.

            EXAMPLES:
              keepassxc-cli export --format xml old.kdbx > old.xml && coffer import vault.coffer --format keepassxc-xml old.xml
              coffer import vault.coffer "Chrome Passwords.csv" --dry-run
              coffer import vault.coffer --format csv "Chrome Passwords.csv" --on-conflict update
              printf '%s\\n' "$MASTER" | coffer import vault.coffer --format bitwarden-json bitwarden.json --json
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Option(help: ArgumentHelp("The file's format: keepassxc-xml, keepassxc-csv, bitwarden-json, csv or coffer-json (default: told from the file).", valueName: "format"))
    var format: String?

    @Argument(help: "The export file to import.", completion: .file())
    var file: String

    @Flag(help: "Print the report as JSON on stdout (shape above).")
    var json = false

    @Flag(name: .customLong("dry-run"), help: "Read and check the file, but save nothing.")
    var dryRun = false

    @Option(name: .customLong("on-conflict"),
            help: ArgumentHelp("An item in the vault whose password differs: skip, keep-both or update.", valueName: "policy"))
    var onConflict: String = ImportConflictPolicy.skip.rawValue

    func validate() throws {
        if let format, ImportFormat(rawValue: format) == nil {
            throw ValidationError("--format must be one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ImportConflictPolicy(rawValue: onConflict) != nil else {
            throw ValidationError("--on-conflict must be one of \(ImportConflictPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard !file.isEmpty else { throw ValidationError("the import file path is empty") }
    }

    func run() throws {
        let format = try self.format.map { name in
            guard let known = ImportFormat(rawValue: name) else { throw CLIFailure(.usage, "unknown format \(name)") }
            return known
        }
        guard let policy = ImportConflictPolicy(rawValue: onConflict) else { throw CLIFailure(.usage, "unknown --on-conflict \(onConflict)") }
        // Fail on a missing file before asking for the master password.
        guard FileChecks.isReadableFile(file) else { throw CLIFailure(.ioError, "cannot read \(file): no such file, or not a readable file") }
        let unlocked = try vault.unlock(saving: rollback)
        let report: ImportReport
        do {
            report = try unlocked.vault.importItems(fromFile: file, format: format, dryRun: dryRun, onConflict: policy)
        } catch where error.kind == .malformedImport {
            throw CLIFailure(.vaultUnreadable, "\(file): \(error.detail ?? error.description); nothing was imported")
        } catch where error.kind.isBadRequest {
            throw CLIFailure(.usage, "\(file): \(error.detail ?? error.description); nothing was imported")
        } catch CofferError.fileNotFound {
            throw CLIFailure(.ioError, "cannot read \(file): no such file")
        } catch {
            throw CLIFailure(error, vault: vault.vault)
        }
        printSummary(report)
        if json { try reportJSON(report).print() }
    }

    private func printSummary(_ report: ImportReport) {
        let verb = report.dryRun ? "would import" : "imported"
        Output.error("\(verb) \(report.imported) item\(report.imported == 1 ? "" : "s") from \(file) (\(report.format.rawValue)) into \(vault.vault)"
                     + (report.dryRun ? " (dry run: nothing was saved)" : ""))
        if !report.skippedDuplicates.isEmpty {
            Output.error("skipped \(report.skippedDuplicates.count) duplicate\(report.skippedDuplicates.count == 1 ? "" : "s"):")
            for item in report.skippedDuplicates { Output.error("  \(item.location): \(item.label): \(item.reason)") }
        }
        if !report.conflicts.isEmpty {
            let done: [ImportConflictPolicy: String] = [
                .skip: "left as they are (--on-conflict keep-both or update to take the imported password)",
                .keepBoth: "kept; the imported password went to each item's history",
                .update: "updated; the old password went to each item's history"]
            Output.error("\(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s"), items whose password "
                         + "differs from the imported one, \(done[report.conflicts[0].resolution] ?? ""):")
            for item in report.conflicts { Output.error("  \(item.location): \(item.label)") }
        }
        if !report.merged.isEmpty {
            Output.error("\(report.merged.count) item\(report.merged.count == 1 ? "" : "s") already in the vault, carried into it:")
            for item in report.merged {
                Output.error("  \(item.location): \(item.label) -> \(item.into) (\(item.matchedBy))")
                if !item.carried.isEmpty { Output.error("    carried: " + item.carried.joined(separator: "; ")) }
                if !item.notCarried.isEmpty { Output.error("    not carried, the item keeps its own: " + item.notCarried.joined(separator: "; ")) }
            }
        }
        if !report.skipped.isEmpty {
            Output.error("skipped \(report.skipped.count) on purpose:")
            for item in report.skipped { Output.error("  \(item.location): \(item.label): \(item.reason)") }
        }
        if !report.unreadable.isEmpty {
            Output.error("could not read \(report.unreadable.count):")
            for problem in report.unreadable { Output.error("  \(problem.location): \(problem.reason)") }
        }
        if !report.warnings.isEmpty {
            Output.error("warnings:")
            for warning in report.warnings { Output.error("  \(warning.location): \(warning.message)") }
        }
        if let columns = report.recognisedColumns {
            Output.error("columns: " + columns.map { "\($0.column) -> \($0.field)" }.joined(separator: ", "))
        }
    }

    private func reportJSON(_ report: ImportReport) -> JSONValue {
        func skipped(_ list: [ImportReport.Skipped]) -> JSONValue {
            .array(list.map { .object([("label", .string($0.label)), ("location", .string($0.location)), ("reason", .string($0.reason))]) })
        }
        return .object([
            ("format", .string(report.format.rawValue)),
            ("file", .string(file)),
            ("dryRun", .bool(report.dryRun)),
            ("imported", .int(Int64(report.imported))),
            ("skippedDuplicates", skipped(report.skippedDuplicates)),
            ("conflicts", .array(report.conflicts.map {
                .object([("label", .string($0.label)), ("location", .string($0.location)), ("resolution", .string($0.resolution.rawValue))])
            })),
            ("merged", .array(report.merged.map {
                .object([("label", .string($0.label)), ("location", .string($0.location)), ("into", .string($0.into)),
                         ("matchedBy", .string($0.matchedBy)), ("carried", .strings($0.carried)), ("notCarried", .strings($0.notCarried))])
            })),
            ("skipped", skipped(report.skipped)),
            ("unreadable", .array(report.unreadable.map { .object([("location", .string($0.location)), ("reason", .string($0.reason))]) })),
            ("warnings", .array(report.warnings.map { .object([("location", .string($0.location)), ("message", .string($0.message))]) })),
            ("recognisedColumns", report.recognisedColumns.map { columns in
                .array(columns.map { .object([("column", .string($0.column)), ("field", .string($0.field))]) })
            } ?? .null),
        ])
    }
}

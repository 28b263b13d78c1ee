import ArgumentParser
import Coffer

/// `coffer export VAULT --format json|csv [--output PATH]`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export every item, decrypted, as JSON (every field) or CSV (for other password managers).",
        discussion: """
            THE OUTPUT IS PLAINTEXT: anyone who reads it reads every password. A warning \
            says so on stderr every time.

            --format json writes Coffer's documented JSON with every field (re-import it with \
            `coffer import --format coffer-json`; export, import into an empty vault and export \
            again gives the same bytes). --format csv writes one row per item with the columns \
            name,url,username,password,note,otp,tags,kind,service,server,protocol,port,path,\
            comment,favorite,created,modified (custom fields, other secret fields, history and \
            attachments are left out).

            The export goes to stdout, or with --output PATH to a new file with mode 0600 (an \
            existing file is never overwritten: exit 73).

            A damaged entry (its bytes changed on disk) fails the export (exit 65); with \
            --salvage every item that can be read is exported and the damaged ones are named \
            on stderr (exit 0): save what is readable, then `coffer repair`.

            EXAMPLES:
              coffer export vault.coffer --format json --output /media/usb/coffer.json
              coffer export vault.coffer --format csv > passwords.csv
              coffer export vault.coffer --format json --salvage --output rescued.json
            """)

    @OptionGroup var vault: VaultArguments

    @Option(help: ArgumentHelp("json (every field) or csv.", valueName: "format"))
    var format: String

    @Option(help: ArgumentHelp("Write to this new file (mode 0600) instead of stdout.", valueName: "path"), completion: .file())
    var output: String?

    @Flag(help: "Export every item that can be read, naming damaged entries on stderr, instead of failing on the first.")
    var salvage = false

    func validate() throws {
        guard ExportFormat(rawValue: format) != nil else { throw ValidationError("--format must be json or csv") }
        if output?.isEmpty == true { throw ValidationError("--output must not be empty") }
    }

    func run() throws {
        guard let format = ExportFormat(rawValue: format) else { throw CLIFailure(.usage, "unknown format \(self.format)") }
        if let output, FileChecks.existsFollowingLinks(output) {
            throw CLIFailure(.cannotCreate, "cannot create \(output): the file exists")
        }
        let unlocked = try vault.unlock()
        Output.error("coffer: warning: the export is plaintext: anyone who reads it can read every password")
        var leftOut: [DamagedItem] = []
        if let output {
            if salvage {
                leftOut = try vault.run { try unlocked.vault.exportReadableItems(format: format, toFile: output) }
            } else {
                try vault.run { try unlocked.vault.exportItems(format: format, toFile: output) }
            }
            Output.error("exported \(format.rawValue) to \(output) (mode 0600)")
        } else if salvage {
            let salvaged = try vault.run { try unlocked.vault.exportReadableItems(format: format) }
            leftOut = salvaged.damaged
            try salvaged.contents.withUnsafeBytes { try Output.bytes($0) }
        } else {
            let export = try vault.run { try unlocked.vault.exportItems(format: format) }
            try export.withUnsafeBytes { try Output.bytes($0) }
        }
        if !leftOut.isEmpty {
            Output.error("coffer: warning: \(vault.vault): \(DamagedEntries.named(leftOut)) left out of the export; "
                         + "`coffer repair \(vault.vault)` replaces them from \(vault.vault).bak or another copy, or takes them out")
        }
    }
}

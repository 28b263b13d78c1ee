import ArgumentParser
import Coffer

/// `coffer add VAULT --service S --account A` / `--server URL`
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a password: a generic password (--service) or an internet password (--server).",
        discussion: """
            The item's password is asked for twice on a terminal; on a pipe it is the line \
            after the master password. With --generate, a random password is made instead \
            (generator flags as in `coffer generate`); --print prints it on stdout once the \
            item is saved, --clip copies it to the clipboard (cleared after --clear-after \
            seconds), else nothing is printed: show it with `coffer get`. Each --secret-field NAME then reads one more line (or prompt) for its value.

            --server takes a URL: its host is the server, its scheme the protocol, plus port \
            and path; the URL is also kept in the item's URLs. --comment and --field NAME=VALUE \
            are searchable and not secret. --expires DATE sets an expiry date (YYYY-MM-DD, \
            midnight UTC, or ISO 8601 such as 2027-01-31T09:30:00+01:00): `show` prints it, \
            `list --expired` and `audit` report it.

            NOTES are secret, so they are never taken from the command line (where `ps` shows \
            them): --notes reads them last, typed on a terminal and ended with Ctrl-D, or on \
            a pipe as the rest of stdin after the other lines (the master password, the item's \
            password unless --generate, one line per --secret-field). One trailing newline is \
            dropped. `--notes TEXT` is refused (exit 64).

            Exit code 2 if an item with the same service and account (or the same server, \
            protocol, port, path and account) exists: change it with `coffer edit`.

            EXAMPLES:
              coffer add vault.coffer --service github.com --account octocat --tag work
              coffer add vault.coffer --server https://example.com/login --account me --generate --length 24 --clip
              printf 'master\\nitem-password\\n' | coffer add vault.coffer --service api --account ci
              { printf 'master\\nitem-password\\n'; cat notes.txt; } | coffer add vault.coffer --service db --notes
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Option(help: "The service of a generic password, e.g. github.com.")
    var service: String?

    @Option(help: ArgumentHelp("The server of an internet password, as a URL (https://host:port/path) or a host.", valueName: "url"))
    var server: String?

    @Option(help: "The account or user name.")
    var account: String?

    @Option(help: "A display name.")
    var label: String?

    @Option(help: "A URL for the item (repeatable).")
    var url: [String] = []

    @Flag(help: "Read notes, stored encrypted with the password: typed on a terminal (end with Ctrl-D), else the rest of stdin after the other lines. Never a value on the command line.")
    var notes = false

    @Option(help: ArgumentHelp("A short, searchable, non-secret comment.", valueName: "text"))
    var comment: String?

    @Option(help: "A tag (repeatable).")
    var tag: [String] = []

    @Option(help: ArgumentHelp("A non-secret custom field, NAME=VALUE (repeatable).", valueName: "name=value"))
    var field: [String] = []

    @Option(name: .customLong("secret-field"),
            help: ArgumentHelp("A secret custom field; its value is read like a password (repeatable).", valueName: "name"))
    var secretField: [String] = []

    @Flag(help: "Mark the item as a favorite.")
    var favorite = false

    @Option(help: ArgumentHelp("An expiry date: YYYY-MM-DD (UTC) or ISO 8601, or never (the default).", valueName: "date"))
    var expires: String?

    @Flag(help: "Generate the password instead of reading it.")
    var generate = false

    @Flag(name: .customLong("print"), help: "With --generate: print the new password on stdout once the item is saved.")
    var printPassword = false

    @OptionGroup var clipboard: ClipboardArguments

    @OptionGroup(title: "Generator options (with --generate)")
    var generator: GeneratorFlags

    func validate() throws {
        guard (service == nil) != (server == nil) else {
            throw ValidationError("give exactly one of --service (generic password) or --server (internet password)")
        }
        if service?.isEmpty == true { throw ValidationError("--service must not be empty") }
        if generator.anyGiven && !generate { throw ValidationError("generator options need --generate") }
        if (printPassword || clipboard.clip) && !generate { throw ValidationError("--\(printPassword ? "print" : "clip") needs --generate (a typed password is not shown)") }
        if printPassword && clipboard.clip { throw ValidationError("--print and --clip cannot be used together") }
        try clipboard.check()
    }

    func run() throws {
        var attributes: ItemAttributes
        if let service {
            attributes = ItemAttributes(kind: .genericPassword, service: service, account: account)
        } else {
            let address = try ServerAddress(option: server ?? "")
            attributes = ItemAttributes(kind: .internetPassword, account: account, server: address.host,
                                        protocol: address.scheme, port: address.port, path: address.path)
            if let link = ServerAddress.link(server ?? "") { attributes.urls.append(link) }
        }
        attributes.label = label
        attributes.comment = comment
        attributes.urls += url.filter { !attributes.urls.contains($0) }
        attributes.tags = tag
        attributes.isFavorite = favorite
        attributes.fields = try parseFieldAssignments(field)
        attributes.expires = try expires.flatMap(ExpiryOption.parse)
        let passwordGenerator = generate ? try generator.generator() : nil
        let tool = try clipboard.tool()

        let unlocked = try vault.unlock(saving: rollback,
                                        cache: .readingStdin(secrets: passwordGenerator == nil || !secretField.isEmpty || notes))
        let password: SecureBytes
        if let passwordGenerator {
            password = try mappingErrors(vault: nil) { try passwordGenerator.generate() }
        } else {
            password = try SecretReader.newSecret(prompt: "Password for \(Self.name(attributes)): ", what: "the item's password")
        }
        let fields = try readSecretFields(secretField)
        let itemNotes = notes ? try SecretReader.notes() : nil
        let secrets = ItemSecrets(password: password, notes: itemNotes.flatMap { $0.count == 0 ? nil : $0 }, fields: fields)
        do {
            let item = try vault.run { try unlocked.vault.add(attributes, secrets: secrets) }
            Output.error("added \(item.summary)")
            // Shown only once the item is saved: a password shown for an item that failed to save is lost.
            if passwordGenerator != nil, let tool { try clipboard.copy(password, with: tool, what: "the new password") }
            if passwordGenerator != nil, printPassword { try Output.secretLine(password) }
        } catch let failure as CLIFailure where failure.status == .duplicate {
            throw CLIFailure(.duplicate, "an item for \(Self.name(attributes)) already exists in \(vault.vault); change it with `coffer edit`")
        }
    }

    private static func name(_ attributes: ItemAttributes) -> String {
        let target = attributes.service ?? attributes.server ?? "?"
        return attributes.account.map { "\(target) (\($0))" } ?? target
    }
}

import ArgumentParser
import Coffer

/// `coffer edit VAULT --service S --account A [--generate | --password-stdin] [--label L] …`
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Change an item: its password, label, notes, tags and more.",
        discussion: """
            Name the item as for `coffer get` (but --label here sets a new label; NAME \
            matches labels). Only what is given changes; --tag and --url replace the item's \
            whole list; an option that takes one value may be given once. The old password \
            goes into the item's history.

            --new-service, --new-account and --new-server rename the item (a generic password's \
            service, an internet password's server); a service and account, or server and \
            account, that another item has is exit 2. --remove-field NAME removes a custom \
            field, secret or not; a field the item lacks is exit 1.

            The new password: --generate makes one (generator flags as in `coffer generate`); \
            --password-stdin reads it (asked twice on a terminal, the line after the master \
            password on a pipe). Without either, the password is kept and no line after the \
            master password is read: a stray line never becomes a password. Values of \
            --secret-field NAME are read after that.

            --notes reads the new notes last: typed on a terminal and ended with Ctrl-D, or the \
            rest of stdin on a pipe; empty notes remove them. Notes are secret, so `--notes TEXT` \
            is refused (exit 64).

            --expires DATE sets the expiry date (YYYY-MM-DD, midnight UTC, or ISO 8601); \
            --expires never removes it.

            EXAMPLES:
              coffer edit vault.coffer --service github.com --account octocat --generate --length 32
              printf 'master\\nnew-password\\n' | coffer edit vault.coffer --service api --account ci --password-stdin
              coffer edit vault.coffer --service github.com --tag work --tag code --favorite
              coffer edit vault.coffer vpn --expires 2027-01-31
              coffer edit vault.coffer github --new-account octocat2 --remove-field "old PIN"
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: ItemSelector

    @Flag(help: "Generate a new password.")
    var generate = false

    @Flag(name: .customLong("password-stdin"), help: "Read a new password (prompt or the next stdin line).")
    var passwordStdin = false

    @Option(help: "A new display name (an empty string removes it).")
    var label: String?

    @Option(name: .customLong("new-service"), help: ArgumentHelp("Rename a generic password's service.", valueName: "service"))
    var newService: String?

    @Option(name: .customLong("new-account"), help: ArgumentHelp("Rename the account (an empty string removes it).", valueName: "account"))
    var newAccount: String?

    @Option(name: .customLong("new-server"),
            help: ArgumentHelp("Move an internet password to another server: a URL (scheme, host, port, path) or a host.", valueName: "url"))
    var newServer: String?

    @Flag(help: "Read new notes (encrypted): typed on a terminal (end with Ctrl-D), else the rest of stdin after the other lines; empty removes them. Never a value on the command line.")
    var notes = false

    @Option(help: ArgumentHelp("A new non-secret comment (an empty string removes it).", valueName: "text"))
    var comment: String?

    @Option(help: "Tags, replacing the item's tags (repeatable).")
    var tag: [String] = []

    @Flag(name: .customLong("clear-tags"), help: "Remove all tags.")
    var clearTags = false

    @Option(help: "URLs, replacing the item's URLs (repeatable).")
    var url: [String] = []

    @Option(help: ArgumentHelp("Set a non-secret custom field, NAME=VALUE (repeatable).", valueName: "name=value"))
    var field: [String] = []

    @Option(name: .customLong("secret-field"),
            help: ArgumentHelp("Set a secret custom field; its value is read like a password (repeatable).", valueName: "name"))
    var secretField: [String] = []

    @Option(name: .customLong("remove-field"),
            help: ArgumentHelp("Remove a custom field, secret or not (repeatable); a missing one is exit 1.", valueName: "name"))
    var removeField: [String] = []

    @Flag(inversion: .prefixedNo, help: "Mark or unmark the item as a favorite.")
    var favorite: Bool?

    @Option(help: ArgumentHelp("A new expiry date: YYYY-MM-DD (UTC) or ISO 8601; never removes it.", valueName: "date|never"))
    var expires: String?

    @OptionGroup(title: "Generator options (with --generate)")
    var generator: GeneratorFlags

    func validate() throws {
        if generate && passwordStdin { throw ValidationError("use either --generate or --password-stdin") }
        if generator.anyGiven && !generate { throw ValidationError("generator options need --generate") }
        if clearTags && !tag.isEmpty { throw ValidationError("use either --tag or --clear-tags") }
    }

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let fields = try parseFieldAssignments(field)
        let newExpiry = try expires.map(ExpiryOption.parse)   // a usage error before the vault is opened
        let newAddress = try newServer.map { try ServerAddress(option: $0) }
        let passwordGenerator = generate ? try generator.generator() : nil
        let unlocked = try vault.unlock(saving: rollback,
                                        cache: .readingStdin(secrets: passwordStdin || !secretField.isEmpty || notes))
        let item = try vault.run { try selector.resolve(in: unlocked.vault) }
        // Renames that do not fit the item's kind are refused before any secret is read.
        if newService != nil && item.kind != .genericPassword {
            throw CLIFailure(.usage, "--new-service renames a generic password; \(item.summary) is not one")
        }
        if newServer != nil && item.kind != .internetPassword {
            throw CLIFailure(.usage, "--new-server moves an internet password; \(item.summary) is not one")
        }
        if newService?.isEmpty == true { throw CLIFailure(.usage, "--new-service needs a service") }

        var newPassword: SecureBytes?
        if let passwordGenerator {
            newPassword = try mappingErrors(vault: nil) { try passwordGenerator.generate() }
        } else if passwordStdin {
            newPassword = try SecretReader.newSecret(prompt: "New password for \(item.displayName): ", what: "the item's new password")
        }
        let secretFields = try readSecretFields(secretField)
        let newNotes = notes ? try SecretReader.notes() : nil

        let updated = try vault.run {
            try unlocked.vault.update(item.id) { attributes, secrets in
                if let label { attributes.label = label.isEmpty ? nil : label }
                if let comment { attributes.comment = comment.isEmpty ? nil : comment }
                if clearTags { attributes.tags = [] } else if !tag.isEmpty { attributes.tags = tag }
                if !url.isEmpty { attributes.urls = url }
                if let favorite { attributes.isFavorite = favorite }
                if let newExpiry { attributes.expires = newExpiry }
                // The library checks that the new unique key is free (exit 2 when taken).
                if let newService { attributes.service = newService }
                if let newAccount { attributes.account = newAccount.isEmpty ? nil : newAccount }
                if let newAddress, let newServer {
                    attributes.server = newAddress.host
                    attributes.protocol = newAddress.scheme
                    attributes.port = newAddress.port
                    attributes.path = newAddress.path
                    if let link = ServerAddress.link(newServer), !attributes.urls.contains(link) { attributes.urls.append(link) }
                }
                for name in removeField {
                    let before = attributes.fields.count + secrets.fields.count
                    attributes.fields.removeAll { $0.name == name }
                    secrets.fields.removeAll { $0.name == name }
                    if attributes.fields.count + secrets.fields.count == before {
                        throw CLIFailure(.noMatch, "\(item.summary) has no field named \(name)")
                    }
                }
                for field in fields {
                    if let index = attributes.fields.firstIndex(where: { $0.name == field.name }) {
                        attributes.fields[index] = field
                    } else {
                        attributes.fields.append(field)
                    }
                }
                if let newPassword { secrets.password = newPassword }
                if let newNotes { secrets.notes = newNotes.count == 0 ? nil : newNotes }
                for field in secretFields {
                    if let index = secrets.fields.firstIndex(where: { $0.name == field.name }) {
                        secrets.fields[index] = field
                    } else {
                        secrets.fields.append(field)
                    }
                }
            }
        }
        guard updated.revision != item.revision else {
            // Nothing differed: nothing was saved, and the backup beside the vault is untouched.
            Output.error("nothing to change in \(updated.summary); the vault was not saved")
            return
        }
        let what = newPassword == nil ? "" : (generate ? " (new generated password)" : " (new password)")
        Output.error("updated \(updated.summary)\(what)")
    }
}

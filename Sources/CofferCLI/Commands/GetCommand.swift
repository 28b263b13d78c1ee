import ArgumentParser
import Coffer

/// `coffer get VAULT [NAME | --service S …] [--account A] [--field NAME] [--json] [--clip]`
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print an item's password alone, plus a newline (or copy it to the clipboard).",
        discussion: """
            Name the item with NAME: its id (or first 8+ digits), label, service, server \
            (a host, or a URL pasted with any path) or note title; case and accents are \
            ignored. When no name is equal, NAME matches as search finds it: punctuation and \
            spaces ignored (`wifi` names "Wi-Fi"), the start of a name or of a word in it \
            (`gith`, `netflix.com` for www.netflix.com), one pair of letters swapped \
            (`githbu`); the item taken is named on stderr. Or name one attribute with \
            --service, --server, --title (a secure note), --label or --id, and narrow with \
            --account. If several items match, exit 64 lists them with their short ids and \
            how to pick one (--account, the id prefix, or the kind and address); no match: \
            exit 1, with the closest items ("did you mean").

            For a secure note, the note's text is printed. --field NAME prints a secret \
            custom field, else a non-secret custom field, else `notes` prints the item's \
            notes; case and accents are ignored when no field is spelled exactly so (`--field \
            ip` prints `IP`); a missing field is exit 1.

            --attachment FILENAME writes that attachment's bytes (as `coffer attachments` \
            lists it) to stdout as they are, or with --output FILE to a new file with mode \
            0600 (never over an existing file).

            --clip copies the secret with wl-copy, xclip, xsel or pbcopy instead of printing \
            it, and clears the clipboard after --clear-after seconds (default 45; 0 keeps it). \
            Without a clipboard tool (and display), exit 74.

            JSON shape:
              {"id": str, "kind": str, "label": str|null, "service": str|null,
               "account": str|null, "server": str|null, "password": str|null}
            plus "notes": str|null for a secure note; with --field NAME, "field": NAME and
            "value": str replace "password".

            EXAMPLES:
              coffer get vault.coffer github
              coffer get vault.coffer --service github.com
              coffer get vault.coffer --service github.com --account octocat --clip
              coffer get vault.coffer --server https://example.com --field otp --json
              coffer get vault.coffer github --attachment recovery-codes.txt --output codes.txt
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var selector: LabeledItemSelector

    @Option(help: ArgumentHelp("Print this field instead of the password.", valueName: "name"))
    var field: String?

    @Flag(help: "Print JSON (shape above).")
    var json = false

    @Option(help: ArgumentHelp("Print this attachment's bytes instead of the password (see `coffer attachments`).", valueName: "filename"))
    var attachment: String?

    @Option(help: ArgumentHelp("With --attachment: write it to this new file (mode 0600) instead of stdout.", valueName: "file"),
            completion: .file())
    var output: String?

    @OptionGroup var clipboard: ClipboardArguments

    func validate() throws {
        if clipboard.clip && json { throw ValidationError("--clip and --json cannot be used together") }
        if attachment != nil && (field != nil || json || clipboard.clip) {
            throw ValidationError("--attachment cannot be used with --field, --json or --clip")
        }
        if output != nil && attachment == nil { throw ValidationError("--output needs --attachment") }
        if output?.isEmpty == true { throw ValidationError("--output must not be empty") }
        try clipboard.check()
    }

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        if let output, FileChecks.existsFollowingLinks(output) { throw CLIFailure(.cannotCreate, "cannot create \(output): the file exists") }
        let tool = try clipboard.tool()
        let unlocked = try vault.unlock()
        if let attachment { return try writeAttachment(attachment, of: unlocked.vault) }
        let (item, secrets) = try vault.run { () throws -> (Item, ItemSecrets) in
            let item = try selector.resolve(in: unlocked.vault)
            return (item, try unlocked.vault.secrets(for: item.id))
        }
        let secret = try ItemSecretChoice.secret(of: item, secrets, field: field)

        if let tool { return try clipboard.copy(secret, with: tool) }
        guard json else {
            try Output.secretLine(secret)
            return
        }
        var members = itemIdentityMembers(item)
        if let field {
            members += [("field", .string(field)), ("value", .secret(secret))]
        } else {
            members.append(("password", .optional(secrets.password)))
            if item.kind == .secureNote { members.append(("notes", .optional(secrets.notes))) }
        }
        try JSONValue.object(members).print()
    }

    /// `--attachment`: its bytes as they are, to stdout or a new 0600 file.
    private func writeAttachment(_ name: String, of vault: Vault) throws {
        try self.vault.run {
            let item = try selector.resolve(in: vault)
            guard let found = try vault.attachment(named: name, of: item.id) else {
                throw CLIFailure(.noMatch, "\(item.displayName) has no attachment named \(name) (see `coffer attachments`)")
            }
            if let output {
                try vault.writeAttachment(named: name, of: item.id, toFile: output)
                Output.error("wrote \(name) (\(found.data.count) bytes) to \(output) (mode 0600)")
            } else {
                try found.data.withUnsafeBytes { try Output.bytes($0) }
            }
        }
    }

}

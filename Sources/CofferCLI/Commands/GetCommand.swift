import ArgumentParser
import Coffer

/// `coffer get VAULT [NAME | --service S …] [--account A] [--field NAME] [--json] [--clip]`
struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print an item's password alone, plus a newline (or copy it to the clipboard).",
        discussion: """
            Name the item with NAME: its id (or first 8+ digits), label, service, server \
            (a host, or a URL pasted with any path) or note title; case is ignored. Or name \
            one attribute with --service, --server, --title (a secure note), --label or --id, \
            and narrow with --account. If several items match, exit 64 lists them by label \
            and short id; no match: exit 1.

            For a secure note, the note's text is printed. --field NAME prints a secret \
            custom field, else a non-secret custom field, else `notes` prints the item's \
            notes; a missing field is exit 1.

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
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var selector: LabeledItemSelector

    @Option(help: ArgumentHelp("Print this field instead of the password.", valueName: "name"))
    var field: String?

    @Flag(help: "Print JSON (shape above).")
    var json = false

    @Flag(help: "Copy to the clipboard instead of printing.")
    var clip = false

    @Option(name: .customLong("clear-after"), help: ArgumentHelp("With --clip: clear the clipboard after this many seconds (0: never).", valueName: "seconds"))
    var clearAfter: Int = 45

    func validate() throws {
        if clip && json { throw ValidationError("--clip and --json cannot be used together") }
        guard (0...86_400).contains(clearAfter) else { throw ValidationError("--clear-after must be 0 to 86400 seconds") }
    }

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let clipboard = clip ? try Clipboard.find() : nil
        let unlocked = try vault.unlock()
        let (item, secrets) = try vault.run { () throws -> (Item, ItemSecrets) in
            let item = try selector.resolve(in: unlocked.vault)
            return (item, try unlocked.vault.secrets(for: item.id))
        }
        let secret = try ItemSecretChoice.secret(of: item, secrets, field: field)

        if let clipboard {
            try clipboard.copy(secret, clearAfter: clearAfter)
            let clearing = clearAfter > 0 ? "; clearing it in \(clearAfter) s" : ""
            Output.error("copied to the clipboard with \(clipboard.name)\(clearing)")
            return
        }
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
}

import ArgumentParser
import Coffer

/// `coffer show VAULT NAME [--reveal] [--json]`
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a whole item: every attribute, and which secrets it holds (values hidden unless --reveal).",
        discussion: """
            Name the item as for `coffer get`. Prints its id, kind, label, service or server, \\
            account, URLs, tags, favorite, comment, custom fields, created and modified dates, \\
            the expiry date (with "(expired)" once it has passed), if any; \\
            then its secret part: the password, notes and secret fields by name, the number of \\
            earlier passwords, attachments with their sizes, and whether it holds a one-time \\
            password. Secret values are shown only with --reveal (also --show-secrets).

            JSON shape:
              {"item": <the object of `list --json`>,
               "password": {"present": bool, "value": str|null},
               "notes": {"present": bool, "value": str|null},
               "secretFields": [{"name": str, "value": str|null}],
               "passwordHistory": [{"replaced": str, "password": str|null}],
               "attachments": [{"name": str, "size": int}],
               "oneTimePassword": bool}
            where every "value" and history "password" is null unless --reveal; dates are \\
            ISO 8601 (UTC, milliseconds), history newest first.

            EXAMPLES:
              coffer show vault.coffer github
              coffer show vault.coffer --server https://example.com/login --json
              coffer show vault.coffer "Meeting notes" --reveal
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Flag(name: [.customLong("reveal"), .customLong("show-secrets")],
          help: "Print the secret values too: password, notes, secret fields, earlier passwords.")
    var reveal = false

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let unlocked = try vault.unlock()
        let (details, secrets) = try vault.run { () throws -> (ItemDetails, ItemSecrets?) in
            let item = try selector.resolve(in: unlocked.vault)
            guard reveal else { return (try unlocked.vault.details(of: item.id), nil) }
            // Shown values and their summary come from one read, so their lists line up.
            let secrets = try unlocked.vault.secrets(for: item.id)
            return (ItemDetails(item: item, secrets: secrets), secrets)
        }
        if json {
            try printJSON(details, secrets)
        } else {
            try printText(details, secrets)
        }
    }

    private func printJSON(_ details: ItemDetails, _ secrets: ItemSecrets?) throws {
        func part(_ present: Bool, _ value: SecureBytes?) -> JSONValue {
            .object([("present", .bool(present)), ("value", .optional(value))])
        }
        let fields: [JSONValue] = details.secretFieldNames.enumerated().map { index, name in
            .object([("name", .string(name)), ("value", .optional(secrets?.fields[index].value))])
        }
        let history: [JSONValue] = details.passwordHistory.enumerated().map { index, date in
            .object([("replaced", .string(ItemJSON.date(date))), ("password", .optional(secrets?.passwordHistory[index].password))])
        }
        let attachments: [JSONValue] = details.attachments.map {
            .object([("name", .string($0.name)), ("size", .int(Int64($0.size)))])
        }
        try JSONValue.object([
            ("item", .item(details.item)),
            ("password", part(details.hasPassword, secrets?.password)),
            ("notes", part(details.hasNotes, secrets?.notes)),
            ("secretFields", .array(fields)),
            ("passwordHistory", .array(history)),
            ("attachments", .array(attachments)),
            ("oneTimePassword", .bool(details.secretFieldNames.contains(TOTP.fieldName))),
        ]).print()
    }

    /// Names are escaped (``Output/visible(_:)``); secrets, with --reveal, are written byte
    /// for byte as `get` writes them.
    private func printText(_ details: ItemDetails, _ secrets: ItemSecrets?) throws {
        let out = WipingBuffer(capacity: 1024)
        defer { out.removeAll() }
        func line(_ name: String, _ value: String?) {
            guard let value else { return }
            out.append(name.padding(toLength: 20, withPad: " ", startingAt: 0) + Output.visible(value) + "\n")
        }
        func secretLine(_ name: String, label: String = "", present: Bool, _ value: SecureBytes?) {
            out.append(name.padding(toLength: 20, withPad: " ", startingAt: 0) + label)
            if !present { out.append("none") } else if let value { out.append(value) } else { out.append("(hidden; --reveal shows it)") }
            out.append("\n")
        }
        let a = details.item.attributes
        line("id:", details.item.id.hex)
        line("kind:", a.kind.rawValue)
        line("label:", a.label)
        line("service:", a.service)
        line("server:", a.kind == .internetPassword ? details.item.displayName : nil)
        line("account:", a.account)
        for url in a.urls { line("url:", url) }
        line("tags:", a.tags.isEmpty ? nil : a.tags.map { "#" + $0 }.joined(separator: " "))
        line("favorite:", a.isFavorite ? "yes" : "no")
        line("comment:", a.comment)
        for field in a.fields { line("field:", "\(field.name): \(field.value)") }
        line("created:", ItemJSON.date(a.created))
        line("modified:", ItemJSON.date(a.modified))
        if let expires = a.expires { line("expires:", ItemJSON.date(expires) + (a.isExpired() ? " (expired)" : "")) }
        secretLine("password:", present: details.hasPassword, secrets?.password)
        if let notes = secrets?.notes {
            out.append("notes:\n")
            out.append(notes)
            out.append("\n")
        } else {
            line("notes:", details.hasNotes ? "yes (hidden; --reveal shows them)" : "none")
        }
        for (index, name) in details.secretFieldNames.enumerated() {
            secretLine("secret field:", label: Output.visible(name) + ": ", present: true, secrets?.fields[index].value)
        }
        line("one-time password:", details.secretFieldNames.contains(TOTP.fieldName) ? "yes (`coffer totp` prints a code)" : "none")
        if details.passwordHistory.isEmpty {
            line("earlier passwords:", "none")
        } else {
            line("earlier passwords:", "\(details.passwordHistory.count) (`coffer history` lists them)")
            if let secrets {
                for entry in secrets.passwordHistory {
                    out.append("  " + ItemJSON.date(entry.replaced) + "  ")
                    out.append(entry.password)
                    out.append("\n")
                }
            }
        }
        if details.attachments.isEmpty { line("attachments:", "none") }
        for file in details.attachments { line("attachment:", "\(file.name) (\(file.size) bytes)") }
        try Output.bytes(out.bytes)
    }
}

import ArgumentParser
import Coffer

/// `coffer history VAULT --service S [--account A] [--show-passwords] [--json] [--clear]`
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show an item's password history and the edits that lost to a concurrent edit on another device.",
        discussion: """
            Name the item as for `coffer get`. Prints the dates of the item's earlier \
            passwords (newest first) and its conflicts: values that lost when two devices \
            edited the same field before a merge (oldest first), each with the field, when \
            the losing edit was made (by that device's clock) and its value. Attribute values \
            (label, account, tags…) are shown as text; secret ones (password, notes, secret \
            fields, attachments) are hidden unless --show-passwords is given, which prints \
            them as `coffer get` does. `coffer resolve` marks the conflicts reviewed.

            JSON shape:
              {"id": str, "kind": str, "label": str|null, "service": str|null,
               "account": str|null, "server": str|null,
               "passwordHistory": [{"replaced": str, "password": str|null}],
               "conflicts": [{"field": str, "name": str|null, "date": str, "removed": bool,
                              "secret": bool, "value": str|null}]}
            with dates in ISO 8601 (UTC, milliseconds); "password" and a secret "value" are \
            null unless --show-passwords; "value" is null for a removal; "name" is the name of \
            a custom field, secret field or attachment ("fields", "secret-fields", \
            "attachments"), a removed one too, else null. A conflict stays listed until \
            `coffer resolve`, or until its own field is edited.

            --clear erases the item's password history instead: every earlier password \
            (and every losing password shown among them) leaves the vault file, on every \
            device once the vault is merged there; copies made before the clear bring none \
            of them back when merged, while a password replaced later on any device is kept \
            as usual. The backup (VAULT.bak) and the earlier versions kept on this device \
            (`coffer restore --list`) still hold them until they are replaced. It prints \
            how many entries were erased; with --json, {"id": str, "cleared": int}.

            EXAMPLES:
              coffer history vault.coffer --service github.com
              coffer history vault.coffer --service github.com --json
              coffer history vault.coffer --id 0123456789abcdef0123456789abcdef --show-passwords
              coffer history vault.coffer --service github.com --clear
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Flag(name: .customLong("show-passwords"), help: "Print earlier passwords and secret conflict values too.")
    var showPasswords = false

    @Flag(help: "Print JSON (shape above).")
    var json = false

    @Flag(help: "Erase the item's password history from the vault (see above).")
    var clear = false

    func validate() throws {
        if clear && showPasswords { throw ValidationError("--clear cannot be used with --show-passwords") }
    }

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        if clear { return try runClear() }
        let unlocked = try vault.unlock()
        let (item, secrets, conflicts) = try vault.run { () throws -> (Item, ItemSecrets, [ItemConflict]) in
            let item = try selector.resolve(in: unlocked.vault)
            return (item, try unlocked.vault.secrets(for: item.id), try unlocked.vault.conflicts(for: item.id))
        }
        if json {
            try printJSON(item, secrets, conflicts)
        } else {
            try printText(item, secrets, conflicts)
        }
    }

    /// `--clear`: erases the history and says how many entries went.
    private func runClear() throws {
        let unlocked = try vault.unlock(saving: rollback)
        let (item, count) = try vault.run { () throws -> (Item, Int) in
            let item = try selector.resolve(in: unlocked.vault)
            return (item, try unlocked.vault.clearPasswordHistory(for: item.id))
        }
        if json {
            try JSONValue.object([("id", .string(item.id.hex)), ("cleared", .int(Int64(count)))]).print()
        }
        Output.error("cleared the password history of \(Output.visible(item.summary)): \(count == 1 ? "1 entry" : "\(count) entries") erased")
    }

    private func printJSON(_ item: Item, _ secrets: ItemSecrets, _ conflicts: [ItemConflict]) throws {
        let history: [JSONValue] = secrets.passwordHistory.map { entry in
            .object([("replaced", .string(ItemJSON.date(entry.replaced))),
                     ("password", showPasswords ? .secret(entry.password) : .null)])
        }
        var records: [JSONValue] = []
        for conflict in conflicts {
            let value: JSONValue
            if conflict.isRemoval {
                value = .null
            } else if conflict.secrets != nil {
                value = showPasswords ? .optional(try ConflictValue.secret(of: conflict)) : .null
            } else {
                value = .optional(ConflictValue.text(of: conflict))
            }
            records.append(.object([
                ("field", .string(conflict.field)),
                ("name", .optional(conflict.name)),
                ("date", .string(ItemJSON.date(conflict.date))),
                ("removed", .bool(conflict.isRemoval)),
                ("secret", .bool(conflict.secrets != nil)),
                ("value", value),
            ]))
        }
        try JSONValue.object(itemIdentityMembers(item) + [
            ("passwordHistory", .array(history)),
            ("conflicts", .array(records)),
        ]).print()
    }

    /// Names and dates are escaped (``Output/visible(_:)``); secrets, with --show-passwords,
    /// are written byte for byte as `get` writes them.
    private func printText(_ item: Item, _ secrets: ItemSecrets, _ conflicts: [ItemConflict]) throws {
        let out = WipingBuffer(capacity: 1024)
        defer { out.removeAll() }
        out.append(Output.visible(item.summary) + "\n")
        if secrets.passwordHistory.isEmpty {
            out.append("password history: none\n")
        } else {
            out.append("password history (newest first):\n")
            for entry in secrets.passwordHistory {
                out.append("  " + ItemJSON.date(entry.replaced) + "  ")
                if showPasswords { out.append(entry.password) } else { out.append("(hidden; --show-passwords prints it)") }
                out.append("\n")
            }
        }
        if conflicts.isEmpty {
            out.append("conflicts: none\n")
        } else {
            out.append("conflicts (oldest first; `coffer resolve` marks them reviewed):\n")
            for conflict in conflicts {
                out.append("  " + ItemJSON.date(conflict.date) + "  " + Output.visible(conflict.field)
                           + (conflict.name.map { " " + Output.visible($0) } ?? "") + ": ")
                if conflict.isRemoval {
                    out.append("(removed)")
                } else if conflict.secrets != nil {
                    if showPasswords, let secret = try ConflictValue.secret(of: conflict) {
                        out.append(secret)
                    } else {
                        out.append(showPasswords ? "(not shown)" : "(hidden; --show-passwords prints it)")
                    }
                } else {
                    out.append(ConflictValue.text(of: conflict).map(Output.visible) ?? "(not shown)")
                }
                out.append("\n")
            }
        }
        try Output.bytes(out.bytes)
    }
}

/// The losing value of a conflict, for `history`.
enum ConflictValue {
    /// An attribute's losing value as text: lists joined with ", ", custom fields as
    /// `name=value`. Nil for a secret or an unknown field.
    static func text(of conflict: ItemConflict) -> String? {
        guard let a = conflict.attributes else { return nil }
        switch conflict.field {
        case "label": return a.label ?? ""
        case "service": return a.service ?? ""
        case "account": return a.account ?? ""
        case "server": return a.server ?? ""
        case "protocol": return a.protocol ?? ""
        case "port": return a.port.map { String($0) } ?? ""
        case "path": return a.path ?? ""
        case "comment": return a.comment ?? ""
        case "urls": return a.urls.joined(separator: ", ")
        case "tags": return a.tags.joined(separator: ", ")
        case "favorite": return a.isFavorite ? "true" : "false"
        case "fields": return a.fields.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")
        case "kind": return a.kind.rawValue
        default: return nil
        }
    }

    /// A secret field's losing value: the password or notes as they are, secret fields as
    /// `name=value` joined with ", ", attachments by name. Nil for an unknown field.
    static func secret(of conflict: ItemConflict) throws -> SecureBytes? {
        guard let s = conflict.secrets else { return nil }
        switch conflict.field {
        case "password": return s.password
        case "notes": return s.notes
        case "secret-fields":
            let out = WipingBuffer(capacity: 256)
            defer { out.removeAll() }
            for (index, field) in s.fields.enumerated() {
                if index > 0 { out.append(", ") }
                out.append(field.name + "=")
                out.append(field.value)
            }
            return try mappingErrors(vault: nil) { try out.secureBytes() }
        case "attachments":
            return try mappingErrors(vault: nil) { try SecureBytes(copying: s.attachments.map(\.name).joined(separator: ", ")) }
        default:
            return nil
        }
    }
}

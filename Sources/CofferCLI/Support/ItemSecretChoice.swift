import Coffer

/// Which secret of an item a command hands out: the one rule behind `get [--field]` and
/// `run --env NAME=ITEM[:field]`.
enum ItemSecretChoice {
    /// With `field`: a secret custom field of that name, else a non-secret custom field
    /// (each by the name as given, else as naming folds it: `ip` names `IP`), else the notes
    /// (`notes`) or the password (`password`). Without: a note's text, or the item's
    /// password. A missing one is exit 1.
    static func secret(of item: Item, _ secrets: ItemSecrets, field: String?) throws -> SecureBytes {
        if let field {
            if let value = secrets.field(named: field) ?? secrets.fields.first(where: { SearchFolding.foldedEqual($0.name, field) })?.value {
                return value
            }
            if let custom = item.fields.first(where: { $0.name == field })
                ?? item.fields.first(where: { SearchFolding.foldedEqual($0.name, field) }) {
                return try SecureBytes(copying: custom.value)
            }
            if field == "notes", let notes = secrets.notes { return notes }
            if field == "password", let password = secrets.password { return password }
            throw CLIFailure(.noMatch, "\(item.displayName) has no field named \(field)")
        }
        if item.kind == .secureNote {
            guard let notes = secrets.notes else { throw CLIFailure(.noMatch, "the note \(item.displayName) has no text") }
            return notes
        }
        guard let password = secrets.password else { throw CLIFailure(.noMatch, "\(item.displayName) has no password") }
        return password
    }
}

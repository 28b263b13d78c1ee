import CofferCrypto
import CofferFormat
import CofferOTP
import CofferVault
import Foundation

/// What an import carries into an item that is already in the vault (same unique key, or
/// same site, ``ItemSite``): every part the imported one holds and the item lacks, so that
/// nothing of the file is left behind without a word.
///
/// - Parts the item lacks are added: a password, notes, custom fields, secret fields
///   (a one-time password among them) and attachments by name, a label, a comment, an
///   expiry date, the favourite mark. Tags and URLs are unions; earlier passwords the
///   item has not seen join its password history.
/// - A password that differs is a conflict, settled by ``ImportConflictPolicy``.
/// - Any other value that differs from the item's is not carried: it is reported by
///   name (never by value), and the item keeps its own. Nothing in the vault is lost.
struct ImportMerge {
    let policy: ImportConflictPolicy
    let historyLimit: Int
    let now: Date

    /// What was carried and what was not, by name (never a value).
    struct Outcome {
        var carried: [String] = []
        var notCarried: [String] = []
        /// The passwords differ: the policy settled it.
        var passwordConflict = false
    }

    func carry(_ candidate: ImportCandidate, into target: Item, tx: VaultTransaction) throws(CofferError) -> Outcome {
        var outcome = Outcome()
        let current = try tx.secrets(for: target.id)
        var attributes = target.attributes
        var secrets = current
        carryPassword(candidate.secrets, into: &secrets, &outcome)
        carryAttributes(candidate.attributes, into: &attributes, &outcome)
        carrySecrets(candidate.secrets, into: &secrets, &outcome)
        guard attributes != target.attributes || secrets != current else { return outcome }
        do {
            try tx.update(target.id) { a, s in
                a = attributes
                s = secrets
            }
        } catch let error as CofferError {
            throw error
        } catch {
            throw .invalidItem("could not carry the import into \(target.summary)")
        }
        return outcome
    }

    /// The password, by the policy, and the earlier passwords the item has not seen.
    private func carryPassword(_ incoming: ItemSecrets, into secrets: inout ItemSecrets, _ outcome: inout Outcome) {
        if let imported = incoming.password {
            // SecureBytes compares in constant time.
            let inHistory = secrets.passwordHistory.contains { $0.password == imported }
            if secrets.password == nil {
                secrets.password = imported
                outcome.carried.append("password")
            } else if secrets.password == imported || (inHistory && policy != .update) {
                // The item has it, or had it: nothing to settle.
            } else {
                outcome.passwordConflict = true
                switch policy {
                case .skip:
                    break
                case .keepBoth:
                    secrets.passwordHistory.insert(PasswordHistoryEntry(password: imported, replaced: now), at: 0)
                case .update:
                    // The imported password becomes current, also when an earlier keep-both
                    // left it in the history; the one it replaces goes to the history.
                    secrets.passwordHistory.removeAll { $0.password == imported }
                    if let old = secrets.password {
                        secrets.passwordHistory.insert(PasswordHistoryEntry(password: old, replaced: now), at: 0)
                    }
                    secrets.password = imported
                }
            }
        }
        var known = [secrets.password].compactMap { $0 } + secrets.passwordHistory.map(\.password)
        var earlier: [PasswordHistoryEntry] = []
        for entry in incoming.passwordHistory where !known.contains(entry.password) {
            earlier.append(entry)
            known.append(entry.password)
        }
        guard !earlier.isEmpty else { return }
        let merged = (secrets.passwordHistory + earlier).enumerated()
            .sorted { ($0.element.replaced, -$0.offset) > ($1.element.replaced, -$1.offset) }.map(\.element)
        secrets.passwordHistory = Array(merged.prefix(historyLimit))
        let kept = earlier.filter { entry in secrets.passwordHistory.contains { $0.password == entry.password } }.count
        if kept > 0 { outcome.carried.append(kept == 1 ? "1 earlier password" : "\(kept) earlier passwords") }
        if kept < earlier.count {
            outcome.notCarried.append("\(earlier.count - kept) earlier password(s): older than the \(historyLimit) the history keeps")
        }
    }

    private func carryAttributes(_ imported: ItemAttributes, into a: inout ItemAttributes, _ outcome: inout Outcome) {
        func single(_ name: String, _ value: String?, _ keyPath: WritableKeyPath<ItemAttributes, String?>) {
            guard let value, !value.isEmpty else { return }
            if let own = a[keyPath: keyPath], !own.isEmpty {
                if own != value { outcome.notCarried.append("\(name) (the item has another)") }
            } else {
                a[keyPath: keyPath] = value
                outcome.carried.append(name)
            }
        }
        single("label", imported.label, \.label)
        single("comment", imported.comment, \.comment)
        let newURLs = imported.urls.filter { !a.urls.contains($0) }
        if !newURLs.isEmpty {
            a.urls += newURLs
            outcome.carried.append(newURLs.count == 1 ? "1 URL" : "\(newURLs.count) URLs")
        }
        var folded = Set(a.tags.map(SearchFolding.foldTag))
        let newTags = imported.tags.filter { folded.insert(SearchFolding.foldTag($0)).inserted }
        if !newTags.isEmpty {
            a.tags += newTags
            outcome.carried.append("tag\(newTags.count == 1 ? "" : "s") " + newTags.joined(separator: ", "))
        }
        if imported.isFavorite && !a.isFavorite {
            a.isFavorite = true
            outcome.carried.append("favorite")
        }
        if let expires = imported.expires {
            if let own = a.expires {
                if own != expires { outcome.notCarried.append("expiry date (the item has another)") }
            } else {
                a.expires = expires
                outcome.carried.append("expiry date")
            }
        }
        for field in imported.fields {
            if let own = a.fields.first(where: { $0.name == field.name }) {
                if own.value != field.value { outcome.notCarried.append("field \(field.name) (the item's differs)") }
            } else {
                a.fields.append(field)
                outcome.carried.append("field \(field.name)")
            }
        }
    }

    private func carrySecrets(_ incoming: ItemSecrets, into s: inout ItemSecrets, _ outcome: inout Outcome) {
        if let notes = incoming.notes, notes.count > 0 {
            if let own = s.notes, own.count > 0 {
                if own != notes { outcome.notCarried.append("notes (the item's differ)") }
            } else {
                s.notes = notes
                outcome.carried.append("notes")
            }
        }
        for field in incoming.fields {
            let name = field.name == TOTP.fieldName ? "one-time password" : "secret field \(field.name)"
            if let own = s.fields.first(where: { $0.name == field.name }) {
                if own.value != field.value { outcome.notCarried.append("\(name) (the item's differs)") }
            } else {
                s.fields.append(field)
                outcome.carried.append(name)
            }
        }
        for attachment in incoming.attachments {
            if let own = s.attachments.first(where: { $0.name == attachment.name }) {
                if own.data != attachment.data { outcome.notCarried.append("attachment \(attachment.name) (the item's differs)") }
            } else {
                s.attachments.append(attachment)
                outcome.carried.append("attachment \(attachment.name)")
            }
        }
    }
}

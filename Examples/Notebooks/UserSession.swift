// A logged-in user's notebooks and notes, each a secure note in that user's vault.
import Coffer
import ExampleSupport
import Foundation

struct Notebook: Equatable {
    let id: ItemID
    let name: String
    let created: Date
}

struct Note: Equatable {
    let id: ItemID
    let text: String
    let created: Date
}

final class UserSession {
    let email: String
    let displayName: String
    let expires: Date
    /// One line for the user when this session cannot outlast the app (no kernel keyring).
    let notice: String?
    private let vault: Vault
    private let vaultID: String
    private let cache: any UnlockCache

    init(vault: Vault, expires: Date, notice: String?, cache: any UnlockCache) throws {
        let profile = try vault.keychain(service: "profile").get(Profile.self, key: "me")
        self.vault = vault
        self.vaultID = vault.vaultID
        self.expires = expires
        self.notice = notice
        self.cache = cache
        email = profile?.email ?? ""
        displayName = profile?.displayName ?? ""
    }

    // MARK: Notebooks: secure notes tagged "notebook"; the name is the title.

    func notebooks() throws -> [Notebook] {
        try live().items(matching: ItemQuery(kind: .secureNote, tag: "notebook"))
            .map { Notebook(id: $0.id, name: $0.label ?? "", created: $0.created) }
            .sorted { ($0.created, $0.name) < ($1.created, $1.name) }
    }

    @discardableResult
    func addNotebook(named name: String) throws -> Notebook {
        var attributes = ItemAttributes.secureNote(title: name)
        attributes.tags = ["notebook"]
        let item = try live().add(attributes)
        return Notebook(id: item.id, name: name, created: item.created)
    }

    /// Deletes a notebook and its notes in one transaction: all of them or none.
    func deleteNotebook(_ notebook: Notebook) throws {
        try live().transaction { tx in
            for note in try tx.items(matching: ItemQuery(tag: Self.tag(for: notebook))) { try tx.delete(note.id) }
            try tx.delete(notebook.id)
        }
    }

    // MARK: Notes: secure notes tagged with their notebook; the text is secret.

    func notes(in notebook: Notebook) throws -> [Note] {
        let vault = try live()
        return try vault.items(matching: ItemQuery(kind: .secureNote, tag: Self.tag(for: notebook))).map { item in
            let text = try vault.secrets(for: item.id).notes?.unsafeStringCopy() ?? ""
            return Note(id: item.id, text: text, created: item.created)
        }.sorted { ($0.created, $0.text) < ($1.created, $1.text) }
    }

    @discardableResult
    func addNote(_ text: String, to notebook: Notebook) throws -> Note {
        // A fixed title: the note's text is secret, and the title is an attribute,
        // decrypted with every listing.
        var attributes = ItemAttributes.secureNote(title: "note")
        attributes.tags = [Self.tag(for: notebook)]
        let item = try live().add(attributes, secrets: ItemSecrets(notes: try SecureBytes(copying: text)))
        return Note(id: item.id, text: text, created: item.created)
    }

    func deleteNote(_ note: Note) throws {
        try live().delete(note.id)
    }

    // MARK: Session

    var isLocked: Bool { vault.isLocked }

    /// Ends the session: the cached unlock is forgotten, so the next launch asks for the
    /// password, and the vault locks (its keys are wiped from memory).
    func logOut() throws {
        defer { vault.lock() }
        do {
            try cache.remove(forVault: vaultID)
        } catch CofferError.unlockCacheUnavailable {
            return   // nothing was cached
        } catch {
            throw error
        }
    }

    /// The vault, while the session lasts; once it times out, logs out and throws.
    private func live() throws -> Vault {
        guard Date() < expires else {
            try logOut()
            throw AuthError.sessionExpired
        }
        return vault
    }

    private static func tag(for notebook: Notebook) -> String { "notebook:\(notebook.id.hex)" }
}

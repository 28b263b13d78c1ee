// `swift run Notebooks --interactive`: login, sign-up, notebooks and notes as menus.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let auth = Auth(folder: folder, options: VaultOptions(), sessionLength: .seconds(15 * 60))   // the real 256 MiB KDF
    // Quitting keeps the session for the next launch, unless the folder is deleted on exit.
    defer { if isTemporaryFolder(folder) { try? auth.endAllSessions() } }
    while true {
        // A session left by an earlier launch (run again with the same --dir in this
        // terminal) opens from the kernel keyring, without the password.
        var session = try auth.currentSession()
        if let session { print("Welcome back, \(session.displayName) (session until \(session.expires.formatted(date: .omitted, time: .shortened))).") }
        while session == nil {
            guard let choice = Terminal.choose("Login", ["Login", "Create New Account", "Quit"]) else { return }
            do {
                switch choice {
                case 0:
                    guard let email = Terminal.ask("Email:"), let password = Terminal.askSecret("Password:") else { return }
                    session = try auth.logIn(email: email, password: password)
                case 1:
                    guard let name = Terminal.ask("Display name:"), let email = Terminal.ask("Email:"),
                          let password = Terminal.askSecret("Password:"), let confirmation = Terminal.askSecret("Confirm password:")
                    else { return }
                    session = try auth.signUp(displayName: name, email: email, password: password, confirmation: confirmation)
                default:
                    return
                }
                if let notice = session?.notice { print("⚠︎ \(notice)") }
            } catch {
                print("⚠︎ \(error)")
            }
        }
        if let session, try !notebooksMenu(session) { return }
    }
}

/// Returns false when input ends.
private func notebooksMenu(_ session: UserSession) throws -> Bool {
    while true {
        do {
            let notebooks = try session.notebooks()
            print("\nNotebooks of \(session.displayName):")
            for (n, b) in notebooks.enumerated() { print("  \(n + 1). \(b.name)  \(b.created.formatted())") }
            guard let choice = Terminal.choose("Notebooks", ["Open", "Add (+)", "Delete", "Logout"]) else { return false }
            switch choice {
            case 0:
                if let notebook = pick(notebooks), try !notesMenu(session, notebook) { return false }
            case 1:
                if let name = Terminal.ask("Notebook name:"), !name.isEmpty { try session.addNotebook(named: name) }
            case 2:
                if let notebook = pick(notebooks), Terminal.confirm("Delete \(notebook.name) and its notes?") {
                    try session.deleteNotebook(notebook)
                }
            default:
                try session.logOut()
                return true
            }
        } catch AuthError.sessionExpired {
            print("⚠︎ \(AuthError.sessionExpired)")
            return true
        }
    }
}

private func notesMenu(_ session: UserSession, _ notebook: Notebook) throws -> Bool {
    while true {
        let notes = try session.notes(in: notebook)
        print("\n\(notebook.name):")
        for (n, note) in notes.enumerated() { print("  \(n + 1). \(note.text)  \(note.created.formatted())") }
        guard let choice = Terminal.choose(notebook.name, ["Add (+)", "Delete", "Back"]) else { return false }
        switch choice {
        case 0:
            if let text = Terminal.ask("Note:"), !text.isEmpty { try session.addNote(text, to: notebook) }
        case 1:
            if let note = pick(notes) { try session.deleteNote(note) }
        default:
            return true
        }
    }
}

private func pick<T>(_ rows: [T]) -> T? {
    guard let line = Terminal.ask("Number:"), let n = Int(line), rows.indices.contains(n - 1) else { return nil }
    return rows[n - 1]
}

// `swift run Secuure --interactive`: the login, sign-up, main, add, info and generator views.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let app = Secuure(folder: folder, options: VaultOptions())   // the real 256 MiB KDF
    while true {
        guard let choice = Terminal.choose("Secuure", ["Login", "Sign Up", "Quit"]) else { return }
        do {
            switch choice {
            case 0:
                guard let username = Terminal.ask("Username:"), let password = Terminal.askSecret("Password:") else { return }
                try mainView(try app.logIn(username: username, password: password))
            case 1:
                guard let first = Terminal.ask("First name:"), let last = Terminal.ask("Last name:"),
                      let username = Terminal.ask("Username:"), let password = Terminal.askSecret("Password:") else { return }
                try app.signUp(firstName: first, lastName: last, username: username, password: password)
                print("Registration successful. Return to the login page to log in.")
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func mainView(_ accounts: StoredAccounts) throws {
    defer { accounts.signOut() }
    while true {
        let rows = try accounts.rows()
        print("")
        for (n, row) in rows.enumerated() { print("  \(n + 1). \(row.title)") }
        guard let choice = Terminal.choose("Accounts", ["Info", "Add (+)", "Sign Out"]) else { return }
        do {
            switch choice {
            case 0:
                guard let line = Terminal.ask("Number:"), let n = Int(line), rows.indices.contains(n - 1) else { continue }
                let info = try accounts.details(rows[n - 1].id)
                print("Username: \(info.username)\nPassword: \(info.password)\nWebsite:  \(info.website)\nNotes:    \(info.notes)")
                if Terminal.confirm("Delete it?") { try accounts.delete(info.id) }
            case 1:
                guard let username = Terminal.ask("Username:"), let website = Terminal.ask("Website:"),
                      let notes = Terminal.ask("Notes:"), let password = askPassword() else { return }
                try accounts.add(username: username, password: password, website: website, notes: notes)
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

/// Type a password, or leave it empty for the generator ("G").
private func askPassword() -> SecureBytes? {
    guard let typed = Terminal.askSecret("Password (empty: generate):") else { return nil }
    guard typed.count == 0 else { return typed }
    var settings = GeneratorSettings()
    while true {
        settings.length = Int(Terminal.ask("Length [\(settings.length)]:") ?? "") ?? settings.length
        settings.capitals = Terminal.confirm("Capitals?")
        settings.numbers = Terminal.confirm("Numbers?")
        settings.symbols = Terminal.confirm("Symbols?")
        do {
            let password = try settings.generate()
            print("Generated: \(password.unsafeStringCopy() ?? "")")
            if Terminal.confirm("Okay?") { return password }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

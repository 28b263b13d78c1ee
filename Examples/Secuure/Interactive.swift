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
        guard let choice = Terminal.choose("Accounts", ["Info", "Edit", "+ (New Account row)", "Sign Out"]) else { return }
        do {
            switch choice {
            case 0:
                guard let row = pickRow(rows) else { continue }
                guard let id = row.id else { print("Not saved yet: use Edit to fill it in."); continue }
                let info = try accounts.details(id)
                print("Username: \(info.username)\nPassword: \(info.password)\nWebsite:  \(info.website)\nNotes:    \(info.notes)")
                if Terminal.confirm("Delete it?") { try accounts.delete(info.id) }
            case 1:
                guard let row = pickRow(rows) else { continue }
                var form = try accounts.form(for: row)
                guard let username = Terminal.ask("Username [\(form.username)]:"), let website = Terminal.ask("Website [\(form.website)]:"),
                      let notes = Terminal.ask("Notes [\(form.notes)]:") else { return }
                if !username.isEmpty { form.username = username }
                if !website.isEmpty { form.website = website }
                if !notes.isEmpty { form.notes = notes }
                askPassword(into: &form)
                if Terminal.confirm("Save?") { try accounts.save(form, for: row) }
            case 2:
                accounts.insertNewAccountRow()
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func pickRow(_ rows: [AccountRow]) -> AccountRow? {
    guard let line = Terminal.ask("Number:"), let n = Int(line), rows.indices.contains(n - 1) else { return nil }
    return rows[n - 1]
}

/// Type a password, or leave it empty for the generator ("G"): Okay sets it, Cancel keeps
/// the form's password as it was.
private func askPassword(into form: inout AccountForm) {
    guard let typed = Terminal.askSecret("Password (empty: generator):") else { return }
    guard typed.count == 0 else { form.password = typed; return }
    var generator = PassView()
    while true {
        generator.settings.length = Int(Terminal.ask("Length [\(generator.settings.length)]:") ?? "") ?? generator.settings.length
        generator.settings.capitals = Terminal.confirm("Capitals?")
        generator.settings.numbers = Terminal.confirm("Numbers?")
        generator.settings.symbols = Terminal.confirm("Symbols?")
        do {
            let password = try generator.generate()
            print("Generated: \(password.unsafeStringCopy() ?? "")")
        } catch {
            print("⚠︎ \(error)")
            continue
        }
        switch Terminal.choose("Generator", ["Okay", "Generate again", "Cancel"]) {
        case 0?: form.closeGenerator(generator, okay: true); return
        case 1?: continue
        default: form.closeGenerator(generator, okay: false); return
        }
    }
}

// `swift run AccountsBook --interactive`: the three views as line-based menus.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let files = AppFiles(folder: folder)
    // The touch, on a terminal: a confirmation prompt. Touch ID works until the app quits.
    let touchID = TouchIDUnlockCache { reason in Terminal.confirm("Touch ID: touch the sensor to \(reason)?") }
    let screen = LoginScreen(files: files, options: VaultOptions(), touchID: touchID)   // real apps: the default 256 MiB KDF
    while true {
        let options = [screen.primaryButton, "Use Touch ID"] + (screen.hasLogin ? ["Delete Login"] : []) + ["Quit"]
        guard let choice = Terminal.choose("Login", options) else { return }
        do {
            switch options[choice] {
            case "Create Login", "Login":
                guard let name = Terminal.ask("Username:"), let password = Terminal.askSecret("Password:") else { return }
                let book = screen.hasLogin ? try screen.login(username: name, password: password)
                                           : try screen.createLogin(username: name, password: password)
                try accountsMenu(book)
            case "Use Touch ID":
                try accountsMenu(try screen.loginWithTouchID())
            case "Delete Login":
                guard let password = Terminal.askSecret("Password:") else { return }
                try screen.deleteLogin(password: password, confirmed: Terminal.confirm("Delete the login and every account?"))
                print("Login deleted.")
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func accountsMenu(_ book: AccountsList) throws {
    defer { book.logOut() }
    while true {
        let accounts = try book.accounts()
        print("\nAccounts of \(book.username):")
        for (n, a) in accounts.enumerated() { print("  \(n + 1). \(a.name) | \(a.username) | \(try book.password(of: a))") }
        guard let choice = Terminal.choose("Accounts", ["Add", "Edit", "Delete", "Enable Touch ID", "Log out"]) else { return }
        do {
            switch choice {
            case 0, 1:
                let editing = choice == 1 ? pick(accounts) : nil
                if choice == 1 && editing == nil { continue }
                guard let name = Terminal.ask("Account name\(editing.map { " [\($0.name)]" } ?? ""):"),
                      let user = Terminal.ask("Username\(editing.map { " [\($0.username)]" } ?? ""):"),
                      let password = Terminal.askSecret("Password:") else { return }
                if let editing {
                    try book.edit(editing.id, name: name.isEmpty ? editing.name : name,
                                  username: user.isEmpty ? editing.username : user, password: password)
                } else {
                    try book.add(name: name, username: user, password: password)
                }
            case 2:
                if let account = pick(accounts), Terminal.confirm("Delete \(account.name)?") { try book.delete(account.id) }
            case 3:
                let unlock = try book.enableTouchID()
                print("Touch ID enabled until \(unlock.expires.formatted()) or until the app quits: \"Use Touch ID\" opens the vault without the password.")
            default:
                return
            }
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func pick(_ accounts: [Account]) -> Account? {
    guard let line = Terminal.ask("Number:"), let n = Int(line), accounts.indices.contains(n - 1) else { return nil }
    return accounts[n - 1]
}

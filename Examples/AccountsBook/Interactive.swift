// `swift run AccountsBook --interactive`: the three views as line-based menus.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let files = AppFiles(folder: folder)
    let screen = LoginScreen(files: files, options: VaultOptions())   // real apps: the default 256 MiB KDF
    while true {
        let options = [screen.primaryButton, "Use Touch ID (device key)"] + (screen.hasLogin ? ["Delete Login"] : []) + ["Quit"]
        guard let choice = Terminal.choose("Login", options) else { return }
        do {
            switch options[choice] {
            case "Create Login", "Login":
                guard let name = Terminal.ask("Username:"), let password = Terminal.askSecret("Password:") else { return }
                let book = screen.hasLogin ? try screen.login(username: name, password: password)
                                           : try screen.createLogin(username: name, password: password)
                try accountsMenu(book)
            case "Use Touch ID (device key)":
                try accountsMenu(try screen.loginWithDeviceKey())
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
                try book.enableDeviceKey()
                print("Touch ID enabled: a device key (mode 0600) now opens the vault.")
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

// `swift run Transfers --interactive`: the login and home scenes as menus.
import Coffer
import ExampleSupport
import Foundation

func interactive(in folder: URL) throws {
    let bank = try Bank(folder: folder, options: VaultOptions())   // the real 256 MiB KDF
    if try bank.ledger.items().isEmpty {
        print("Registering the demo users (each starts with \(Money.format(Bank.openingBalance))):")
        for (username, password) in demoUsers {
            try bank.register(username: username, password: try SecureBytes(copying: password))
            print("  \(username) / \(password)")
        }
    }
    while true {
        guard let choice = Terminal.choose("Welcome", ["Log in", "Register", "Quit"]) else { return }
        guard choice < 2, let username = Terminal.ask("Username:"), let password = Terminal.askSecret("Password:") else { return }
        do {
            if choice == 1 { try bank.register(username: username, password: password) }
            try home(try bank.logIn(username: username, password: password))
        } catch {
            print("⚠︎ \(error)")
        }
    }
}

private func home(_ customer: Customer) throws {
    while true {
        print("\n\(customer.greeting)  Balance: \(Money.format(try customer.balance()))")
        guard Terminal.choose("Home", ["Transfer", "Log out"]) == 0 else { return }
        guard let amount = Terminal.ask("Amount:"), let recipient = Terminal.ask("To user:") else { return }
        do {
            try customer.transfer(amount, to: recipient)
            print("✓ Transfer successful.")
        } catch {
            print("⚠︎ Transfer failed: \(error)")
        }
    }
}

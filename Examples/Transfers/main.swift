// Transfers: seed 003, "CodeAcademy" — register, log in, and transfer money between users.
// Each transfer changes both balances in one vault transaction: all of it or nothing.
//
//   swift run Transfers                  scripted walk-through, checks every step
//   swift run Transfers --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

/// The seed allows a hard-coded user list, so nobody has to register first.
let demoUsers = [("alice.smith", "alice-password"), ("bob.jones1", "bob-password"), ("carol.white", "carol-password")]

func walkthrough(in folder: URL) throws {
    let bank = try Bank(folder: folder, options: .walkthrough)
    func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }
    func balances() throws -> [String] { try demoUsers.map { Money.format(try bank.balance(of: $0.0)) } }

    section("Register")
    checkFails("a username under 8 characters is refused", with: BankError.usernameTooShort) {
        try bank.register(username: "alice", password: try secret("alice-password"))
    }
    checkFails("a username with spaces or symbols is refused", with: BankError.usernameInvalid) {
        try bank.register(username: "alice smith!", password: try secret("alice-password"))
    }
    checkFails("a password under 8 characters is refused", with: BankError.passwordTooShort) {
        try bank.register(username: "alice.smith", password: try secret("short"))
    }
    for (username, password) in demoUsers { try bank.register(username: username, password: try secret(password)) }
    check(try balances() == ["100.00", "100.00", "100.00"], "registered \(demoUsers.map(\.0)), each with 100.00")
    checkFails("a taken username is refused (case does not matter)", with: BankError.usernameTaken) {
        try bank.register(username: "Alice.Smith", password: try secret("another-password"))
    }

    section("Log in")
    checkFails("a wrong password is refused", with: BankError.loginFailed) {
        _ = try bank.logIn(username: "alice.smith", password: try secret("bob-password"))
    }
    checkFails("an unknown user gets the same answer", with: BankError.loginFailed) {
        _ = try bank.logIn(username: "mallory.x", password: try secret("alice-password"))
    }
    let alice = try bank.logIn(username: "alice.smith", password: try secret("alice-password"))
    check(alice.greeting == "Hello, alice.smith!", "the home scene says \"\(alice.greeting)\"")
    check(try Money.format(alice.balance()) == "100.00", "and shows the balance: 100.00")

    section("Transfer")
    let left = try alice.transfer("25.50", to: "bob.jones1")
    check(try Money.format(left) == "74.50" && balances() == ["74.50", "125.50", "100.00"],
          "Alice sent 25.50 to Bob: both balances changed")
    let refusals: [(String, String, BankError)] = [
        ("0", "bob.jones1", .amountNotPositive), ("-5", "bob.jones1", .amountNotPositive),
        ("ten", "bob.jones1", .invalidAmount), ("1.005", "bob.jones1", .invalidAmount),
        ("74.51", "bob.jones1", .insufficientFunds), ("1", "nobody.here", .unknownRecipient),
        ("1", "alice.smith", .sameAccount),
    ]
    for (amount, recipient, error) in refusals {
        checkFails("\(amount) to \(recipient) is refused", with: error) { try alice.transfer(amount, to: recipient) }
    }
    check(try balances() == ["74.50", "125.50", "100.00"], "refused transfers changed nothing")

    section("All of it or nothing")
    struct SimulatedCrash: Error {}
    do {
        try bank.ledger.transaction { tx in
            guard let from = try Bank.account(of: "alice.smith", in: tx) else { return }
            try tx.update(from.id, secrets: try Bank.secrets(cents: from.cents - 50_00))
            step("debited Alice inside a transaction, then failed before crediting anyone")
            throw SimulatedCrash()
        }
    } catch is SimulatedCrash {}
    check(try balances() == ["74.50", "125.50", "100.00"], "the debit was not saved")
    let reopened = try Bank(folder: folder, options: .walkthrough)
    check(try demoUsers.map { Money.format(try reopened.balance(of: $0.0)) } == ["74.50", "125.50", "100.00"],
          "the ledger read again from disk agrees")
    let bob = try reopened.logIn(username: "bob.jones1", password: try secret("bob-password"))
    try bob.transfer("5", to: "carol.white")
    check(try balances() == ["74.50", "120.50", "105.00"], "a transfer through a second Bank instance is seen by the first")
    check(try balances().compactMap { try? Money.cents(from: $0) }.reduce(0, +) == 3 * Bank.openingBalance,
          "no money was created or lost: the total is still 300.00")

    section("Who can read what")
    let ledgerPath = folder.appendingPathComponent("bank.coffer").path
    check(bank.ledger.slots == [.rawKey], "the ledger opens only with the bank's key; no user's password opens it")
    check(!file(ledgerPath, contains: "alice.smith") && !file(ledgerPath, contains: "7450"), "the ledger file holds no name or balance in clear")
    checkFails("Bob's password does not open Alice's login vault", with: CofferError.wrongPassword) {
        _ = try Vault.open(at: bank.loginVaultPath("alice.smith"), password: try secret("bob-password"))
    }
}

exampleMain("Transfers — seed 003: registration, log-in and atomic transfers between users",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

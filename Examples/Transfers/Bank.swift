// The bank of seed 003: registration, log-in, balances and transfers.
//
// Two kinds of vault:
// - `users/<username>.coffer`, one per user, opened by that user's password: logging
//   in is opening it. The password is never stored anywhere.
// - `bank.coffer`, the ledger: every balance, opened by the bank's key (a raw-key slot;
//   the key is in `bank.key`, mode 0600, standing in for a server's keystore).
// A transfer changes two balances. They live in ONE vault so that one transaction
// saves both or neither; in a real bank the ledger would live on a server, but the
// rule is the same: both sides of a transfer are written in one atomic step.
import Coffer
import ExampleSupport
import Foundation

enum BankError: Error, Equatable, CustomStringConvertible {
    case usernameTooShort, usernameInvalid, usernameTaken, passwordTooShort, loginFailed
    case invalidAmount, amountNotPositive, insufficientFunds, unknownRecipient, sameAccount, noAccount

    var description: String {
        switch self {
        case .usernameTooShort: return "The username needs at least 8 characters."
        case .usernameInvalid: return "Use only letters, digits, '.', '_' and '-' in the username."
        case .usernameTaken: return "That username is already registered."
        case .passwordTooShort: return "The password needs at least 8 characters."
        case .loginFailed: return "Wrong username or password."
        case .invalidAmount: return "Enter an amount such as 12.50."
        case .amountNotPositive: return "The amount must be more than zero."
        case .insufficientFunds: return "You cannot transfer more than your balance."
        case .unknownRecipient: return "There is no user with that username."
        case .sameAccount: return "You cannot transfer to yourself."
        case .noAccount: return "This user has no account."
        }
    }
}

final class Bank {
    /// What every new account starts with, in cents: the seed app has no deposits.
    static let openingBalance = 100_00
    let ledger: Vault
    private let folder: URL
    private let options: VaultOptions

    /// Opens the ledger, creating it and the bank's key on first launch.
    init(folder: URL, options: VaultOptions) throws {
        self.folder = folder
        self.options = options
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("users"), withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("bank.coffer").path
        let keyPath = folder.appendingPathComponent("bank.key").path
        if let key = try StandInKeystore.loadKey(at: keyPath) {
            ledger = try Vault.open(at: path, credential: .rawKey(key), options: options)
        } else {
            ledger = try Vault.create(at: path, credential: .rawKey(try StandInKeystore.createKey(at: keyPath)), options: options)
        }
    }

    func loginVaultPath(_ username: String) -> String {
        folder.appendingPathComponent("users").appendingPathComponent(username + ".coffer").path
    }

    /// Usernames are case-insensitive: kept in lowercase.
    func register(username rawUsername: String, password: SecureBytes) throws {
        let username = rawUsername.lowercased()
        guard username.count >= 8 else { throw BankError.usernameTooShort }
        guard username.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }), !username.hasPrefix(".")
        else { throw BankError.usernameInvalid }
        guard password.count >= 8 else { throw BankError.passwordTooShort }
        // Creating the file is the atomic "not taken" check, even between two processes.
        do {
            try Vault.create(at: loginVaultPath(username), password: password, options: options).lock()
        } catch CofferError.fileExists {
            throw BankError.usernameTaken
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        do {
            try ledger.add(.genericPassword(service: "balance", account: username), secrets: try Self.secrets(cents: Self.openingBalance))
        } catch {
            removeVaultFiles(at: loginVaultPath(username))   // no login without an account
            throw error
        }
    }

    /// Logging in is opening the user's own vault with their password.
    func logIn(username rawUsername: String, password: SecureBytes) throws -> Customer {
        let username = rawUsername.lowercased()
        do {
            try Vault.open(at: loginVaultPath(username), password: password, options: options).lock()
        } catch CofferError.wrongPassword, CofferError.fileNotFound {
            throw BankError.loginFailed   // the same answer for an unknown user
        } catch {
            throw error
        }
        return Customer(username: username, bank: self)
    }

    func balance(of username: String) throws -> Int {
        try ledger.refresh()   // another process may have saved a transfer
        return try ledger.transaction { tx in
            guard let account = try Self.account(of: username, in: tx) else { throw BankError.noAccount }
            return account.cents
        }
    }

    /// Moves `cents` from one balance to another in one transaction: every check runs
    /// inside it, on the balances it will write, and nothing is saved if one fails.
    /// Returns the sender's new balance.
    @discardableResult
    func transfer(_ cents: Int, from sender: String, to rawRecipient: String) throws -> Int {
        let recipient = rawRecipient.lowercased()
        guard cents > 0 else { throw BankError.amountNotPositive }
        guard recipient != sender else { throw BankError.sameAccount }
        try ledger.refresh()
        return try ledger.transaction { tx in
            guard let from = try Self.account(of: sender, in: tx) else { throw BankError.noAccount }
            guard let to = try Self.account(of: recipient, in: tx) else { throw BankError.unknownRecipient }
            guard cents <= from.cents else { throw BankError.insufficientFunds }
            try tx.update(from.id, secrets: try Self.secrets(cents: from.cents - cents))
            try tx.update(to.id, secrets: try Self.secrets(cents: to.cents + cents))
            return from.cents - cents
        }
        // If another process saved one of these balances meanwhile, the transaction throws
        // CofferError.conflict and saves nothing; the caller may simply try again.
    }

    /// A balance: a generic password (service "balance", account = username) whose
    /// secret notes hold the cents as text.
    static func account(of username: String, in tx: VaultTransaction) throws -> (id: ItemID, cents: Int)? {
        guard let item = try tx.firstItem(matching: ItemQuery(service: "balance", account: username)) else { return nil }
        guard let text = try tx.secrets(for: item.id).notes?.unsafeStringCopy(), let cents = Int(text) else {
            throw CofferError.invalidItem("the balance of \(username) is not a number")
        }
        return (item.id, cents)
    }

    static func secrets(cents: Int) throws -> ItemSecrets {
        ItemSecrets(notes: try SecureBytes(copying: String(cents)))
    }
}

/// The home scene: a greeting, the balance, transfers and logout.
struct Customer {
    let username: String
    let bank: Bank

    var greeting: String { "Hello, \(username)!" }
    func balance() throws -> Int { try bank.balance(of: username) }

    /// Transfers an amount typed by the user, e.g. "12.50".
    @discardableResult
    func transfer(_ amount: String, to recipient: String) throws -> Int {
        try bank.transfer(try Money.cents(from: amount), from: username, to: recipient)
    }
}

enum Money {
    /// "12", "12.5" or "12.50" -> 1250 cents. A leading minus is read, so that a
    /// negative amount gets its own message.
    static func cents(from text: String) throws -> Int {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let negative = trimmed.hasPrefix("-")
        let parts = trimmed.dropFirst(negative ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let units = Int(parts[0]), parts[0].allSatisfy(\.isNumber), parts[0].count <= 12
        else { throw BankError.invalidAmount }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 2, fraction.allSatisfy(\.isNumber) else { throw BankError.invalidAmount }
        let cents = units * 100 + (Int(fraction.padding(toLength: 2, withPad: "0", startingAt: 0)) ?? 0)
        return negative ? -cents : cents
    }

    static func format(_ cents: Int) -> String {
        let fraction = abs(cents) % 100
        return "\(cents < 0 ? "-" : "")\(abs(cents) / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

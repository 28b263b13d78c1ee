// The model of seed 004, Secuure: users, their stored accounts, and the generator view.
// Each user has a vault, `users/<username>.coffer`, opened by their password; a stored
// account is an internet password (server = website, account = username) whose secret
// part holds the password and the notes.
import Coffer
import ExampleSupport
import Foundation

enum SecuureError: Error, Equatable, CustomStringConvertible {
    case missingField, usernameInvalid, usernameTaken, passwordTooShort, loginFailed, accountExists

    var description: String {
        switch self {
        case .missingField: return "Fill in every field."
        case .usernameInvalid: return "Use only letters, digits, '.', '_' and '-' in the username."
        case .usernameTaken: return "That username is already registered."
        case .passwordTooShort: return "The password needs at least 8 characters."
        case .loginFailed: return "Wrong username or password."
        case .accountExists: return "That username is already stored for this website."
        }
    }
}

struct Profile: Codable, Equatable {
    var firstName: String
    var lastName: String
    var username: String
}

/// The login and sign-up views.
struct Secuure {
    let folder: URL
    let options: VaultOptions

    func vaultPath(_ username: String) -> String {
        folder.appendingPathComponent("users").appendingPathComponent(username.lowercased() + ".coffer").path
    }

    /// Registers a user; the app then shows "registration successful" and returns to the login view.
    func signUp(firstName: String, lastName: String, username: String, password: SecureBytes) throws {
        guard ![firstName, lastName, username].contains(where: \.isEmpty), password.count > 0 else { throw SecuureError.missingField }
        guard username.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }), !username.hasPrefix(".")
        else { throw SecuureError.usernameInvalid }
        guard password.count >= 8 else { throw SecuureError.passwordTooShort }
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("users"), withIntermediateDirectories: true)
        let vault: Vault
        do {
            vault = try Vault.create(at: vaultPath(username), password: password, options: options)
        } catch CofferError.fileExists {
            throw SecuureError.usernameTaken
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        defer { vault.lock() }
        try vault.keychain(service: "secuure.profile")
            .set(Profile(firstName: firstName, lastName: lastName, username: username), key: "me")
    }

    func logIn(username: String, password: SecureBytes) throws -> StoredAccounts {
        do {
            return StoredAccounts(vault: try Vault.open(at: vaultPath(username), password: password, options: options))
        } catch CofferError.wrongPassword, CofferError.fileNotFound {
            throw SecuureError.loginFailed
        } catch {
            throw error
        }
    }
}

struct StoredAccount: Equatable {
    let id: ItemID
    var username: String
    var website: String
    var password: String   // a copy for display
    var notes: String

    /// The row text of the seed: `<username>_<website>`.
    var title: String { "\(username)_\(website)" }
}

/// A row of the main view's table: a stored account, or a "New Account" row the "+"
/// button inserted, not saved yet (`id` nil).
struct AccountRow: Equatable {
    static let newAccountTitle = "New Account"

    let id: ItemID?
    let title: String
}

/// The add view (AddViewController), for a new account or, through a row's "Edit"
/// button, a stored one: its fields, filled from the row.
struct AccountForm {
    var username = ""
    var website = ""
    var notes = ""
    /// Nil until typed or generated; for an edit, the stored password.
    var password: SecureBytes?

    /// Leaves the generator view (PassViewController): "Okay" sets the form's password to
    /// the generated one; "Cancel" returns with the password as it was.
    mutating func closeGenerator(_ generator: PassView, okay: Bool) {
        if okay, let generated = generator.generated { password = generated }
    }
}

/// The main view: the signed-in user's stored accounts.
final class StoredAccounts {
    let vault: Vault
    /// "New Account" rows inserted with "+" and not saved yet.
    private(set) var newRows = 0

    init(vault: Vault) { self.vault = vault }

    func profile() throws -> Profile? { try vault.keychain(service: "secuure.profile").get(Profile.self, key: "me") }

    /// The table rows, as `<username>_<website>`, then the unsaved "New Account" rows.
    /// Lists attributes only: no password is decrypted.
    func rows() throws -> [AccountRow] {
        try vault.items(matching: ItemQuery(kind: .internetPassword)).map { AccountRow(id: $0.id, title: "\($0.account ?? "")_\($0.server ?? "")") }
            + Array(repeating: AccountRow(id: nil, title: AccountRow.newAccountTitle), count: newRows)
    }

    /// The "+" button: a "New Account" row, saved when its form is.
    func insertNewAccountRow() { newRows += 1 }

    /// The "Edit" button: the add view, filled from the row (empty for a "New Account" row).
    func form(for row: AccountRow) throws -> AccountForm {
        guard let id = row.id else { return AccountForm() }
        let item = try vault.item(id)
        let secrets = try vault.secrets(for: id)
        return AccountForm(username: item.account ?? "", website: item.server ?? "",
                           notes: secrets.notes?.unsafeStringCopy() ?? "", password: secrets.password)
    }

    /// The add view's "Save": stores a "New Account" row's form as a new account, or
    /// changes the stored one (renamed, new password into its history, notes replaced).
    @discardableResult
    func save(_ form: AccountForm, for row: AccountRow) throws -> ItemID {
        guard let id = row.id else {
            guard let password = form.password else { throw SecuureError.missingField }
            let added = try add(username: form.username, password: password, website: form.website, notes: form.notes)
            newRows -= 1
            return added
        }
        guard !form.username.isEmpty, !form.website.isEmpty, let password = form.password, password.count > 0 else {
            throw SecuureError.missingField
        }
        let notes = form.notes.isEmpty ? nil : try SecureBytes(copying: form.notes)
        do {
            _ = try vault.update(id) { attributes, secrets in
                attributes.account = form.username
                attributes.server = form.website
                secrets.password = password
                secrets.notes = notes
            }
        } catch CofferError.duplicateItem {
            throw SecuureError.accountExists
        } catch {
            throw error
        }
        return id
    }

    @discardableResult
    func add(username: String, password: SecureBytes, website: String, notes: String) throws -> ItemID {
        guard !username.isEmpty, !website.isEmpty, password.count > 0 else { throw SecuureError.missingField }
        let secrets = ItemSecrets(password: password, notes: notes.isEmpty ? nil : try SecureBytes(copying: notes))
        let item: Item
        do {
            item = try vault.add(.internetPassword(server: website, account: username), secrets: secrets)
        } catch CofferError.duplicateItem {
            throw SecuureError.accountExists
        } catch {
            throw error
        }
        return item.id
    }

    /// The info view: decrypts this one account.
    func details(_ id: ItemID) throws -> StoredAccount {
        let item = try vault.item(id)
        let secrets = try vault.secrets(for: id)
        return StoredAccount(id: id, username: item.account ?? "", website: item.server ?? "",
                             password: secrets.password?.unsafeStringCopy() ?? "", notes: secrets.notes?.unsafeStringCopy() ?? "")
    }

    func delete(_ id: ItemID) throws { try vault.delete(id) }

    func signOut() { vault.lock() }
}

/// The generator view (PassViewController): the settings and the password "Generate"
/// last showed; "Okay" and "Cancel" are ``AccountForm/closeGenerator(_:okay:)``.
struct PassView {
    var settings = GeneratorSettings()
    private(set) var generated: SecureBytes?

    /// The "Generate" button.
    mutating func generate() throws -> SecureBytes {
        let password = try settings.generate()
        generated = password
        return password
    }
}

/// The generator view: a length slider and switches for capitals, numbers and symbols.
struct GeneratorSettings {
    var length = 16
    var capitals = true
    var numbers = true
    var symbols = true

    /// A password with at least one character of every class switched on (lowercase always).
    func generate() throws -> SecureBytes {
        let policy = PasswordPolicy(length: length, includeLowercase: true, includeUppercase: capitals,
                                    includeDigits: numbers, includeSymbols: symbols, requireEachClass: true)
        return try PasswordGenerator(policy: policy).generate()
    }
}

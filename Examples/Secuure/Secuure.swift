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

/// The main view: the signed-in user's stored accounts.
final class StoredAccounts {
    let vault: Vault

    init(vault: Vault) { self.vault = vault }

    func profile() throws -> Profile? { try vault.keychain(service: "secuure.profile").get(Profile.self, key: "me") }

    /// The table rows, as `<username>_<website>`. Lists attributes only: no password is decrypted.
    func rows() throws -> [(id: ItemID, title: String)] {
        try vault.items(matching: ItemQuery(kind: .internetPassword)).map { ($0.id, "\($0.account ?? "")_\($0.server ?? "")") }
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

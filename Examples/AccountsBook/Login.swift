// The login view model of seed 000. The seed keeps the username in UserDefaults and
// the password in the Keychain; here the master password opens the vault itself (it
// is never stored), and the username is kept inside the vault, so the file on disk
// reveals neither. "Use Touch ID" opens the vault through an app-provided unlock cache
// (TouchIDUnlockCache.swift).
import Coffer
import ExampleSupport
import Foundation

enum LoginError: Error, Equatable, CustomStringConvertible {
    case emptyField, loginExists, noLogin, wrongCredentials, touchIDNotSetUp, touchIDNotConfirmed, notConfirmed

    var description: String {
        switch self {
        case .emptyField: return "Enter a username and a password."
        case .loginExists: return "A login already exists on this device."
        case .noLogin: return "No login yet: create one first."
        case .wrongCredentials: return "The username or password is incorrect."
        case .touchIDNotSetUp: return "Touch ID is not set up: log in with your password and enable it."
        case .touchIDNotConfirmed: return "Touch ID was not confirmed: log in with your password, or try again."
        case .notConfirmed: return "Nothing was deleted."
        }
    }
}

/// The files of one installation: the vault alone (Touch ID's unlock is no file).
struct AppFiles {
    let vault: String

    init(folder: URL) {
        vault = folder.appendingPathComponent("accounts.coffer").path
    }
}

/// The login screen: create, log in (password or Touch ID), delete.
struct LoginScreen {
    let files: AppFiles
    let options: VaultOptions
    /// Where "Enable Touch ID" keeps the vault's unlock, and "Use Touch ID" finds it.
    let touchID: TouchIDUnlockCache

    /// The item that records the username; accounts are the items tagged "account".
    static let loginService = "com.example.accountsbook.login"

    var hasLogin: Bool { FileManager.default.fileExists(atPath: files.vault) }
    /// "Create Login" until a login exists, then "Login" (and a "Delete Login" button).
    var primaryButton: String { hasLogin ? "Login" : "Create Login" }
    /// The seed enables the button once both fields hold at least one character.
    static func canSubmit(username: String, password: SecureBytes) -> Bool { !username.isEmpty && password.count > 0 }

    func createLogin(username: String, password: SecureBytes) throws -> AccountsList {
        guard Self.canSubmit(username: username, password: password) else { throw LoginError.emptyField }
        let vault: Vault
        do {
            vault = try Vault.create(at: files.vault, credential: .password(password), options: options)
        } catch CofferError.fileExists {
            throw LoginError.loginExists
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        do {
            try vault.add(.genericPassword(service: Self.loginService, account: username))
        } catch {
            removeVaultFiles(at: files.vault)   // no half-made login
            throw error
        }
        return AccountsList(vault: vault, username: username, touchID: touchID)
    }

    func login(username: String, password: SecureBytes) throws -> AccountsList {
        guard Self.canSubmit(username: username, password: password) else { throw LoginError.emptyField }
        guard hasLogin else { throw LoginError.noLogin }
        let vault: Vault
        do {
            vault = try Vault.open(at: files.vault, password: password, options: options)
        } catch CofferError.wrongPassword {
            throw LoginError.wrongCredentials
        } catch {
            throw error
        }
        // Same message for a wrong username as for a wrong password.
        guard try storedUsername(in: vault) == username else {
            vault.lock()
            throw LoginError.wrongCredentials
        }
        return AccountsList(vault: vault, username: username, touchID: touchID)
    }

    /// "Use Touch ID": the cached unlock opens the vault, with no password, once the
    /// touch confirms it is the user.
    func loginWithTouchID() throws -> AccountsList {
        guard hasLogin else { throw LoginError.noLogin }
        let vault: Vault?
        do {
            vault = try Vault.open(at: files.vault, unlockCache: touchID, options: options)
        } catch CofferError.unlockCacheUnavailable {
            throw LoginError.touchIDNotConfirmed
        } catch {
            throw error
        }
        // None cached, expired, or no longer opening the vault (then forgotten).
        guard let vault else { throw LoginError.touchIDNotSetUp }
        return AccountsList(vault: vault, username: try storedUsername(in: vault), touchID: touchID)
    }

    /// "Delete Login": after the password proves the owner and the user confirms,
    /// removes the vault (with its backup) and forgets its Touch ID unlock.
    func deleteLogin(password: SecureBytes, confirmed: Bool) throws {
        guard confirmed else { throw LoginError.notConfirmed }
        guard hasLogin else { throw LoginError.noLogin }
        do {
            try Vault.open(at: files.vault, password: password, options: options).lock()
        } catch CofferError.wrongPassword {
            throw LoginError.wrongCredentials
        } catch {
            throw error
        }
        try touchID.removeUnlocks(forVaultAt: files.vault)
        removeVaultFiles(at: files.vault)
    }

    private func storedUsername(in vault: Vault) throws -> String {
        try vault.firstItem(matching: ItemQuery(service: Self.loginService))?.account ?? ""
    }
}

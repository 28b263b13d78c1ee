// Sign-up, log-in and the current session of seed 001 (Firebase Auth in the seed).
//
// Each user has a vault of their own, `users/<email>.coffer`, opened by their password:
// one user cannot read another's notebooks, whatever the app does. Only the file name
// tells that an email signed up, as Firebase's user list would.
//
// The current session is a cached unlock ("unlock once"): logging in keeps the vault's
// unlock in the kernel keyring (`vault.cacheUnlock(in: KernelKeyring(), for:)`) until the
// session ends, and a new launch opens the vault with it (`Vault.open(at:unlockCache:)`)
// without asking for the password. Nothing about the session is written to disk and the
// vault gets no extra key slot. Logging out forgets the cached unlock; at the timeout the
// kernel drops it. Where there is no kernel keyring (a container may block it), logging
// in still works, says so in one line, and the next launch asks for the password.
import Coffer
import ExampleSupport
import Foundation

enum AuthError: Error, Equatable, CustomStringConvertible {
    case missingName, invalidEmail, passwordTooShort, passwordsDoNotMatch, emailTaken, loginFailed, sessionExpired

    var description: String {
        switch self {
        case .missingName: return "Enter a display name."
        case .invalidEmail: return "Enter a valid email address."
        case .passwordTooShort: return "The password needs at least 8 characters."
        case .passwordsDoNotMatch: return "The password and its confirmation do not match."
        case .emailTaken: return "An account with this email already exists: the account was not created. Choose a different email."
        case .loginFailed: return "Login was not successful: check the email and password."
        case .sessionExpired: return "Your session has expired: log in again."
        }
    }
}

struct Auth {
    let folder: URL
    let options: VaultOptions
    /// How long a session lasts after logging in.
    let sessionLength: Duration
    /// Where a session waits for the next launch: the session's kernel keyring.
    let cache: any UnlockCache

    init(folder: URL, options: VaultOptions, sessionLength: Duration, cache: any UnlockCache = KernelKeyring()) {
        self.folder = folder
        self.options = options
        self.sessionLength = sessionLength
        self.cache = cache
    }

    private var usersFolder: URL { folder.appendingPathComponent("users") }

    func vaultPath(for email: String) -> String {
        usersFolder.appendingPathComponent(email + ".coffer").path
    }

    /// Creates the user's vault (the check for a taken email is the atomic file creation)
    /// and logs them in.
    func signUp(displayName: String, email rawEmail: String, password: SecureBytes, confirmation: SecureBytes) throws -> UserSession {
        let email = rawEmail.lowercased()
        guard !displayName.trimmingCharacters(in: .whitespaces).isEmpty else { throw AuthError.missingName }
        guard email.range(of: #"^[a-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$"#, options: .regularExpression) != nil
        else { throw AuthError.invalidEmail }
        guard password.count >= 8 else { throw AuthError.passwordTooShort }   // bytes of UTF-8
        guard password == confirmation else { throw AuthError.passwordsDoNotMatch }   // constant-time
        try FileManager.default.createDirectory(at: usersFolder, withIntermediateDirectories: true)
        let vault: Vault
        do {
            vault = try Vault.create(at: vaultPath(for: email), password: password, options: options)
        } catch CofferError.fileExists {
            throw AuthError.emailTaken
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        try vault.keychain(service: "profile").set(Profile(displayName: displayName, email: email), key: "me")
        return try startSession(vault: vault)
    }

    func logIn(email rawEmail: String, password: SecureBytes) throws -> UserSession {
        let email = rawEmail.lowercased()
        let vault: Vault
        do {
            vault = try Vault.open(at: vaultPath(for: email), password: password, options: options)
        } catch CofferError.wrongPassword, CofferError.fileNotFound {
            throw AuthError.loginFailed   // the same message for an unknown email
        } catch {
            throw error
        }
        return try startSession(vault: vault)
    }

    /// The session a previous launch left, if it has not timed out; nil means "show the login".
    /// No password: the vault opens with the unlock cached when the user logged in.
    func currentSession() throws -> UserSession? {
        for unlock in try sessionUnlocks().sorted(by: { $0.expires > $1.expires }) {
            let vault: Vault?
            do {
                vault = try Vault.open(at: unlock.path, unlockCache: cache, options: options)
            } catch CofferError.fileNotFound {
                vault = nil   // the user's vault is gone
            } catch CofferError.unlockCacheUnavailable {
                return nil
            } catch {
                throw error
            }
            guard let vault else {
                // Gone, or no longer opening the vault (a changed password): it is forgotten.
                try? cache.remove(forVault: unlock.vaultID)
                continue
            }
            return try UserSession(vault: vault, expires: unlock.expires, notice: nil, cache: cache)
        }
        return nil
    }

    /// Ends every session of this app: one current user per device, as in Firebase.
    func endAllSessions() throws {
        for unlock in try sessionUnlocks() { try cache.remove(forVault: unlock.vaultID) }
    }

    /// The cached unlocks of this app's vaults (others in the keyring belong to other
    /// apps, or to `coffer unlock`); none when the keyring is unavailable.
    private func sessionUnlocks() throws -> [CachedUnlockEntry] {
        let unlocks: [CachedUnlockEntry]
        do {
            unlocks = try cache.entries()
        } catch CofferError.unlockCacheUnavailable {
            return []
        } catch {
            throw error
        }
        let prefix = usersFolder.path + "/"
        return unlocks.filter { $0.path.hasPrefix(prefix) && $0.path.hasSuffix(".coffer") }
    }

    /// Logs the vault's user in: their unlock is cached for `sessionLength`, replacing any
    /// other user's session.
    private func startSession(vault: Vault) throws -> UserSession {
        do {
            try endAllSessions()
            let unlock = try vault.cacheUnlock(in: cache, for: sessionLength)
            return try UserSession(vault: vault, expires: unlock.expires, notice: nil, cache: cache)
        } catch let error as CofferError where error.kind == .unlockCacheUnavailable {
            // Logged in for as long as the app runs; the next launch asks for the password.
            let seconds = Double(sessionLength.components.seconds) + Double(sessionLength.components.attoseconds) / 1e18
            return try UserSession(vault: vault, expires: Date().addingTimeInterval(seconds),
                                   notice: "The session cannot outlast the app (\(error)): the next launch asks for the password.",
                                   cache: cache)
        } catch {
            vault.lock()
            throw error
        }
    }
}

struct Profile: Codable {
    var displayName: String
    var email: String
}

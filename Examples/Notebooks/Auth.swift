// Sign-up, log-in and the current session of seed 001 (Firebase Auth in the seed).
//
// Each user has a vault of their own, `users/<email>.coffer`, opened by their password:
// one user cannot read another's notebooks, whatever the app does. Only the file name
// tells that an email signed up, as Firebase's user list would.
//
// The current session is a raw-key slot: logging in adds a random 32-byte key to the
// user's vault, kept in `session.key` (mode 0600, standing in for the Keychain) next to
// `session.json` (whose vault, until when). A new launch opens the vault with that key
// without asking for the password. When the session times out or the user logs out,
// the slot is removed, so the old key opens nothing.
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

/// What `session.json` records; the key itself is in `session.key`.
private struct StoredSession: Codable {
    var email: String
    var expires: Date
}

struct Auth {
    let folder: URL
    let options: VaultOptions
    /// How long a session lasts after logging in.
    let sessionTimeout: TimeInterval

    private var sessionFile: URL { folder.appendingPathComponent("session.json") }
    var sessionKeyPath: String { folder.appendingPathComponent("session.key").path }

    func vaultPath(for email: String) -> String {
        folder.appendingPathComponent("users").appendingPathComponent(email + ".coffer").path
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
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("users"), withIntermediateDirectories: true)
        let vault: Vault
        do {
            vault = try Vault.create(at: vaultPath(for: email), password: password, options: options)
        } catch CofferError.fileExists {
            throw AuthError.emailTaken
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        try vault.keychain(service: "profile").set(Profile(displayName: displayName, email: email), key: "me")
        return try startSession(vault: vault, email: email)
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
        return try startSession(vault: vault, email: email)
    }

    /// The session a previous launch left, if it has not timed out; nil means "show the login".
    func currentSession() throws -> UserSession? {
        guard let data = FileManager.default.contents(atPath: sessionFile.path),
              let stored = try? JSONDecoder().decode(StoredSession.self, from: data),
              let key = try StandInKeystore.loadKey(at: sessionKeyPath) else { return nil }
        guard Date() < stored.expires else {
            try? endStoredSession()
            return nil
        }
        guard let vault = try? Vault.open(at: vaultPath(for: stored.email), credential: .rawKey(key), options: options) else {
            clearSessionFiles()
            return nil
        }
        return try UserSession(vault: vault, sessionKey: key, expires: stored.expires, auth: self)
    }

    private func startSession(vault: Vault, email: String) throws -> UserSession {
        try? endStoredSession()   // one current user per device, as in Firebase
        let expires = Date().addingTimeInterval(sessionTimeout)
        let key = try StandInKeystore.createKey(at: sessionKeyPath)
        do {
            let json = try JSONEncoder().encode(StoredSession(email: email, expires: expires))
            guard FileManager.default.createFile(atPath: sessionFile.path, contents: json, attributes: [.posixPermissions: 0o600])
            else { throw CofferError.io(operation: "write", path: sessionFile.path, errno: EIO) }
            try vault.addKeySlot(.rawKey(key))
        } catch {
            clearSessionFiles()
            throw error
        }
        return try UserSession(vault: vault, sessionKey: key, expires: expires, auth: self)
    }

    /// Revokes the stored session: removes its slot from the vault, then its files.
    private func endStoredSession() throws {
        defer { clearSessionFiles() }
        guard let data = FileManager.default.contents(atPath: sessionFile.path),
              let stored = try? JSONDecoder().decode(StoredSession.self, from: data),
              let key = try StandInKeystore.loadKey(at: sessionKeyPath) else { return }
        let vault = try Vault.open(at: vaultPath(for: stored.email), credential: .rawKey(key), options: options)
        try vault.removeKeySlot(.rawKey(key))
        vault.lock()
    }

    func clearSessionFiles() {
        try? FileManager.default.removeItem(at: sessionFile)
        StandInKeystore.deleteKey(at: sessionKeyPath)
    }
}

struct Profile: Codable {
    var displayName: String
    var email: String
}

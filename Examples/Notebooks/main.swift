// Notebooks: seed 001, "InClass05" — sign up, log in, a current session, notebooks and notes.
// Firebase's users and documents become one vault per user, opened by that user's
// password; "current user" becomes the vault's unlock, cached in the kernel keyring for
// the session's length, which the next launch opens the vault with.
//
//   swift run Notebooks                  scripted walk-through, checks every step
//   swift run Notebooks --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

func walkthrough(in folder: URL) throws {
    let auth = Auth(folder: folder, options: .walkthrough, sessionLength: .seconds(15 * 60))
    // Whatever this walk-through caches in the keyring of the session is gone at the end.
    defer { try? auth.endAllSessions() }
    let keyring = KernelKeyring()
    let keyringProblem = keyringUnavailable(keyring)
    let keyringWorks = keyringProblem == nil
    let alicePassword = try SecureBytes(copying: "alice-notes-2024")
    func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }
    func aliceVaultID() throws -> String { try Vault.info(at: auth.vaultPath(for: "alice@example.com")).vaultID }

    section("Sign up")
    check(try auth.currentSession() == nil, "first launch: no current session, so the login screen shows")
    checkFails("an invalid email is refused", with: AuthError.invalidEmail) {
        _ = try auth.signUp(displayName: "Alice", email: "alice@", password: alicePassword, confirmation: alicePassword)
    }
    checkFails("a confirmation that differs is refused", with: AuthError.passwordsDoNotMatch) {
        _ = try auth.signUp(displayName: "Alice", email: "alice@example.com", password: alicePassword,
                            confirmation: try secret("alice-notes-2025"))
    }
    checkFails("a short password is refused", with: AuthError.passwordTooShort) {
        _ = try auth.signUp(displayName: "Alice", email: "alice@example.com", password: try secret("short"), confirmation: try secret("short"))
    }
    var alice = try auth.signUp(displayName: "Alice", email: "alice@example.com", password: alicePassword, confirmation: alicePassword)
    check(alice.displayName == "Alice", "Alice signed up and is logged in: \(auth.vaultPath(for: alice.email))")
    checkFails("a second sign-up with the same email fails", with: AuthError.emailTaken) {
        _ = try auth.signUp(displayName: "Eve", email: "ALICE@example.com", password: try secret("eve-password"),
                            confirmation: try secret("eve-password"))
    }

    section("Notebooks and notes")
    let groceries = try alice.addNotebook(named: "Groceries")
    try alice.addNotebook(named: "Travel")
    let milk = try alice.addNote("Milk", to: groceries)
    try alice.addNote("Eggs, a dozen", to: groceries)
    for notebook in try alice.notebooks() {
        step("\(notebook.name) (created \(notebook.created.formatted(date: .abbreviated, time: .standard)))")
        for note in try alice.notes(in: notebook) { step("    \(note.text) (\(note.created.formatted(date: .omitted, time: .standard)))") }
    }
    check(try alice.notebooks().map(\.name) == ["Groceries", "Travel"], "two notebooks, with their creation dates")
    try alice.deleteNote(milk)
    check(try alice.notes(in: groceries).map(\.text) == ["Eggs, a dozen"], "deleted the note \"Milk\"")
    check(!file(auth.vaultPath(for: alice.email), contains: "Eggs") && !file(auth.vaultPath(for: alice.email), contains: "Groceries"),
          "the vault file holds no notebook name or note text in clear")

    section("Current session: the unlock waits in the kernel keyring")
    check(try Vault.info(at: auth.vaultPath(for: alice.email)).slots.map(\.kind) == [.password],
          "the session adds no key slot: the vault has its password slot only")
    check(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["users"],
          "and no file: nothing about the session is on disk")
    if let why = keyringProblem {
        step("The kernel keyring is unavailable here (\(why)); so is resuming a session, and its checks are skipped.")
        check(alice.notice != nil, "Alice was told in one line: \"\(alice.notice ?? "")\"")
        try alice.logOut()
    } else {
        check(alice.notice == nil, "signing up cached Alice's unlock in the kernel keyring, until \(alice.expires.formatted(date: .omitted, time: .standard))")
        let cached = try keyring.cachedUnlock(forVault: try aliceVaultID())
        check(cached?.path == auth.vaultPath(for: alice.email) && cached?.slotKind == .password,
              "the keyring holds it: \(cached.map(String.init(describing:)) ?? "nothing")")
        let relaunch = try launch(in: folder)
        check(relaunch == "Welcome back, Alice: Groceries, Travel",
              "a new launch (a second process) resumes Alice's session without her password: \"\(relaunch)\"")
        let relaunched = try auth.currentSession()
        check(relaunched?.email == "alice@example.com", "so does Auth.currentSession() here: Vault.open(at:unlockCache:)")
        check(try relaunched?.notes(in: groceries).map(\.text) == ["Eggs, a dozen"], "and her notes are readable")
        try alice.logOut()
        check(try auth.currentSession() == nil, "after logging out, the login screen shows again")
        check(try keyring.cachedUnlock(forVault: try aliceVaultID()) == nil, "the cached unlock is gone from the keyring")
        check(try Vault.open(at: auth.vaultPath(for: "alice@example.com"), unlockCache: keyring) == nil,
              "so nothing opens her vault without the password")
        let afterLogout = try launch(in: folder)
        check(afterLogout == "Login screen", "a new launch asks for the password: \"\(afterLogout)\"")
    }
    checkFails("a wrong password does not log in", with: AuthError.loginFailed) {
        _ = try auth.logIn(email: "alice@example.com", password: try secret("alice-notes-2025"))
    }
    checkFails("an unknown email gets the same message", with: AuthError.loginFailed) {
        _ = try auth.logIn(email: "nobody@example.com", password: alicePassword)
    }

    section("Another user sees nothing of Alice's")
    let bobPassword = try secret("bob-the-builder")
    let bob = try auth.signUp(displayName: "Bob", email: "bob@example.com", password: bobPassword, confirmation: bobPassword)
    check(try bob.notebooks().isEmpty, "Bob signs up: he has no notebooks")
    checkFails("Bob's password does not open Alice's vault", with: CofferError.wrongPassword) {
        _ = try Vault.open(at: auth.vaultPath(for: "alice@example.com"), password: bobPassword)
    }
    if keyringWorks {
        let bobsVault = try Vault.open(at: auth.vaultPath(for: "bob@example.com"), unlockCache: keyring)
        let alicesVault = try Vault.open(at: auth.vaultPath(for: "alice@example.com"), unlockCache: keyring)
        check(bobsVault != nil && alicesVault == nil,
              "while Bob is logged in, the keyring opens his vault and not Alice's: one cached unlock per vault")
        bobsVault?.lock()
    }
    try bob.logOut()

    section("A session times out")
    let shortLived = Auth(folder: folder, options: .walkthrough, sessionLength: .milliseconds(300))   // instead of 15 minutes
    alice = try shortLived.logIn(email: "alice@example.com", password: alicePassword)
    check(try alice.notebooks().count == 2, "Alice logs in again; the session lasts 0.3 s in this walk-through")
    if keyringWorks {
        check(try keyring.cachedUnlock(forVault: try aliceVaultID()) != nil, "its unlock is cached until then")
    }
    Thread.sleep(forTimeInterval: 0.4)
    checkFails("after the timeout the app asks her to log in again", with: AuthError.sessionExpired) {
        _ = try alice.notebooks()
    }
    check(alice.isLocked, "the vault is locked: its keys are wiped from memory")
    if keyringWorks {
        check(try Vault.open(at: auth.vaultPath(for: "alice@example.com"), unlockCache: keyring) == nil,
              "and the cached unlock no longer opens the vault")
    }
    alice = try shortLived.logIn(email: "alice@example.com", password: alicePassword)
    Thread.sleep(forTimeInterval: 0.4)
    check(try shortLived.currentSession() == nil, "a launch after the timeout shows the login screen")
    if keyringWorks {
        let late = try launch(in: folder)
        check(late == "Login screen", "in a second process too: \"\(late)\"")
        check(try keyring.cachedUnlock(forVault: try aliceVaultID()) == nil, "and the expired unlock is gone from the keyring")
    }

    section("Without a kernel keyring")
    // As in a container whose seccomp profile blocks the keyring calls (Docker's default does).
    let noKeyring = Auth(folder: folder, options: .walkthrough, sessionLength: .seconds(15 * 60), cache: UnavailableKeyring())
    alice = try noKeyring.logIn(email: "alice@example.com", password: alicePassword)
    check(try alice.notebooks().count == 2, "logging in still works")
    check(alice.notice?.contains("the next launch asks for the password") == true,
          "and says so in one line: \"\(alice.notice ?? "")\"")
    check(try noKeyring.currentSession() == nil, "a new launch shows the login screen: the password is asked again")
    try alice.logOut()
    check(alice.isLocked, "logging out locks the vault")

    section("Delete a notebook with its notes")
    alice = try auth.logIn(email: "alice@example.com", password: alicePassword)
    try alice.deleteNotebook(groceries)
    check(try alice.notebooks().map(\.name) == ["Travel"], "\"Groceries\" and its note are deleted in one transaction")
    check(try alice.notes(in: groceries).isEmpty, "no note of it is left")
    try alice.logOut()
    if keyringWorks {
        check(try keyring.entries().allSatisfy { !$0.path.hasPrefix(folder.path + "/") },
              "logged out: the walk-through leaves nothing in the kernel keyring")
    }
}

/// Why the kernel keyring cannot be used here, or nil when it can.
func keyringUnavailable(_ keyring: KernelKeyring) -> String? {
    do {
        _ = try keyring.entries()
        return nil
    } catch where error.kind == .unlockCacheUnavailable {
        return error.description
    } catch {
        return nil   // another failure: the checks that use the keyring will show it
    }
}

/// A keyring that cannot be used, as `KernelKeyring` is where a container blocks the calls.
struct UnavailableKeyring: UnlockCache {
    static let error = CofferError.unlockCacheUnavailable("the kernel keyring refused access (a container or sandbox may block it)")
    func store(_ unlock: CachedUnlock) throws(CofferError) { throw Self.error }
    func cachedUnlock(forVault vaultID: String) throws(CofferError) -> CachedUnlock? { throw Self.error }
    func remove(forVault vaultID: String) throws(CofferError) { throw Self.error }
    func entries() throws(CofferError) -> [CachedUnlockEntry] { throw Self.error }
}

// MARK: A new launch, in a second process

/// Starts this program again with `--launch <folder>` and returns the line it prints:
/// what its first screen shows. A restart, not a call in this process.
func launch(in folder: URL) throws -> String {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--launch", folder.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return process.terminationStatus == 0 ? text : "exit \(process.terminationStatus): \(text)"
}

/// `Notebooks --launch <folder>`: what a fresh launch shows first, in one line, then exits.
/// The walk-through runs it; it opens Alice's vault only through the kernel keyring.
func firstScreen(in folder: URL) -> Never {
    do {
        let auth = Auth(folder: folder, options: .walkthrough, sessionLength: .seconds(15 * 60))
        if let session = try auth.currentSession() {
            print("Welcome back, \(session.displayName): \(try session.notebooks().map(\.name).joined(separator: ", "))")
        } else {
            print("Login screen")
        }
        exit(0)
    } catch {
        print("error: \(error)")
        exit(1)
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--launch" {
    firstScreen(in: URL(fileURLWithPath: arguments[2], isDirectory: true))
}

exampleMain("Notebooks — seed 001: sign-up, sessions, notebooks and notes per user",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

// Notebooks: seed 001, "InClass05" — sign up, log in, a current session, notebooks and notes.
// Firebase's users and documents become one vault per user, opened by that user's
// password; "current user" becomes a session key in a raw-key slot that times out.
//
//   swift run Notebooks                  scripted walk-through, checks every step
//   swift run Notebooks --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

func walkthrough(in folder: URL) throws {
    let auth = Auth(folder: folder, options: .walkthrough, sessionTimeout: 15 * 60)
    let alicePassword = try SecureBytes(copying: "alice-notes-2024")
    func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

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

    section("Current session")
    let relaunched = try auth.currentSession()
    check(relaunched?.email == "alice@example.com", "a new launch resumes Alice's session without asking for her password")
    check(try relaunched?.notebooks().count == 2, "and shows her notebooks")
    check(try Vault.info(at: auth.vaultPath(for: alice.email)).slots.map(\.kind) == [.password, .rawKey],
          "the session is a raw-key slot next to the password slot")
    try alice.logOut()
    check(try auth.currentSession() == nil, "after logging out, the login screen shows again")
    check(try Vault.info(at: auth.vaultPath(for: alice.email)).slots.map(\.kind) == [.password], "and the session slot is gone")
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
    try bob.logOut()

    section("A session times out")
    let shortLived = Auth(folder: folder, options: .walkthrough, sessionTimeout: 0.3)   // instead of 15 minutes
    alice = try shortLived.logIn(email: "alice@example.com", password: alicePassword)
    let oldKey = try StandInKeystore.loadKey(at: shortLived.sessionKeyPath)
    check(try alice.notebooks().count == 2, "Alice logs in again; the session lasts 0.3 s in this walk-through")
    check(oldKey != nil, "its key is in session.key (mode 0600)")
    Thread.sleep(forTimeInterval: 0.4)
    checkFails("after the timeout the app asks her to log in again", with: AuthError.sessionExpired) {
        _ = try alice.notebooks()
    }
    check(alice.isLocked, "the vault is locked: its keys are wiped from memory")
    if let oldKey {
        checkFails("the old session key no longer opens the vault", with: CofferError.wrongRawKey) {
            _ = try Vault.open(at: auth.vaultPath(for: "alice@example.com"), credential: .rawKey(oldKey))
        }
    }
    alice = try shortLived.logIn(email: "alice@example.com", password: alicePassword)
    Thread.sleep(forTimeInterval: 0.4)
    check(try shortLived.currentSession() == nil, "a launch after the timeout shows the login screen")
    check(try Vault.info(at: auth.vaultPath(for: alice.email)).slots.map(\.kind) == [.password], "and revokes the expired slot")

    section("Delete a notebook with its notes")
    alice = try auth.logIn(email: "alice@example.com", password: alicePassword)
    try alice.deleteNotebook(groceries)
    check(try alice.notebooks().map(\.name) == ["Travel"], "\"Groceries\" and its note are deleted in one transaction")
    check(try alice.notes(in: groceries).isEmpty, "no note of it is left")
    try alice.logOut()
}

exampleMain("Notebooks — seed 001: sign-up, sessions, notebooks and notes per user",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

// AccountsBook: seed 000, "SwiftCrashCourse" — an accounts book behind one login.
// Create a login (username + master password: this creates the vault), log in, log in
// with "Use Touch ID" (the vault's unlock, cached in an app-provided UnlockCache behind a
// presence check), list, add, edit and delete accounts, and delete the login. The seed's
// weather labels are left out.
//
//   swift run AccountsBook                  scripted walk-through, checks every step
//   swift run AccountsBook --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

func walkthrough(in folder: URL) throws {
    let files = AppFiles(folder: folder)
    let touch = ScriptedTouch()
    let touchID = TouchIDUnlockCache(confirmPresence: touch.answer)
    let screen = LoginScreen(files: files, options: .walkthrough, touchID: touchID)
    let master = try SecureBytes(copying: "correct horse battery staple")

    section("Create Login")
    check(screen.primaryButton == "Create Login", "no login yet: the screen offers \"Create Login\"")
    check(!LoginScreen.canSubmit(username: "alice", password: try SecureBytes(copying: "")),
          "the button stays disabled while a field is empty")
    var book = try screen.createLogin(username: "alice", password: master)
    step("created the login \"alice\": \(files.vault)")
    check(screen.primaryButton == "Login", "now the screen offers \"Login\" and \"Delete Login\"")
    checkFails("a second Create Login is refused", with: LoginError.loginExists) {
        _ = try screen.createLogin(username: "mallory", password: master)
    }

    section("Accounts: add, edit, delete")
    try book.add(name: "Bank", username: "alice.w", password: try SecureBytes(copying: "b4nk-Pa55"))
    let mail = try book.add(name: "Mail", username: "alice@example.com", password: try SecureBytes(copying: "m41l-pw"))
    try book.add(name: "Shop", username: "alice", password: try SecureBytes(copying: "sh0p-pw"))
    for account in try book.accounts() { step("\(account.name) | \(account.username) | \(try book.password(of: account))") }
    check(try book.accounts().map(\.name) == ["Bank", "Mail", "Shop"], "three accounts, listed by name")
    checkFails("the same account name and username cannot be added twice", with: AccountError.duplicate) {
        try book.add(name: "Bank", username: "alice.w", password: try SecureBytes(copying: "other"))
    }
    try book.edit(mail.id, name: "Mail", username: "alice@example.org", password: try SecureBytes(copying: "n3w-m41l-pw"))
    let edited = try book.accounts().first { $0.id == mail.id }
    let editedPassword = try edited.map(book.password(of:))
    check(edited?.username == "alice@example.org" && editedPassword == "n3w-m41l-pw", "edit saved the new username and password")
    let history = try book.vault.secrets(for: mail.id).passwordHistory
    check(history.first?.password.unsafeStringCopy() == "m41l-pw", "the vault kept the old password in the item's history")
    let shop = try book.accounts().first { $0.name == "Shop" }
    if let shop { try book.delete(shop.id) }
    check(try book.accounts().map(\.name) == ["Bank", "Mail"], "deleted \"Shop\"")
    check(![files.vault, files.vault + ".bak"].contains { file($0, contains: "alice") || file($0, contains: "b4nk-Pa55") },
          "the vault file holds no username or password in clear")

    section("Log out, log in")
    book.logOut()
    check(book.vault.isLocked, "logging out locks the vault (its keys are wiped)")
    checkFails("a wrong password is refused", with: LoginError.wrongCredentials) {
        _ = try screen.login(username: "alice", password: try SecureBytes(copying: "guess"))
    }
    checkFails("a wrong username is refused with the same message", with: LoginError.wrongCredentials) {
        _ = try screen.login(username: "bob", password: master)
    }
    book = try screen.login(username: "alice", password: master)
    check(try book.accounts().count == 2, "logged in with the password: two accounts")

    section("Use Touch ID (an app-provided UnlockCache behind a presence check)")
    checkFails("before it is enabled, Touch ID cannot log in", with: LoginError.touchIDNotSetUp) {
        _ = try screen.loginWithTouchID()
    }
    check(touchID.touchesAsked == 0, "and no touch was asked for")
    let filesBefore = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let enabled = try book.enableTouchID()
    step("enabled Touch ID: \(enabled)")
    let slotsOnDisk = try Vault.info(at: files.vault).slots.map(\.kind)
    check(book.vault.slots == [.password] && slotsOnDisk == [.password],
          "the vault has its password slot only: Touch ID keeps that slot's unlock, not a key of its own")
    check(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == filesBefore,
          "no file was written: the unlock is kept in guarded memory, as a Keychain item would be")
    check(touchID.touchesAsked == 0, "enabling asked for no touch")
    book.logOut()
    touch.next = false
    checkFails("a declined touch opens nothing", with: LoginError.touchIDNotConfirmed) {
        _ = try screen.loginWithTouchID()
    }
    check(touchID.touchesAsked == 1, "the touch was asked for once")
    touch.next = true
    book = try screen.loginWithTouchID()
    let count = try book.accounts().count
    check(book.username == "alice" && count == 2, "a confirmed touch opened the vault without the password: two accounts")
    check(touchID.touchesAsked == 2, "one touch for that login, too")
    book.logOut()
    touch.next = true
    book = try screen.loginWithTouchID()
    check(!book.vault.isLocked, "Touch ID stays enabled after logging out: it opens the vault again")
    book.logOut()
    check(try touchID.entries().map(\.vaultID) == [try Vault.info(at: files.vault).vaultID],
          "the cache holds one unlock, for this vault")

    section("Delete Login")
    checkFails("deleting needs the right password", with: LoginError.wrongCredentials) {
        try screen.deleteLogin(password: try SecureBytes(copying: "guess"), confirmed: true)
    }
    checkFails("and a confirmation", with: LoginError.notConfirmed) {
        try screen.deleteLogin(password: master, confirmed: false)
    }
    check(screen.hasLogin, "the login is still there")
    try screen.deleteLogin(password: master, confirmed: true)
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    check(left.isEmpty, "confirmed: the vault and its backup are gone (files left: \(left))")
    check(try touchID.entries().isEmpty, "and Touch ID's cached unlock is forgotten")
    check(screen.primaryButton == "Create Login", "the screen offers \"Create Login\" again")
    checkFails("and the old password opens nothing", with: LoginError.noLogin) {
        _ = try screen.login(username: "alice", password: master)
    }
    book = try screen.createLogin(username: "bob", password: try SecureBytes(copying: "bob's new master password"))
    book.logOut()
    let touches = touchID.touchesAsked
    checkFails("a new login at the same place has no Touch ID until it enables it", with: LoginError.touchIDNotSetUp) {
        _ = try screen.loginWithTouchID()
    }
    check(touchID.touchesAsked == touches, "and asks for no touch")
    try screen.deleteLogin(password: try SecureBytes(copying: "bob's new master password"), confirmed: true)
}

/// The walk-through's finger: the answer to the next Touch ID prompt (declined unless set).
final class ScriptedTouch: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false

    /// The answer to give to the next prompt; each prompt takes it, and the default is no.
    var next: Bool {
        get { lock.withLock { pending } }
        set { lock.withLock { pending = newValue } }
    }

    /// The presence check: narrates the prompt and gives the scripted answer.
    func answer(_ reason: String) -> Bool {
        let given = lock.withLock { () -> Bool in
            defer { pending = false }
            return pending
        }
        step("Touch ID: \"touch the sensor to \(reason)\": \(given ? "touched" : "cancelled")")
        return given
    }
}

exampleMain("AccountsBook — seed 000: an accounts book behind one login",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

// AccountsBook: seed 000, "SwiftCrashCourse" — an accounts book behind one login.
// Create a login (username + master password: this creates the vault), log in, log in
// with the device key ("Use Touch ID", a raw-key slot), list, add, edit and delete
// accounts, and delete the login. The seed's weather labels are left out.
//
//   swift run AccountsBook                  scripted walk-through, checks every step
//   swift run AccountsBook --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

func walkthrough(in folder: URL) throws {
    let files = AppFiles(folder: folder)
    let screen = LoginScreen(files: files, options: .walkthrough)
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

    section("Use Touch ID (a device key in a raw-key slot)")
    checkFails("before it is enabled, the device key cannot log in", with: LoginError.deviceKeyNotSetUp) {
        _ = try screen.loginWithDeviceKey()
    }
    try book.enableDeviceKey()
    let mode = (try FileManager.default.attributesOfItem(atPath: files.deviceKey)[.posixPermissions] as? Int) ?? 0
    check(mode == 0o600, "the device key is a 32-byte file with mode 0600 (standing in for the Keychain)")
    check(book.vault.slots == [.password, .rawKey], "the vault now has a password slot and a raw-key slot")
    book.logOut()
    book = try screen.loginWithDeviceKey()
    let count = try book.accounts().count
    check(book.username == "alice" && count == 2, "the device key opened the vault without the password")
    book.logOut()
    StandInKeystore.deleteKey(at: files.deviceKey)
    _ = try StandInKeystore.createKey(at: files.deviceKey)
    checkFails("a different device key is refused", with: LoginError.deviceKeyRejected) {
        _ = try screen.loginWithDeviceKey()
    }

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
    check(left.isEmpty, "confirmed: the vault, its backup and the device key are gone (files left: \(left))")
    check(screen.primaryButton == "Create Login", "the screen offers \"Create Login\" again")
    checkFails("and the old password opens nothing", with: LoginError.noLogin) {
        _ = try screen.login(username: "alice", password: master)
    }
}

exampleMain("AccountsBook — seed 000: an accounts book behind one login",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

// Secuure: seed 004 — a password manager: sign up, log in, stored accounts listed as
// <username>_<website>, add one with the password generator, show it, delete it.
//
//   swift run Secuure                  scripted walk-through, checks every step
//   swift run Secuure --interactive    menus (add --dir PATH to keep the data)
import Coffer
import ExampleSupport
import Foundation

func walkthrough(in folder: URL) throws {
    let app = Secuure(folder: folder, options: .walkthrough)
    let password = try SecureBytes(copying: "my secuure passphrase")
    func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

    section("Sign up, log in")
    checkFails("every field is needed", with: SecuureError.missingField) {
        try app.signUp(firstName: "", lastName: "Doe", username: "MyUsername", password: password)
    }
    checkFails("a short password is refused", with: SecuureError.passwordTooShort) {
        try app.signUp(firstName: "Jane", lastName: "Doe", username: "MyUsername", password: try secret("short"))
    }
    try app.signUp(firstName: "Jane", lastName: "Doe", username: "MyUsername", password: password)
    step("registration successful: back to the login view")
    checkFails("the username cannot be registered twice", with: SecuureError.usernameTaken) {
        try app.signUp(firstName: "John", lastName: "Roe", username: "myusername", password: try secret("another passphrase"))
    }
    checkFails("a wrong password is refused", with: SecuureError.loginFailed) {
        _ = try app.logIn(username: "MyUsername", password: try secret("my secure passphrase"))
    }
    var jane = try app.logIn(username: "MyUsername", password: password)
    check(try jane.profile() == Profile(firstName: "Jane", lastName: "Doe", username: "MyUsername"), "logged in as Jane Doe")
    check(try jane.rows().isEmpty, "no stored accounts yet")

    section("The password generator")
    let strong = try GeneratorSettings(length: 24, capitals: true, numbers: true, symbols: true).generate()
    let text = strong.unsafeStringCopy() ?? ""
    check(text.count == 24 && text.contains(where: \.isUppercase) && text.contains(where: \.isNumber)
          && text.contains(where: { $0.isPunctuation || $0.isSymbol }), "24 characters with capitals, numbers and symbols")
    let plain = try GeneratorSettings(length: 10, capitals: false, numbers: false, symbols: false).generate().unsafeStringCopy() ?? ""
    check(plain.count == 10 && plain.allSatisfy(\.isLowercase), "switches off: 10 lowercase letters (\(plain))")
    check((try? GeneratorSettings(length: 2).generate()) == nil, "a length below the generator's minimum is refused")

    section("Stored accounts")
    let facebook = try jane.add(username: "MyUsername", password: strong, website: "Facebook", notes: "recovery email: jane@example.com")
    try jane.add(username: "jdoe", password: try GeneratorSettings(length: 16).generate(), website: "github.com", notes: "")
    check(try jane.rows().map(\.title) == ["MyUsername_Facebook", "jdoe_github.com"], "rows show <username>_<website>")
    checkFails("the same username and website cannot be stored twice", with: SecuureError.accountExists) {
        try jane.add(username: "MyUsername", password: try secret("x"), website: "Facebook", notes: "")
    }
    let info = try jane.details(facebook)
    check(info.password == text && info.notes == "recovery email: jane@example.com", "the info view shows the password and notes")
    try jane.delete(facebook)
    check(try jane.rows().map(\.title) == ["jdoe_github.com"], "deleted MyUsername_Facebook")
    let path = app.vaultPath("MyUsername")
    check(!file(path, contains: "github.com") && !file(path, contains: "Jane"), "the vault file holds no website or name in clear")

    section("Sign out; another user")
    jane.signOut()
    check(jane.vault.isLocked, "signing out locks the vault")
    try app.signUp(firstName: "John", lastName: "Roe", username: "john.roe", password: try secret("johns passphrase"))
    let john = try app.logIn(username: "john.roe", password: try secret("johns passphrase"))
    check(try john.rows().isEmpty, "John sees none of Jane's accounts")
    checkFails("and his password does not open her vault", with: CofferError.wrongPassword) {
        _ = try Vault.open(at: path, password: try secret("johns passphrase"))
    }
    jane = try app.logIn(username: "myusername", password: password)
    check(try jane.rows().count == 1, "Jane logs in again (usernames ignore case): one account")
}

exampleMain("Secuure — seed 004: a password manager with a password generator",
            walkthrough: walkthrough(in:), interactive: interactive(in:))

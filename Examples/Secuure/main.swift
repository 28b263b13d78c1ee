// Secuure: seed 004 — a password manager: sign up, log in, stored accounts listed as
// <username>_<website>, add one with the password generator, show it, delete it.
//
// Each row has an "Edit" button (the add view, filled), "+" inserts a "New Account" row,
// and the generator view has "Cancel" as well as "Okay".
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

    section("Edit, New Account, the generator's Cancel")
    guard let facebookRow = try jane.rows().first(where: { $0.id == facebook }) else { throw SecuureError.missingField }
    var form = try jane.form(for: facebookRow)
    check(form.username == "MyUsername" && form.website == "Facebook" && form.password == strong,
          "Edit opens the add view filled from the row")
    var generator = PassView(settings: GeneratorSettings(length: 20, capitals: true, numbers: true, symbols: false))
    let discarded = try generator.generate()
    form.closeGenerator(generator, okay: false)
    check(form.password == strong && discarded != strong, "the generator's Cancel returns with the password as it was")
    let rotated = try generator.generate()
    form.closeGenerator(generator, okay: true)
    check(form.password == rotated, "Okay sets the generated password")
    form.username = "jane.doe"
    form.notes = "recovery email: jane@example.org"
    try jane.save(form, for: facebookRow)
    let edited = try jane.details(facebook)
    check(edited.username == "jane.doe" && edited.password == rotated.unsafeStringCopy() && edited.notes == "recovery email: jane@example.org",
          "Save changes the stored account (username, password, notes)")
    check(try jane.vault.secrets(for: facebook).passwordHistory.first?.password == strong, "the old password is in its history")
    check(try jane.rows().map(\.title) == ["jane.doe_Facebook", "jdoe_github.com"], "the row shows the new username")
    var clash = try jane.form(for: facebookRow)
    clash.username = "jdoe"
    clash.website = "github.com"
    checkFails("an edit cannot take another stored account's username and website", with: SecuureError.accountExists) {
        try jane.save(clash, for: facebookRow)
    }

    jane.insertNewAccountRow()
    let rows = try jane.rows()
    check(rows.map(\.title) == ["jane.doe_Facebook", "jdoe_github.com", "New Account"] && rows.last?.id == nil,
          "\"+\" inserts a \"New Account\" row, not saved yet")
    guard let newRow = rows.last else { throw SecuureError.missingField }
    var blank = try jane.form(for: newRow)
    check(blank.username.isEmpty && blank.password == nil, "its Edit opens an empty add view")
    checkFails("saving it needs a password", with: SecuureError.missingField) { try jane.save(blank, for: newRow) }
    blank.username = "MyUsername"
    blank.website = "zeta.example"
    blank.password = try secret("typed password")
    let saved = try jane.save(blank, for: newRow)
    check(try jane.rows().map(\.title) == ["jane.doe_Facebook", "jdoe_github.com", "MyUsername_zeta.example"],
          "Save stores it: the \"New Account\" row becomes MyUsername_zeta.example")
    try jane.delete(saved)
    try jane.delete(facebook)
    check(try jane.rows().map(\.title) == ["jdoe_github.com"], "deleted jane.doe_Facebook")
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

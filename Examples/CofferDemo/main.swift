// `make demo`: creates a real vault in a temporary folder and walks through the API.
import Coffer
import Foundation

func step(_ text: String) { print("• \(text)") }

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-demo-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let path = folder.appendingPathComponent("demo.coffer").path

do {
    let password = try SecureBytes(copying: "correct horse battery staple")
    // 64 MiB keeps the demo quick; real vaults default to 256 MiB and 3 iterations.
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 64 * 1024, iterations: 3, lanes: 1))
    let clock = ContinuousClock()
    var vault: Vault!
    let created = try clock.measure { vault = try Vault.create(at: path, password: password, options: options) }
    step("created \(path) (Argon2id 64 MiB, 3 passes: \(created.formatted(.units(allowed: [.milliseconds]))))")

    var github = ItemAttributes.genericPassword(service: "github.com", account: "octocat")
    github.label = "GitHub"
    github.tags = ["work"]
    try vault.add(github, secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2")))
    try vault.add(.internetPassword(server: "bank.example", account: "alice", protocol: "https"),
                  secrets: ItemSecrets(password: try SecureBytes(copying: "correct-bank-pw")))
    try vault.add(.secureNote(title: "Wi-Fi"), secrets: ItemSecrets(notes: try SecureBytes(copying: "SSID home, key 1234")))
    step("added 3 items; each is sealed on its own with XChaCha20-Poly1305")

    let info = try Vault.info(at: path)
    step("info without a password: format v\(info.formatVersion), \(info.entryCount) entries, slots \(info.slots.map(\.kind)), \(info.fileSize) bytes")

    let reopened = try Vault.open(at: path, password: password, options: options)
    for item in try reopened.items() {
        step("listed: \(item.summary)")
    }
    let secret = try reopened.password(matching: ItemQuery(service: "github.com"))
    step("read one secret on demand: it prints as \(secret), and holds \(secret.count) bytes")

    do {
        _ = try Vault.open(at: path, password: try SecureBytes(copying: "guess"))
    } catch {
        step("a wrong password gives a typed error: \(error)")
    }

    let change = try reopened.changePassword(from: password, to: try SecureBytes(copying: "a brand new passphrase"))
    step("changed the password in \(change.changed.count) key slot(s) and rotated the vault key: \(change.rotation?.records ?? 0) entries sealed again")
    let tokens = reopened.keychain(service: "com.example.demo")
    try tokens.set("token-123", key: "api")
    step("keychain-style view: api token stored, keys \(try tokens.allKeys())")
    reopened.lock()
    step("locked: keys wiped (isLocked = \(reopened.isLocked))")
} catch {
    print("demo failed: \(error)")
    exit(1)
}

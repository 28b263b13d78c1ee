import Foundation
import Coffer

// The Swift code of the DocC articles in Sources/Coffer/Coffer.docc, compiled here and run by
// DocsArticleTests. Each block between the markers is one ```swift block of the article its
// BEGIN line names, verbatim: DocsArticleTests fails when an article's Swift code is not here,
// or differs. Edit the code here, then copy it into the article.

// DOCC-SNIPPET-BEGIN GettingStarted.md
func gettingStarted(in directory: String) throws {
    let path = directory + "/personal.coffer"
    let password = try SecureBytes(copying: "correct horse battery staple")
    // Argon2id takes 256 MiB and about half a second by default; this example asks for less.
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))

    // Create: the file must not exist; the password opens its first key slot.
    let vault = try Vault.create(at: path, password: password, options: options)

    // Add: attributes are searchable without a password; secrets are sealed apart.
    var login = ItemAttributes.internetPassword(server: "example.com", account: "alice", protocol: "https")
    login.label = "Example"
    login.tags = ["work"]
    let item = try vault.add(login, secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2"),
                                                         notes: try SecureBytes(copying: "recovery codes in the safe")))

    // Find: queries read attributes only and decrypt no secret.
    let work = try vault.items(matching: ItemQuery(tag: "work"))
    let example = try vault.firstItem(matching: ItemQuery(account: "alice", server: "example.com"))
    print(work.count, example?.label ?? "none")                // 1 Example

    // Read: one item's secrets, decrypted on demand, in guarded memory.
    let secrets = try vault.secrets(for: item.id)
    print(secrets.password ?? "none")                          // <redacted>
    let matches = try secrets.password == SecureBytes(copying: "hunter2")   // constant time

    // Change: the old password goes into the item's history; the notes stay.
    try vault.update(item.id, secrets: ItemSecrets(password: try SecureBytes(copying: "a better one")))
    print(matches, try vault.secrets(for: item.id).passwordHistory.count)   // true 1

    // Lock: the keys are wiped; reads throw CofferError.vaultLocked until unlock(with:).
    vault.lock()
    try vault.unlock(with: .password(password))
    vault.lock()
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN KeySlotsAndCredentials.md
func keySlotsAndCredentials(in directory: String) throws {
    let path = directory + "/slots.coffer"
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))
    let password = try SecureBytes(copying: "correct horse battery staple")

    // A password slot, plus a key-file slot that opens the vault on its own.
    let keyFile = try KeyFile.generate(at: directory + "/vault.key")   // 64 random bytes, mode 0600
    let vault = try Vault.create(at: path, credential: .password(password),
                                 additional: [.keyFile(keyFile)], options: options)

    // A raw-key slot: 32 bytes an app keeps in a platform keystore (no key derivation).
    let deviceKey = try SecureBytes.random(count: 32)
    try vault.addKeySlot(.rawKey(deviceKey))
    print(vault.slots)                                         // [password, key-file, raw-key]

    // Which slots a file has needs no password.
    let info = try Vault.info(at: path)
    if info.slots.contains(where: { $0.kind == .rawKey }) {
        _ = try Vault.open(at: path, credential: .rawKey(deviceKey), options: options)
    }

    // What a person gives: with a key file, the file alone comes first when a slot takes it,
    // and the password is asked for only when a slot needs it (here: never).
    let opened = try Vault.open(at: path, keyFile: keyFile, options: options) { password }
    print(opened.slotKind)                                     // key-file

    // Change the password in every slot it opens, then drop the device key; each rotates the key.
    try vault.changePassword(from: password, to: try SecureBytes(copying: "a new, longer passphrase"))
    try vault.removeKeySlot(.rawKey(deviceKey))
    let oldPasswordOpens = (try? Vault.open(at: path, password: password, options: options)) != nil
    print(oldPasswordOpens)                                    // false
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN TransactionsAndProcesses.md
func transferBalance(in vault: Vault, from: ItemID, to: ItemID, amount: Int) throws {
    try vault.transaction { tx in
        // Reads inside the transaction see its own changes; nothing is saved until it returns.
        let balance = { (id: ItemID) throws -> Int in
            Int(try tx.secrets(for: id).notes?.unsafeStringCopy() ?? "0") ?? 0
        }
        let source = try balance(from)
        guard source >= amount else { throw CofferError.invalidArgument("insufficient funds") }
        let target = try balance(to)
        try tx.update(from) { _, secrets in secrets.notes = try SecureBytes(copying: String(source - amount)) }
        try tx.update(to) { _, secrets in secrets.notes = try SecureBytes(copying: String(target + amount)) }
    }   // one atomic save of both items, or none if the body threw
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN TransactionsAndProcesses.md
func twoProcesses(path: String, password: SecureBytes) throws {
    var options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))
    options.lockTimeout = .seconds(2)                   // how long a save waits for another writer

    // Two handles on one file stand for two processes.
    let first = try Vault.open(at: path, password: password, options: options)
    let second = try Vault.open(at: path, password: password, options: options)
    try first.add(.genericPassword(service: "mail", account: "alice"))
    try second.add(.genericPassword(service: "chat", account: "alice"))   // merged with first's save

    _ = try first.refresh()                             // re-reads what second saved
    print(try first.items().count)                      // 2

    do {
        try first.add(.genericPassword(service: "mail", account: "alice"))
    } catch {
        switch error.kind {                             // a typed throw: error is a CofferError
        case .duplicateItem: print("one item per service and account")
        case .lockTimeout: print("another process held the write lock too long; nothing was saved")
        default: throw error
        }
    }
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN SecretsInMemory.md
func secretsInMemory() throws {
    // Guarded memory: locked in RAM, out of core dumps, between guard pages, wiped on release.
    let key = try SecureBytes.random(count: 32)
    print(key, "\(key)")                                // <redacted> <redacted>

    // The bytes are reachable only inside a closure; do not let the pointer escape.
    let firstByte = key.withUnsafeBytes { bytes in bytes.first ?? 0 }

    // Built in place, with no ordinary-memory copy (a file or a terminal read fills it).
    let filled = try SecureBytes(count: 4) { buffer in
        for index in buffer.indices { buffer[index] = firstByte }
    }
    print(filled == key)                                // false; == runs in constant time

    // The String conveniences copy into ordinary memory, which cannot be wiped.
    let typed = try SecureBytes(copying: "hunter2")     // the literal stays in the binary
    let copy = typed.unsafeStringCopy()                 // a String: stays until the memory is reused
    print(copy?.count ?? 0)                             // 7

    // An ordinary array that had to hold a secret: wipe it when done.
    var line: [UInt8] = Array("hunter2".utf8)
    defer { SecureBytes.wipe(&line) }
    let fromLine = try SecureBytes(copying: line)
    print(fromLine == typed)                            // true
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN ImportAndExport.md
func importAndExport(vault: Vault, bitwardenExport: String, otherVault: Vault) throws {
    // One transaction: a malformed file imports nothing, and the error names the line.
    let dryRun = try vault.importItems(fromFile: bitwardenExport, format: .bitwardenJSON, dryRun: true)
    print(dryRun.imported, dryRun.unreadable.map(\.reason))
    let report = try vault.importItems(fromFile: bitwardenExport, format: .bitwardenJSON)
    print(report.imported, report.skippedDuplicates.count, report.warnings.count)

    // Exports are plaintext, returned in guarded memory; JSON keeps every field.
    let json = try vault.exportItems(format: .json)
    let again = try otherVault.importItems(from: json, format: .cofferJSON)
    print(again.imported == report.imported)

    // One-time passwords: the secret field `otp` holds an otpauth:// URI.
    let item = try vault.add(.genericPassword(service: "vpn", account: "alice"))
    try vault.update(item.id) { _, secrets in
        try secrets.setTOTP(try TOTP(parsing: "otpauth://totp/VPN:alice?secret=JBSWY3DPEHPK3PXP&issuer=VPN"))
    }
    if let totp = try vault.secrets(for: item.id).totp() {
        print(try totp.code(at: Date()), totp.period)   // six digits, 30
    }
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN SeveralDevices.md
func mergeTwoDevices(laptopPath: String, phoneCopyPath: String, password: SecureBytes) throws {
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))
    let laptop = try Vault.open(at: laptopPath, password: password, options: options)
    if let warning = laptop.rollback {
        print(warning)                      // an older file than this device saw: saves refuse
        return                              // until laptop.acceptRollback() or a merge heals it
    }

    // The other copy needs no password of its own: replicas share the vault key.
    let report = try laptop.merge(contentsOf: phoneCopyPath)      // saved atomically
    print(report.added, report.updated, report.deleted, report.conflicted.count)

    // The same field edited on both: the newer edit won; the other value waits here.
    for item in try laptop.itemsWithConflicts() {
        for conflict in try laptop.conflicts(for: item.id) {
            print(item.displayName, conflict.field, conflict.date, conflict.isRemoval)
        }
        try laptop.resolveConflicts(for: item.id)   // reviewed: drop the losing values
    }
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN SeveralDevices.md
func mergeConflictCopies(vaultPath: String, keyFilePath: String) throws -> Int {
    let vault = try Vault.open(at: vaultPath, credential: .keyFile(try KeyFile(contentsOf: keyFilePath)))
    var merged = 0
    for copy in try Vault.conflictCopies(of: vaultPath) {     // Syncthing, Dropbox, Nextcloud names
        guard let noted = FileVersion(of: copy.path) else { continue }   // gone meanwhile
        do {
            try vault.merge(contentsOf: copy.path)                 // checked, saved atomically
        } catch {
            guard error.kind == .differentVault || error.kind == .tampered else { throw error }
            print("\(copy.path) (\(copy.service)) is another vault or damaged; left alone")
            continue
        }
        // Only after the merge saved, and only if the service has not rewritten it since.
        _ = try Vault.putAwayMergedCopy(at: copy.path, unchangedSince: noted, .delete)
        merged += 1
    }
    return merged
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN UnlockOnce.md
func openWithCachedUnlock(path: String, askForPassword: () throws -> SecureBytes) throws -> Vault {
    let cache = KernelKeyring()
    // No password and no key derivation while a cached unlock lasts; nil when there is
    // none, it expired, or it no longer opens this file (it is then forgotten).
    if let vault = try Vault.open(at: path, unlockCache: cache) {
        return vault
    }
    let vault = try Vault.open(at: path, password: try askForPassword())
    try vault.cacheUnlock(in: cache, for: .seconds(15 * 60))    // like `coffer unlock --for 15m`
    return vault
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN UnlockOnce.md
func listAndLock(path: String) throws {
    let cache = KernelKeyring()
    for entry in try cache.entries() {                  // like `coffer status`: no key is read
        print(entry.path, entry.slotKind, entry.expires)
    }
    try cache.removeUnlocks(forVaultAt: path)           // like `coffer lock PATH`
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN FormatErrors.md
func openReportingDamage(at path: String, password: SecureBytes) throws -> Vault? {
    do {
        return try Vault.open(at: path, password: password)
    } catch {
        switch error.kind {
        case .wrongPassword: return nil   // ask again
        case .tampered where error.tamperedPart == .header: print("the header was changed")
        case .truncated, .malformed: print("damaged file: \(error)")
        default: break
        }
        throw error
    }
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN RevokingAccess.md
func revokingAccess(in directory: String) throws {
    let path = directory + "/shared.coffer"
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))
    let oldPassword = try SecureBytes(copying: "a password someone else saw")
    let vault = try Vault.create(at: path, password: oldPassword, options: options)
    try vault.add(.genericPassword(service: "bank", account: "me"))

    // Someone who knew the old password kept a copy of the file.
    try FileManager.default.copyItem(atPath: path, toPath: directory + "/old-copy.coffer")

    // A new password in every slot the old one opens, and a new vault key, in one save.
    let newPassword = try SecureBytes(copying: "a new passphrase nobody has seen")
    let change = try vault.changePassword(from: oldPassword, to: newPassword)
    print(change.changed, change.rotated)                      // [password] true

    // Require a key file as well: the password alone no longer opens the vault.
    let keyFile = try KeyFile.generate(at: directory + "/vault.key")
    try vault.requireKeyFile(keyFile, password: newPassword)
    print(try Vault.info(at: path).keyFileRequired)            // true

    // Saved after the rotation: the old copy and the old password cannot read it.
    try vault.add(.genericPassword(service: "new bank", account: "me"))
    let oldCopy = try Vault.open(at: directory + "/old-copy.coffer", password: oldPassword, options: options)
    print(try oldCopy.items().compactMap(\.service))           // ["bank"]: what it held, nothing newer
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN RevokingAccess.md
func reportingSlots(_ vault: Vault, copy: String) throws {
    let report = try vault.merge(contentsOf: copy)
    if !report.keySlots.added.isEmpty {
        print("the copy added \(report.keySlots.added) to the vault")   // e.g. [password]
    }
    let preview = try vault.backupChanges()
    print(preview.keySlots.added)   // slots only the backup has: a restore leaves them out
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN RevokingAccess.md
func mergeOfflineLaptop(_ vault: Vault, laptopCopy: String) throws {
    let report = try vault.merge(contentsOf: laptopCopy)      // edits from before the change arrive
    for item in report.earlierKey.held { print("held:", item.name) }
    // Once you know the copy is your own device's:
    try vault.merge(contentsOf: laptopCopy, options: MergeOptions(acceptEarlierKey: true))
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN DeveloperTools.md
func developerTools(vault: Vault, keyFilePath: String) throws -> [UInt8] {
    // A login for a URL and user, by the rules of a pasted URL: what a git credential helper answers.
    let server = try ServerAddress(parsing: "https://github.com")
    if let login = try vault.credentials(for: server, account: "octocat").first {
        print(login.displayName)
    }

    // An SSH key kept in the vault: read from an OpenSSH file, checked, stored as a secure note.
    let file = try SecureBytes.readSecretFile(at: keyFilePath, maximumSize: SSHPrivateKey.maximumFileSize)
    let key = try SSHPrivateKey(openSSHFile: file)
    try vault.addSSHKey(key, file: file, label: "laptop")
    print(key.publicKey.fingerprint)                   // SHA256:…, as ssh-keygen -l prints it

    // An SSH agent on the vault's keys: each request opens the vault through `openVault`,
    // here the open vault; an app passes its cached unlock, so locking stops the agent.
    let agent = SSHAgent { vault }
    return agent.reply(to: [11])                       // SSH_AGENT_IDENTITIES_ANSWER, one key
}
// DOCC-SNIPPET-END

// DOCC-SNIPPET-BEGIN SharingAVault.md
func sharingAVault(in directory: String, bobsPublicKey: String, bobsKeyPath: String) throws {
    let path = directory + "/team.coffer"
    let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8 * 1024, iterations: 3, lanes: 1))
    let vault = try Vault.create(at: path, password: try SecureBytes(copying: "alice's passphrase"), options: options)
    try vault.add(.genericPassword(service: "router", account: "admin"),
                  secrets: ItemSecrets(password: try SecureBytes(copying: "r0uter")))

    // Share with Bob's SSH key (a line of his ~/.ssh/id_ed25519.pub), or an age1… recipient.
    let bob = try VaultRecipient(bobsPublicKey)
    try vault.addRecipient(bob, label: "bob")
    print(vault.recipients.map { "\($0.label) \($0.recipient.fingerprint)" })   // ["bob SHA256:…"]

    // Bob opens the same file with his private key: no password, no KDF.
    let identity = try VaultIdentity(contentsOf: bobsKeyPath)
    let asBob = try Vault.open(at: path, credential: .identity(identity), options: options)
    print(try asBob.items().compactMap(\.service))                              // ["router"]

    // Take it back: the slot goes and the vault key rotates, so Bob's key, and any copy
    // of the file he kept, read nothing saved from now on.
    let change = try vault.removeRecipient(labeled: "bob")
    print(change.removed, change.rotated)                                        // [ssh-recipient] true
    try vault.add(.genericPassword(service: "new router", account: "admin"))
}
// DOCC-SNIPPET-END

// The accounts list and add/edit views of seed 000, over an open vault.
import Coffer
import ExampleSupport
import Foundation

/// One row: account name and username. The password, which the seed's table cell also
/// shows, is decrypted only when a row is shown (``AccountsList/password(of:)``).
struct Account: Equatable {
    let id: ItemID
    var name: String
    var username: String
}

enum AccountError: Error, Equatable, CustomStringConvertible {
    case emptyField, duplicate

    var description: String {
        switch self {
        case .emptyField: return "An account needs a name, a username and a password."
        case .duplicate: return "That account name and username are already saved."
        }
    }
}

final class AccountsList {
    let vault: Vault
    let username: String
    private let touchID: TouchIDUnlockCache
    private static let tag = "account"

    /// How long "Use Touch ID" works after enabling it; then the password is asked again.
    static let touchIDLifetime: Duration = .seconds(7 * 24 * 60 * 60)

    init(vault: Vault, username: String, touchID: TouchIDUnlockCache) {
        self.vault = vault
        self.username = username
        self.touchID = touchID
    }

    /// Every account, sorted by name (the vault lists by service, then account). Decrypts no password.
    func accounts() throws -> [Account] {
        try vault.items(matching: ItemQuery(kind: .genericPassword, tag: Self.tag)).map { item in
            Account(id: item.id, name: item.service ?? "", username: item.account ?? "")
        }
    }

    /// The account's password, decrypted on demand, as the table cell shows it: a `String`
    /// copy for display, which cannot be wiped (the vault keeps the secret in guarded memory).
    func password(of account: Account) throws -> String {
        try vault.secrets(for: account.id).password?.unsafeStringCopy() ?? ""
    }

    @discardableResult
    func add(name: String, username: String, password: SecureBytes) throws -> Account {
        guard !name.isEmpty, !username.isEmpty, password.count > 0 else { throw AccountError.emptyField }
        let item: Item
        do {
            item = try vault.add(attributes(name: name, username: username), secrets: ItemSecrets(password: password))
        } catch CofferError.duplicateItem {
            throw AccountError.duplicate
        } catch {
            throw error   // written out: Swift 6.3 crashes compiling the implicit rethrow
        }
        return Account(id: item.id, name: name, username: username)
    }

    /// Saves the edit view: the vault keeps the creation date and the old password in the item's history.
    func edit(_ id: ItemID, name: String, username: String, password: SecureBytes) throws {
        guard !name.isEmpty, !username.isEmpty, password.count > 0 else { throw AccountError.emptyField }
        do {
            try vault.update(id, attributes: attributes(name: name, username: username), secrets: ItemSecrets(password: password))
        } catch CofferError.duplicateItem {
            throw AccountError.duplicate
        } catch {
            throw error
        }
    }

    func delete(_ id: ItemID) throws {
        try vault.delete(id)
    }

    /// "Enable Touch ID": caches this vault's unlock behind the touch, so "Use Touch ID"
    /// opens it without the password (for ``touchIDLifetime``). The vault file is unchanged.
    @discardableResult
    func enableTouchID() throws -> CachedUnlock {
        try vault.cacheUnlock(in: touchID, for: Self.touchIDLifetime)
    }

    /// Wipes the vault's keys from memory; the next user must log in again.
    func logOut() { vault.lock() }

    private func attributes(name: String, username: String) -> ItemAttributes {
        var attributes = ItemAttributes.genericPassword(service: name, account: username)
        attributes.label = name
        attributes.tags = [Self.tag]
        return attributes
    }
}

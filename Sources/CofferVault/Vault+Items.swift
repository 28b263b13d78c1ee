import CofferCrypto
import CofferFormat
import CofferStore
/// Item operations. Each change below is saved at once, atomically; use
/// ``Vault/transaction(_:)`` to save several together.
extension Vault {
    /// Items matching `query` (attributes only; no secret is decrypted), ordered by label
    /// (else service, else server), then account, then id; texts compare by Unicode code
    /// points after canonical composition (NFC), so equivalent spellings sort together.
    ///
    /// ```swift
    /// let logins = try vault.items(matching: ItemQuery(kind: .internetPassword, limit: 50))
    /// ```
    public func items(matching query: ItemQuery = .all) throws(CofferError) -> [Item] {
        try read { (tx) throws(CofferError) in try tx.items(matching: query) }
    }

    /// The first item matching `query`, or nil.
    ///
    /// ```swift
    /// if let item = try vault.firstItem(matching: ItemQuery(service: "github.com", account: "octocat")) { … }
    /// ```
    public func firstItem(matching query: ItemQuery) throws(CofferError) -> Item? {
        try read { (tx) throws(CofferError) in try tx.firstItem(matching: query) }
    }

    /// The item with `id`; throws ``CofferError/itemNotFound``.
    public func item(_ id: ItemID) throws(CofferError) -> Item {
        try read { (tx) throws(CofferError) in try tx.item(id) }
    }

    /// Decrypts one item's secrets.
    ///
    /// ```swift
    /// let secrets = try vault.secrets(for: item.id)
    /// secrets.password?.withUnsafeBytes { bytes in /* use */ }
    /// ```
    public func secrets(for id: ItemID) throws(CofferError) -> ItemSecrets {
        try read { (tx) throws(CofferError) in try tx.secrets(for: id) }
    }

    /// Adds an item; throws ``CofferError/duplicateItem`` if its unique key is taken.
    ///
    /// ```swift
    /// try vault.add(.genericPassword(service: "github.com", account: "octocat"),
    ///               secrets: ItemSecrets(password: try SecureBytes(copying: "hunter2")))
    /// ```
    @discardableResult
    public func add(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try write { (tx) throws(CofferError) in try tx.add(attributes, secrets: secrets) }
    }

    /// Adds the item, or updates the one with the same unique key: its attributes replaced,
    /// its secrets merged as ``update(_:attributes:secrets:)`` does (nothing else is dropped).
    ///
    /// ```swift
    /// try vault.upsert(.genericPassword(service: "api", account: "ci"), secrets: ItemSecrets(password: token))
    /// ```
    @discardableResult
    public func upsert(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try write { (tx) throws(CofferError) in try tx.upsert(attributes, secrets: secrets) }
    }

    /// Replaces an item's attributes (`nil` keeps them) and puts in the parts of its secrets
    /// that `secrets` sets, keeping the rest (``ItemSecrets/merging(_:)``): changing the
    /// password keeps the notes, the one-time-password seed, other secret fields and
    /// attachments. The old password goes into the history.
    ///
    /// ```swift
    /// try vault.update(item.id, secrets: ItemSecrets(password: newPassword))   // notes, TOTP kept
    /// ```
    @discardableResult
    public func update(_ id: ItemID, attributes: ItemAttributes? = nil, secrets: ItemSecrets? = nil) throws(CofferError) -> Item {
        try write { (tx) throws(CofferError) in try tx.update(id, attributes: attributes, secrets: secrets) }
    }

    /// Replaces an item's whole secret part: whatever `secrets` does not hold (notes,
    /// secret fields, attachments) is gone. To change only some parts, use
    /// ``update(_:attributes:secrets:)``.
    ///
    /// ```swift
    /// try vault.replaceSecrets(of: item.id, with: ItemSecrets(password: newPassword))   // drops the rest
    /// ```
    @discardableResult
    public func replaceSecrets(of id: ItemID, with secrets: ItemSecrets) throws(CofferError) -> Item {
        try write { (tx) throws(CofferError) in try tx.replaceSecrets(of: id, with: secrets) }
    }

    /// Changes an item in place and saves it.
    ///
    /// ```swift
    /// try vault.update(item.id) { attributes, secrets in attributes.isFavorite = true }
    /// ```
    @discardableResult
    public func update(_ id: ItemID, _ body: (inout ItemAttributes, inout ItemSecrets) throws -> Void) throws -> Item {
        try transaction { tx in try tx.update(id, body) }
    }

    /// Deletes an item; throws ``CofferError/itemNotFound`` if there is none.
    ///
    /// ```swift
    /// try vault.delete(item.id)
    /// ```
    public func delete(_ id: ItemID) throws(CofferError) {
        try write { (tx) throws(CofferError) in try tx.delete(id) }
    }

    /// The password of the first item matching `query`; throws ``CofferError/itemNotFound``.
    ///
    /// ```swift
    /// let password = try vault.password(matching: ItemQuery(service: "github.com", account: "octocat"))
    /// ```
    public func password(matching query: ItemQuery) throws(CofferError) -> SecureBytes {
        try read { (tx) throws(CofferError) in
            guard let item = try tx.firstItem(matching: query), let password = try tx.secrets(for: item.id).password else {
                throw .itemNotFound
            }
            return password
        }
    }
}

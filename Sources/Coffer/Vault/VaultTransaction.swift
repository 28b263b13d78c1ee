import Foundation

/// The changes of one ``Vault/transaction(_:)``: read and write items and key slots;
/// everything is saved together when the transaction's body returns.
///
/// Do not keep a transaction after its body returns; its methods then throw
/// ``CofferError/invalidArgument(_:)``.
///
/// ```swift
/// try vault.transaction { tx in
///     let a = try tx.add(.genericPassword(service: "bank", account: "alice"), secrets: ItemSecrets())
///     try tx.delete(oldItem.id)
/// }
/// ```
public final class VaultTransaction {
    private unowned let vault: Vault
    private let keys: VaultKeys
    /// The vault as this transaction sees it: the base plus its own changes.
    private var view: VaultSnapshot
    private(set) var changes = Changeset()
    private var isOpen = true

    init(vault: Vault, keys: VaultKeys, base: VaultSnapshot) {
        self.vault = vault
        self.keys = keys
        self.view = base
    }

    func close() { isOpen = false }

    private func ensureOpen() throws(CofferError) {
        guard isOpen else { throw .invalidArgument("the transaction has ended") }
    }

    // MARK: Reading

    /// Items matching `query`, ordered by label, service or server, then account. Decrypts no secret.
    public func items(matching query: ItemQuery = .all) throws(CofferError) -> [Item] {
        try ensureOpen()
        var found: [Item] = []
        for (id, attributes) in view.attributes where query.matches(attributes) {
            found.append(Item(id: id, revision: view.records[id]?.revision ?? 0, attributes: attributes))
        }
        found.sort(by: Self.displayOrder)
        if let limit = query.limit, limit >= 0, found.count > limit { found.removeSubrange(limit...) }
        return found
    }

    /// The first item matching `query`, or nil.
    public func firstItem(matching query: ItemQuery) throws(CofferError) -> Item? {
        var limited = query
        limited.limit = nil
        return try items(matching: limited).first
    }

    /// The item with `id`; throws ``CofferError/itemNotFound``.
    public func item(_ id: ItemID) throws(CofferError) -> Item {
        try ensureOpen()
        guard let attributes = view.attributes[id], let record = view.records[id] else { throw .itemNotFound }
        return Item(id: id, revision: record.revision, attributes: attributes)
    }

    /// Decrypts the secret part of one item.
    public func secrets(for id: ItemID) throws(CofferError) -> ItemSecrets {
        try ensureOpen()
        guard let record = view.records[id] else { throw .itemNotFound }
        return try record.openSecrets(vaultID: view.vaultID, keys: keys)
    }

    // MARK: Writing items

    /// Adds a new item. Throws ``CofferError/duplicateItem`` if its unique key is taken.
    @discardableResult
    public func add(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try ensureOpen()
        try attributes.validate()
        try view.buildIndexIfNeeded()
        if let key = attributes.uniquenessKey, view.owner(of: key) != nil { throw .duplicateItem }
        var id = try ItemID(validated: vault.entropy.bytes(FormatV1.entryIDLength))
        while view.records[id] != nil { id = try ItemID(validated: vault.entropy.bytes(FormatV1.entryIDLength)) }
        return try stage(id: id, revision: 1, attributes: attributes, secrets: secrets)
    }

    /// Adds the item, or replaces the attributes and secrets of the item with the same unique key
    /// (keeping its creation date and recording a changed password in its history).
    @discardableResult
    public func upsert(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try ensureOpen()
        try attributes.validate()
        try view.buildIndexIfNeeded()
        guard let key = attributes.uniquenessKey, let existing = view.owner(of: key) else {
            return try add(attributes, secrets: secrets)
        }
        return try update(existing, attributes: attributes, secrets: secrets)
    }

    /// Replaces an item's attributes and/or secrets; `nil` keeps the current ones.
    /// A changed password goes into the password history.
    @discardableResult
    public func update(_ id: ItemID, attributes: ItemAttributes? = nil, secrets: ItemSecrets? = nil) throws(CofferError) -> Item {
        try ensureOpen()
        guard let old = view.attributes[id], let record = view.records[id] else { throw .itemNotFound }
        var newAttributes = attributes ?? old
        try newAttributes.validate()
        newAttributes.created = old.created
        newAttributes.modified = Date().roundedToMilliseconds
        if attributes != nil, newAttributes.preservedFields.isEmpty { newAttributes.preservedFields = old.preservedFields }
        let oldSecrets = try record.openSecrets(vaultID: view.vaultID, keys: keys)
        var newSecrets = secrets ?? oldSecrets
        if secrets != nil {
            if newSecrets.preservedFields.isEmpty { newSecrets.preservedFields = oldSecrets.preservedFields }
            recordHistory(old: oldSecrets, into: &newSecrets)
        }
        return try stage(id: id, revision: record.revision + 1, attributes: newAttributes, secrets: newSecrets)
    }

    /// Changes an item in place.
    ///
    /// ```swift
    /// try tx.update(item.id) { attributes, secrets in
    ///     attributes.tags.append("rotated")
    ///     secrets.password = newPassword
    /// }
    /// ```
    @discardableResult
    public func update(_ id: ItemID, _ body: (inout ItemAttributes, inout ItemSecrets) throws -> Void) throws -> Item {
        try ensureOpen()
        guard let old = view.attributes[id], let record = view.records[id] else { throw CofferError.itemNotFound }
        var attributes = old
        let oldSecrets = try record.openSecrets(vaultID: view.vaultID, keys: keys)
        var secrets = oldSecrets
        try body(&attributes, &secrets)
        try attributes.validate()
        attributes.created = old.created
        attributes.modified = Date().roundedToMilliseconds
        recordHistory(old: oldSecrets, into: &secrets)
        return try stage(id: id, revision: record.revision + 1, attributes: attributes, secrets: secrets)
    }

    /// Deletes an item; throws ``CofferError/itemNotFound`` if there is none.
    public func delete(_ id: ItemID) throws(CofferError) {
        try ensureOpen()
        guard view.records[id] != nil else { throw .itemNotFound }
        changes.record(id, .delete)
        try view.apply(id, .delete)
    }

    private func stage(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets) throws(CofferError) -> Item {
        let record = try EntryRecord.seal(id: id, revision: revision, attributes: attributes, secrets: secrets,
                                          vaultID: view.vaultID, keys: keys, entropy: vault.entropy)
        try view.apply(id, .put(record, attributes))
        changes.record(id, .put(record, attributes))
        return Item(id: id, revision: revision, attributes: attributes)
    }

    private func recordHistory(old: ItemSecrets, into new: inout ItemSecrets) {
        guard let previous = old.password, new.password != previous else { return }
        // Keep history the caller edited explicitly; otherwise carry the old one forward.
        if new.passwordHistory == old.passwordHistory || new.passwordHistory.isEmpty {
            new.passwordHistory = [PasswordHistoryEntry(password: previous, replaced: Date())] + old.passwordHistory
        }
        let limit = max(0, vault.options.passwordHistoryLimit)
        if new.passwordHistory.count > limit { new.passwordHistory.removeSubrange(limit...) }
    }

    // MARK: Key slots

    /// Adds a key slot for `credential`. Password and key-file slots use the KDF
    /// parameters of the vault's existing slots (or the options' when it has none).
    public func addKeySlot(_ credential: VaultCredential) throws(CofferError) {
        try ensureOpen()
        var header = view.header
        guard header.slots.count < FormatV1.maxSlots else { throw .slotUnavailable("a vault has at most \(FormatV1.maxSlots) key slots") }
        let kdf = header.slots.compactMap(\.kdf).first ?? vault.options.kdf
        header.slots.append(try Keyslot.make(for: credential.slotKey, vaultKey: keys.vaultKey, vaultID: header.vaultID,
                                             kdf: kdf, entropy: vault.entropy))
        setHeader(header)
    }

    /// Removes every slot that `credential` opens. The last slot cannot be removed.
    public func removeKeySlot(_ credential: VaultCredential) throws(CofferError) {
        try ensureOpen()
        var header = view.header
        let key = credential.slotKey
        var kept: [Keyslot] = []
        for slot in header.slots {
            if try slot.unwrap(with: key, vaultID: header.vaultID) == nil { kept.append(slot) }
        }
        guard kept.count < header.slots.count else { throw key.wrongKeyError }
        guard !kept.isEmpty else { throw .slotUnavailable("cannot remove the last key slot") }
        header.slots = kept
        setHeader(header)
    }

    /// Removes the slot at `index` (as in ``Vault/slots``) without needing its key:
    /// for a key that was lost, e.g. a device key or an expired session key.
    /// The last slot cannot be removed.
    public func removeKeySlot(at index: Int) throws(CofferError) {
        try ensureOpen()
        var header = view.header
        guard header.slots.indices.contains(index) else { throw .invalidArgument("no key slot \(index)") }
        guard header.slots.count > 1 else { throw .slotUnavailable("cannot remove the last key slot") }
        header.slots.remove(at: index)
        setHeader(header)
    }

    /// Replaces the password slot(s) with one for `newPassword`. Entries are not re-encrypted.
    /// With `keyFile`, replaces the password-and-key-file slot(s) instead.
    public func changePassword(to newPassword: SecureBytes, keyFile: KeyFile? = nil) throws(CofferError) {
        try ensureOpen()
        let kind: KeySlotKind = keyFile == nil ? .password : .passwordAndKeyFile
        var header = view.header
        guard let first = header.slots.firstIndex(where: { $0.kind == kind }) else {
            throw .slotUnavailable("the vault has no \(kind) slot")
        }
        let credential: VaultCredential = keyFile.map { .passwordAndKeyFile(newPassword, $0) } ?? .password(newPassword)
        let kdf = header.slots[first].kdf ?? vault.options.kdf
        let slot = try Keyslot.make(for: credential.slotKey, vaultKey: keys.vaultKey, vaultID: header.vaultID,
                                    kdf: kdf, entropy: vault.entropy)
        header.slots[first] = slot
        header.slots = header.slots.enumerated().filter { $0.offset == first || $0.element.kind != kind }.map(\.element)
        setHeader(header)
    }

    private func setHeader(_ header: VaultHeader) {
        view.header = header
        changes.header = header
    }

    static func displayOrder(_ a: Item, _ b: Item) -> Bool {
        let ka = (a.label ?? a.service ?? a.server ?? "", a.account ?? "")
        let kb = (b.label ?? b.service ?? b.server ?? "", b.account ?? "")
        if ka != kb { return ka < kb }
        return a.id < b.id
    }
}

import CofferCrypto
import CofferFormat
import CofferStore
import Foundation

/// The changes of one ``Vault/transaction(_:)``: read and write items and key slots;
/// everything is saved together when the transaction's body returns.
///
/// Do not keep a transaction after its body returns; its methods then throw
/// ``CofferError/Kind/transactionEnded``.
///
/// ```swift
/// try vault.transaction { tx in
///     let a = try tx.add(.genericPassword(service: "bank", account: "alice"), secrets: ItemSecrets())
///     try tx.delete(oldItem.id)
/// }
/// ```
public final class VaultTransaction {
    unowned let vault: Vault
    let keys: EpochKeys
    /// Opens the items this transaction reads and seals those it writes.
    private let sealer: ItemSealer
    /// The vault when the transaction began. Never changed: reads see `changes` over
    /// it, so a write does not copy a large vault's dictionaries.
    private var base: VaultSnapshot
    /// `base`'s live entries, every overview open, in the order they were made (row order),
    /// when the vault opened them just before this transaction (``Vault/read(openingEveryOverview:_:)``):
    /// a listing takes them as they are rather than going over the snapshot's dictionaries again.
    private var openedInRowOrder: [SnapshotEntry]?
    private(set) var changes = Changeset()
    /// The holders of the unique keys `changes` took or freed (nil: none left), over the base's index.
    private var keyChanges: [UniquenessKey: KeyHolders?] = [:]
    private var isOpen = true

    init(vault: Vault, keys: EpochKeys, base: VaultSnapshot, openedInRowOrder: [SnapshotEntry]? = nil) {
        self.vault = vault
        self.keys = keys
        self.base = base
        self.openedInRowOrder = openedInRowOrder
        sealer = ItemSealer(vaultID: base.vaultID, keys: keys, entropy: vault.entropy)
        changes.basedOn = base.identity
    }

    /// Ends the transaction. The array of every entry a listing went through is let go on
    /// another thread: its last release retains nothing but releases each entry, 100,000
    /// objects far apart in memory (a millisecond of a 100,000-entry listing on its one core).
    func close() {
        isOpen = false
        if let opened = openedInRowOrder {
            openedInRowOrder = nil
            ParallelWork.release(inBackground: opened)
        }
    }

    /// Ends the transaction and lets go of the base, so the vault can apply the
    /// changes to its snapshot in place.
    func finish() -> Changeset {
        isOpen = false
        base.forgetAttributes()
        return changes
    }

    // MARK: The base with this transaction's changes

    var header: VaultHeaderV2 { changes.header ?? base.header }

    private func currentRecord(_ id: ItemID) -> RecordV2? {
        switch changes.entries[id] {
        case .put(let sealed, _)?: return sealed.record
        case .tombstone?: return nil
        case nil: return base.record(id)
        }
    }

    private func currentAttributes(_ id: ItemID) throws(CofferError) -> ItemAttributes? {
        switch changes.entries[id] {
        case .put(_, let attributes)?: return attributes
        case .tombstone?: return nil
        case nil: return try base.attributes(id)
        }
    }

    /// The live version of item `id` with this transaction's changes, for editing it.
    private func currentVersion(_ id: ItemID) throws(CofferError) -> ItemVersion? {
        switch changes.entries[id] {
        case .put(let sealed, _)?: return try ItemVersion(record: sealed.record, overview: sealed.overview)
        case .tombstone?: return nil
        case nil:
            guard base.liveEntry(id) != nil, let entry = try base.openedEntry(id) else { return nil }
            return try ItemVersion(record: entry.record, overview: entry.overview)
        }
    }

    /// The key slots a password change in this transaction replaced, by identity, with the
    /// key of the slot that replaced each: the vault takes the one that replaces the slot it
    /// was opened with (``Vault/adoptReplacingSlot(_:)``), so a copy rekeyed after still
    /// opens through it (SPEC.md §17.8) without reopening the vault.
    private(set) var slotReplacements: [[UInt8]: SlotKey] = [:]

    /// The stamp of this transaction's edits, drawn from the vault at the first write.
    private func stamp() -> Stamp {
        if let stamp = changes.stamp { return stamp }
        let stamp = vault.issueStamp(after: base.header.clock)
        changes.stamp = stamp
        return stamp
    }

    private func holders(of key: UniquenessKey) throws(CofferError) -> KeyHolders? {
        if let changed = keyChanges[key] { return changed }
        return try base.holders(of: key)
    }

    /// The item holding `key` (of two, after a merge, the one ``upsert(_:secrets:)`` would
    /// update), if any: for an import to find the item an imported one collides with.
    package func itemID(holding key: UniquenessKey) throws(CofferError) -> ItemID? {
        try ensureOpen()
        return try holders(of: key)?.first
    }

    /// Records a change and the unique keys it frees and takes; a key another item holds,
    /// and item `id` does not, throws ``CofferError/duplicateItem`` and records nothing
    /// (``UniqueIndex/check(_:for:)``).
    private func change(_ id: ItemID, _ change: Changeset.Change) throws(CofferError) {
        let oldKey = try currentAttributes(id)?.uniquenessKey
        var newKey: UniquenessKey?
        if case .put(_, let newAttributes) = change, let key = newAttributes.uniquenessKey {
            try UniqueIndex.check(try holders(of: key), for: id)
            newKey = key
        }
        if oldKey != newKey {
            if let oldKey { keyChanges[oldKey] = .some(try holders(of: oldKey)?.removing(id)) }
            if let newKey { keyChanges[newKey] = .some(try holders(of: newKey)?.inserting(id) ?? KeyHolders(id)) }
        }
        let first = changes.entries[id] == nil
        changes.record(id, change, base: first ? try base.version(id) : nil)
    }

    func ensureOpen() throws(CofferError) {
        guard isOpen else { throw .transactionEnded }
    }

    // MARK: Reading

    /// Items matching `query`, ordered by label (else service, else server), then account,
    /// then id (a ``ItemQuery/text`` search puts substring matches before subsequence ones); texts compare by Unicode code points after canonical composition (NFC).
    /// Decrypts no secret.
    public func items(matching query: ItemQuery = .all) throws(CofferError) -> [Item] {
        try items(matching: query, prefilter: nil)
    }

    /// ``items(matching:)`` among the items whose id and overview field list `prefilter`
    /// accepts (from its bytes, without decoding it): a lookup that compares decoded attributes
    /// (``ItemLookup``) decodes, and checks the digest of, only the items that may match.
    func items(matching query: ItemQuery, prefilter: (@Sendable (ItemID, UnsafeRawBufferPointer) -> Bool)?) throws(CofferError) -> [Item] {
        try listing(matching: query, prefilter: prefilter, skippingDamaged: false).items
    }

    /// The items matching `query` that can be read, and the damaged records (SPEC.md §10:
    /// a record whose overview did not open); nothing is read from them. ``Vault/readableItems(matching:)``.
    public func readableItems(matching query: ItemQuery = .all) throws(CofferError) -> ReadableItems {
        let found = try listing(matching: query, prefilter: nil, skippingDamaged: true)
        let damaged = Set(found.damaged).union(base.damaged.keys).sorted()
        return ReadableItems(items: found.items, damaged: damaged.map(DamagedItem.init(id:)))
    }

    /// ``items(matching:prefilter:)``; with `skippingDamaged`, a record whose overview did not
    /// open is named, instead of failing the whole listing.
    private func listing(matching query: ItemQuery, prefilter: (@Sendable (ItemID, UnsafeRawBufferPointer) -> Bool)?,
                         skippingDamaged: Bool) throws(CofferError) -> (items: [Item], damaged: [ItemID]) {
        try ensureOpen()
        try base.openAll()   // a listing reads every overview (a lookup by tag reads a few: Vault.match)
        // A listing that must be whole fails for a record whose overview did not open: it
        // might match. A lookup (`prefilter`) names readable items only.
        if !skippingDamaged, prefilter == nil, let id = base.damaged.keys.min() { throw .tampered(.entry(id.hex)) }
        // Overviews whose bytes rule the item out are never decoded; the rest are
        // decoded on all cores, then checked against the query as attributes.
        let unchanged = changes.entries.isEmpty   // (its `order` is empty exactly then too)
        let entries = Array(base.entries.values)
        // Reading every overview's fields is most of a narrow query's time on a large
        // vault: the verdicts are worked out on all cores (none needed for every item).
        let verdicts: [Bool?]? = query.selectsEverything && prefilter == nil ? nil : try ParallelWork.map(count: entries.count) {
            (index) throws(CofferError) -> Bool? in
            if let prefilter, !entries[index].overview.withUnsafeBytes({ prefilter(entries[index].record.id, $0) }) { return false }
            return query.matches(overview: entries[index].overview)
        }
        // The entries themselves (a reference each), not copies of their records: a wide
        // listing copied and retained a record struct per item.
        var candidates: [SnapshotEntry] = []
        // True while the bytes alone have decided every candidate: no check on attributes needed.
        var decided = true
        for (index, entry) in entries.enumerated() {
            let verdict: Bool? = verdicts.map { $0[index] } ?? true
            guard verdict != false, unchanged || changes.entries[entry.record.id] == nil else { continue }
            if verdict == nil { decided = false }
            candidates.append(entry)
        }
        // Without pending changes the candidates are ordered first, from their bytes,
        // and decoded straight into place: no sort of decoded items.
        let ordered = unchanged && DisplayOrder.sort(overviews: &candidates, id: \.record.id, list: \.overview)
        if ordered, decided, let limit = query.limit, limit >= 0, candidates.count > limit {
            candidates.removeSubrange(limit...)   // the rest would be decoded only to be dropped
        }
        // The overviews were authenticated, under their rows' nonces, when the snapshot read
        // them; a record whose overview did not open is not among them (``VaultSnapshot/damaged``).
        var found = try formatCall { () throws(FormatError) in
            try ParallelWork.map(count: candidates.count) { [candidates] (index) throws(FormatError) -> Item in
                let entry = candidates[index]
                return Item(id: entry.record.id, revision: entry.record.revision, attributes: try EntryCodec.decodeOverview(entry.overview))
            }
        }
        candidates = []
        if !decided { found.removeAll { !query.matches($0.attributes) } }
        for id in changes.order {
            if case .put(let sealed, let attributes)? = changes.entries[id], query.matches(attributes) {
                found.append(Item(id: id, revision: sealed.record.revision, attributes: attributes))
            }
        }
        if !ordered { DisplayOrder.sort(&found) }
        found = query.ranked(found)
        if let limit = query.limit, limit >= 0, found.count > limit { found.removeSubrange(limit...) }
        // A lookup that finds nothing may have been meant for a record whose overview did not
        // open: it is damaged, not missing.
        if !skippingDamaged, found.isEmpty, let id = base.damaged.keys.min() { throw .tampered(.entry(id.hex)) }
        return (found, [])
    }

    /// The items `lookup` may match among the records its rows point to (``ItemLookup/candidates``),
    /// those matching `query`, in listing order: what ``items(matching:prefilter:)`` lists for
    /// the lookup, without opening the other records. Nil when that shortcut does not apply:
    /// the vault's overviews are all open already, the name narrows nothing, or this
    /// transaction has changes. The damaged records among the candidates are left out, as a
    /// lookup leaves them out.
    func itemsByTag(_ lookup: ItemLookup, matching query: ItemQuery) throws(CofferError) -> [Item]? {
        try ensureOpen()
        guard changes.entries.isEmpty, let candidates = lookup.candidates, let keys = base.lookupKeys else { return nil }
        let entries: [SnapshotEntry]?
        switch candidates {
        case .nothing: return []
        case .ids(let matches): entries = try base.liveEntries(idPrefix: matches)
        case .tagged(let kind, let name): entries = try base.liveEntries(taggedWith: NameTags.tags(kind: kind, name: name, keys: keys))
        }
        guard let entries else { return nil }
        var found: [Item] = []
        for entry in entries {
            let attributes = try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(entry.overview) }
            guard query.matches(attributes) else { continue }
            found.append(Item(id: entry.record.id, revision: entry.record.revision, attributes: attributes))
        }
        DisplayOrder.sort(&found)
        found = query.ranked(found)
        if let limit = query.limit, limit >= 0, found.count > limit { found.removeSubrange(limit...) }
        return found
    }

    /// ``Vault/listing(matching:locale:)``: the rows come from the overviews' bytes, in reading
    /// order with ties in the stable order (``DisplayOrder/readingRows(of:locale:)``; with a
    /// limit, the first of the stable order, ``DisplayOrder/sort(overviews:id:list:)``, then
    /// read in reading order); an item is decoded
    /// only where its bytes cannot decide the query. With pending changes, a text search, or
    /// an overview of unusual shape, the decoded items are listed instead (same rows, same order).
    func listing(matching query: ItemQuery, locale: Locale) throws(CofferError) -> ItemListing {
        try ensureOpen()
        func decoded() throws(CofferError) -> ItemListing {
            let readable = try readableItems(matching: query)
            return ItemListing(rows: readable.items.sortedForReading(locale: locale).map(ListedItem.init(item:)), damaged: readable.damaged)
        }
        guard changes.entries.isEmpty, (query.text ?? "").isEmpty else { return try decoded() }
        let entries: [SnapshotEntry]
        if let openedInRowOrder {
            entries = openedInRowOrder
        } else {
            try base.openAll(keepingRecords: false)   // a listing holds the overviews, not the file
            entries = base.liveEntriesInFileOrder()
        }
        let verdicts: [Bool?]? = query.selectsEverything ? nil : ParallelWork.map(count: entries.count) { (index) -> Bool? in
            query.matches(overview: entries[index].overview)
        }
        // Every entry when the query selects everything (no second copy of 100,000 of them).
        var candidates: [SnapshotEntry] = verdicts == nil ? entries : []
        if let verdicts {
            for (entry, verdict) in zip(entries, verdicts) {
                switch verdict {
                case true?: candidates.append(entry)
                case false?: continue
                case nil:
                    let attributes = try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(entry.overview) }
                    if query.matches(attributes) { candidates.append(entry) }
                }
            }
        }
        let damaged = base.damaged.keys.sorted().map(DamagedItem.init(id:))
        // Without a limit, each overview is read once for its row and its reading key, and
        // the rows sorted once: reading order, ties in the stable order (ordering by the
        // stable order first, then for reading, read every overview twice and sorted twice).
        guard let limit = query.limit, limit >= 0 else {
            guard let rows = DisplayOrder.readingRows(of: candidates, locale: locale) else { return try decoded() }
            return ItemListing(rows: rows, damaged: damaged)
        }
        // A limit keeps the first items of the stable order, then reads them in reading order.
        guard DisplayOrder.sort(overviews: &candidates, id: \.record.id, list: \.overview) else { return try decoded() }
        if candidates.count > limit { candidates.removeSubrange(limit...) }
        let made = ParallelWork.map(count: candidates.count) { [candidates] index in
            ListedItem(id: candidates[index].record.id, revision: candidates[index].record.revision, overview: candidates[index].overview)
        }
        var rows: [ListedItem] = []
        rows.reserveCapacity(made.count)
        for row in made {
            guard let row else { return try decoded() }
            rows.append(row)
        }
        return ItemListing(rows: DisplayOrder.readingOrder(rows, locale: locale), damaged: damaged)
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
        guard let attributes = try currentAttributes(id), let record = currentRecord(id) else { throw .itemNotFound }
        return Item(id: id, revision: record.revision, attributes: attributes)
    }

    /// Decrypts the secret part of one item.
    public func secrets(for id: ItemID) throws(CofferError) -> ItemSecrets {
        try ensureOpen()
        guard let version = try currentVersion(id) else { throw .itemNotFound }
        return try sealer.secrets(of: version)
    }

    /// The values of item `id` that lost a concurrent edit on another replica (SPEC.md
    /// §17.5), oldest first; empty when the item has none. Losing passwords also appear in
    /// the item's password history.
    public func conflicts(for id: ItemID) throws(CofferError) -> [ItemConflict] {
        try ensureOpen()
        guard let version = try currentVersion(id) else { throw .itemNotFound }
        return try sealer.conflicts(of: version).sorted { $0.conflict.stamp < $1.conflict.stamp }.map { (found) throws(CofferError) in
            try ItemConflict(found.conflict, name: found.name)
        }
    }

    /// The items (with this transaction's changes) that hold values that lost a concurrent edit.
    func idsWithConflicts() throws(CofferError) -> Set<ItemID> {
        try base.openAll()
        var ids = Set<ItemID>()
        for (id, entry) in base.entries where changes.entries[id] == nil && ItemClockCodec.hasSiblings(entry.overview) { ids.insert(id) }
        for (id, change) in changes.entries {
            if case .put(let sealed, _) = change, ItemClockCodec.hasSiblings(sealed.overview) { ids.insert(id) }
        }
        return ids
    }

    /// Marks the conflicts of item `id` as reviewed: the losing values are dropped (losing
    /// passwords stay in the password history) and the item is no longer flagged.
    public func resolveConflicts(for id: ItemID) throws(CofferError) {
        try ensureOpen()
        guard let version = try currentVersion(id), let attributes = try currentAttributes(id) else { throw .itemNotFound }
        let secrets = try sealer.secrets(of: version)
        let sealed = try sealer.edit(version, to: attributes, secrets: secrets, stamp: stamp(), resolvingConflicts: true)
        changes.resolved.insert(id)
        try change(id, .put(sealed, attributes))
    }

    /// Clears item `id`'s password history (``Vault/clearPasswordHistory(for:)``): every
    /// earlier password, and every losing password shown among them, is erased from the
    /// record. Returns how many entries the history showed.
    @discardableResult
    public func clearPasswordHistory(for id: ItemID) throws(CofferError) -> Int {
        try ensureOpen()
        guard let version = try currentVersion(id), let attributes = try currentAttributes(id) else { throw .itemNotFound }
        var secrets = try sealer.secrets(of: version)
        let count = secrets.passwordHistory.count
        secrets.passwordHistory = []
        let sealed = try sealer.edit(version, to: attributes, secrets: secrets, stamp: stamp(), clearingHistory: true)
        changes.historyCleared.insert(id)
        try change(id, .put(sealed, attributes))
        return count
    }

    // MARK: Writing items

    /// Adds a new item. Throws ``CofferError/duplicateItem`` if its unique key is taken.
    @discardableResult
    public func add(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try ensureOpen()
        try attributes.validate()
        if let key = attributes.uniquenessKey { try UniqueIndex.check(try holders(of: key), for: nil) }
        var id = try ItemID(validated: vault.entropy.bytes(FormatV1.entryIDLength))
        while changes.entries[id] != nil || base.holdsRecord(id) {
            id = try ItemID(validated: vault.entropy.bytes(FormatV1.entryIDLength))
        }
        let stamp = stamp()
        let attributes = Self.takingTime(of: stamp, attributes, now: vault.now())
        let sealed = try sealer.add(id: id, attributes: attributes, secrets: secrets, stamp: stamp)
        try change(id, .put(sealed, attributes))
        return Item(id: id, revision: 1, attributes: attributes)
    }

    /// An item made for this transaction (both dates equal, from a minute before its first
    /// write until now) dated at the transaction's time, its stamp's: a transaction is one
    /// edit, and format 2 then leaves both dates out of the record (SPEC.md §7.6), 20 bytes
    /// an item. Dates of the item's own (an import's, or set by the caller) are kept.
    static func takingTime(of stamp: Stamp, _ attributes: ItemAttributes, now: Date) -> ItemAttributes {
        let made = attributes.created.millisecondsSince1970
        guard made == attributes.modified.millisecondsSince1970, made >= stamp.milliseconds - 60_000,
              made <= max(stamp.milliseconds, now.millisecondsSince1970) else { return attributes }
        var dated = attributes
        dated.created = Date(millisecondsSince1970: stamp.milliseconds)
        dated.modified = dated.created
        return dated
    }

    /// Adds the item, or replaces the attributes and secrets of the item with the same unique key
    /// (keeping its creation date and recording a changed password in its history). Of two items
    /// with the key (replicas that each added one, merged), the one with the lower id.
    @discardableResult
    public func upsert(_ attributes: ItemAttributes, secrets: ItemSecrets = ItemSecrets()) throws(CofferError) -> Item {
        try ensureOpen()
        try attributes.validate()
        guard let key = attributes.uniquenessKey, let existing = try holders(of: key)?.first else {
            return try add(attributes, secrets: secrets)
        }
        return try update(existing, attributes: attributes, secrets: secrets)
    }

    /// Replaces an item's attributes (`nil` keeps them) and puts in the parts of its secrets
    /// that `secrets` sets, keeping the rest (``ItemSecrets/merging(_:)``): a new password
    /// keeps the notes, fields and attachments. A changed password goes into the password
    /// history. ``replaceSecrets(of:with:)`` replaces the whole secret part.
    @discardableResult
    public func update(_ id: ItemID, attributes: ItemAttributes? = nil, secrets: ItemSecrets? = nil) throws(CofferError) -> Item {
        try update(id, attributes: attributes, secrets: secrets, replacing: false)
    }

    /// Replaces an item's whole secret part with `secrets`: whatever it does not hold (notes,
    /// secret fields such as a one-time-password seed, attachments) is gone. The replaced
    /// password goes into the history.
    ///
    /// ```swift
    /// try tx.replaceSecrets(of: item.id, with: ItemSecrets(password: password))   // drops the notes
    /// ```
    @discardableResult
    public func replaceSecrets(of id: ItemID, with secrets: ItemSecrets) throws(CofferError) -> Item {
        try update(id, attributes: nil, secrets: secrets, replacing: true)
    }

    private func update(_ id: ItemID, attributes: ItemAttributes?, secrets: ItemSecrets?, replacing: Bool) throws(CofferError) -> Item {
        try ensureOpen()
        guard let old = try currentAttributes(id), let version = try currentVersion(id) else { throw .itemNotFound }
        var newAttributes = attributes ?? old
        try newAttributes.validate(editing: old)
        newAttributes.created = old.created
        // Never back in time, whatever this device's clock says (SPEC.md §17.5).
        newAttributes.modified = max(vault.now(), old.modified)
        if attributes != nil, newAttributes.preservedFields.isEmpty { newAttributes.preservedFields = old.preservedFields }
        let oldSecrets = try sealer.secrets(of: version)
        var newSecrets = secrets.map { replacing ? $0 : oldSecrets.merging($0) } ?? oldSecrets
        if secrets != nil {
            if newSecrets.preservedFields.isEmpty { newSecrets.preservedFields = oldSecrets.preservedFields }
            recordHistory(old: oldSecrets, into: &newSecrets)
        }
        return try stage(version, old: (old, oldSecrets), attributes: newAttributes, secrets: newSecrets)
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
        guard let old = try currentAttributes(id), let version = try currentVersion(id) else { throw CofferError.itemNotFound }
        var attributes = old
        let oldSecrets = try sealer.secrets(of: version)
        var secrets = oldSecrets
        try body(&attributes, &secrets)
        try attributes.validate(editing: old)
        attributes.created = old.created
        attributes.modified = max(vault.now(), old.modified)
        recordHistory(old: oldSecrets, into: &secrets)
        return try stage(version, old: (old, oldSecrets), attributes: attributes, secrets: secrets)
    }

    /// Deletes an item; throws ``CofferError/itemNotFound`` if there is none.
    ///
    /// The item stays in the file as a tombstone (SPEC.md §17.5), so that replicas of the
    /// vault learn of the deletion; an edit made meanwhile on another replica brings it back.
    public func delete(_ id: ItemID) throws(CofferError) {
        try ensureOpen()
        guard let version = try currentVersion(id) else { throw .itemNotFound }
        guard let sealed = try sealer.delete(version, askedOn: version, stamp: stamp()) else { throw .itemNotFound }
        try change(id, .tombstone(sealed))
    }

    /// Stages the edit of `version` from `old` to `attributes` and `secrets`; an edit that
    /// changes nothing but the modification date is no edit: nothing is staged, so nothing
    /// is saved (no new generation, the backup stays), and the item is returned as it was.
    private func stage(_ version: ItemVersion, old: (attributes: ItemAttributes, secrets: ItemSecrets),
                       attributes: ItemAttributes, secrets: ItemSecrets) throws(CofferError) -> Item {
        var unchanged = attributes
        unchanged.modified = old.attributes.modified
        if unchanged == old.attributes, secrets == old.secrets {
            return Item(id: version.record.id, revision: version.record.revision, attributes: old.attributes)
        }
        let sealed = try sealer.edit(version, to: attributes, secrets: secrets, stamp: stamp())
        try change(version.record.id, .put(sealed, attributes))
        return Item(id: version.record.id, revision: sealed.record.revision, attributes: attributes)
    }

    private func recordHistory(old: ItemSecrets, into new: inout ItemSecrets) {
        guard let previous = old.password, new.password != previous else { return }
        // Keep history the caller edited explicitly; otherwise carry the old one forward.
        if new.passwordHistory == old.passwordHistory || new.passwordHistory.isEmpty {
            new.passwordHistory = [PasswordHistoryEntry(password: previous, replaced: vault.now())] + old.passwordHistory
        }
        let limit = max(0, vault.options.passwordHistoryLimit)
        if new.passwordHistory.count > limit { new.passwordHistory.removeSubrange(limit...) }
    }

    // MARK: Key slots

    /// Adds a key slot for `credential`. Password and key-file slots use the KDF
    /// parameters of the vault's existing slots (or the options' when it has none).
    public func addKeySlot(_ credential: VaultCredential) throws(CofferError) {
        try ensureOpen()
        var header = self.header
        guard header.slots.count < FormatV1.maxSlots else { throw .slotUnavailable("a vault has at most \(FormatV1.maxSlots) key slots") }
        let kdf = header.slots.compactMap(\.kdf).first ?? vault.options.kdf
        if credential.slotKind.hasKDF {
            // What this library writes, it opens: the slots of this kind must fit the limit.
            try vault.options.kdfLimit.check(header.slots.filter { $0.kind == credential.slotKind }.compactMap(\.kdf) + [kdf])
        }
        header.slots.append(try formatCall { () throws(FormatError) in
            try KeySlotV2.make(for: credential, kdf: kdf, vaultID: header.vaultID, epoch: keys, entropy: vault.entropy).slot
        })
        setHeader(header)
    }

    /// Removes every slot that `credential` opens. The last slot cannot be removed.
    public func removeKeySlot(_ credential: VaultCredential) throws(CofferError) {
        try ensureOpen()
        var header = self.header
        let key = credential
        try vault.options.kdfLimit.check(header.slots, kind: key.slotKind)
        var kept: [KeySlotV2] = []
        for slot in header.slots {
            let opens = try formatCall { () throws(FormatError) in
                try slot.open(with: key, vaultID: header.vaultID, epochID: header.epochID) != nil
            }
            if !opens { kept.append(slot) }
        }
        guard kept.count < header.slots.count else { throw CofferError(key.wrongKeyError) }
        guard !kept.isEmpty else { throw .slotUnavailable("cannot remove the last key slot") }
        header.slots = kept
        setHeader(header)
    }

    /// Removes the slot at `index` (as in ``Vault/slots``) without needing its key:
    /// for a key that was lost, e.g. a device key or an expired session key.
    /// The last slot cannot be removed.
    public func removeKeySlot(at index: Int) throws(CofferError) {
        try ensureOpen()
        var header = self.header
        guard header.slots.indices.contains(index) else { throw .noSuchKeySlot(index) }
        guard header.slots.count > 1 else { throw .slotUnavailable("cannot remove the last key slot") }
        header.slots.remove(at: index)
        setHeader(header)
    }

    /// Replaces the password slot(s) with one for `newPassword`. Entries are not re-encrypted.
    /// With `keyFile`, replaces the password-and-key-file slot(s) instead.
    public func changePassword(to newPassword: SecureBytes, keyFile: KeyFile? = nil) throws(CofferError) {
        try ensureOpen()
        let kind: KeySlotKind = keyFile == nil ? .password : .passwordAndKeyFile
        var header = self.header
        guard let first = header.slots.firstIndex(where: { $0.kind == kind }) else {
            throw .slotUnavailable("the vault has no \(kind) slot")
        }
        let credential: VaultCredential = keyFile.map { .passwordAndKeyFile(newPassword, $0) } ?? .password(newPassword)
        let kdf = header.slots[first].kdf ?? vault.options.kdf
        try vault.options.kdfLimit.check(kdf)
        let made = try formatCall { () throws(FormatError) in
            try KeySlotV2.make(for: credential, kdf: kdf, vaultID: header.vaultID, epoch: keys, entropy: vault.entropy)
        }
        let slot = made.slot
        for replaced in header.slots where replaced.kind == kind {
            slotReplacements[replaced.identity] = SlotKey(slotIdentity: slot.identity, seeds: made.seeds)
        }
        header.slots[first] = slot
        header.slots = header.slots.enumerated().filter { $0.offset == first || $0.element.kind != kind }.map(\.element)
        setHeader(header)
    }

    /// Changes the master password in every slot `old` opens (SPEC.md §11.3): a password
    /// slot is replaced by one for `new`, a password and key-file slot whose password
    /// factor is `old` gets a new password factor and keeps its key-file factor (so the key
    /// file is not needed, and stays required where it was). A format-1 password and
    /// key-file slot is checked only with `keyFile` (its password cannot be tested alone).
    /// Each slot keeps its place and its Argon2id parameters. Returns the kinds of the slots
    /// changed, in header order; throws ``CofferError/wrongPassword`` when `old` opens none.
    public func changePassword(from old: SecureBytes, to new: SecureBytes, keyFile: KeyFile? = nil) throws(CofferError) -> [KeySlotKind] {
        try changePassword(from: old, to: new, keyFile: keyFile, openedSlot: nil)
    }

    /// ``changePassword(from:to:keyFile:)``; the slot named `openedSlot` is known to open
    /// with `old` (an open's KDF proved it, ``OpenedVault/changePassword(to:keyFile:rotatingKey:)``),
    /// so its KDF is not run again.
    func changePassword(from old: SecureBytes, to new: SecureBytes, keyFile: KeyFile?, openedSlot: [UInt8]?) throws(CofferError) -> [KeySlotKind] {
        try ensureOpen()
        var header = self.header
        let candidates = header.slots.filter { $0.kind == .password || $0.kind == .passwordAndKeyFile }
        try vault.options.kdfLimit.check(candidates.compactMap(\.kdf))
        var changed: [KeySlotKind] = []
        for (index, slot) in header.slots.enumerated() where candidates.contains(slot) {
            // The new slot, and its seeds when they open it alone (a replaced password factor
            // keeps a key-file factor whose seed is not at hand).
            let replacement: (slot: KeySlotV2, seeds: KeySlotV2.Seeds?)? = try formatCall { () throws(FormatError) -> (slot: KeySlotV2, seeds: KeySlotV2.Seeds?)? in
                let make = { (credential: VaultCredential) throws(FormatError) -> (slot: KeySlotV2, seeds: KeySlotV2.Seeds?) in
                    let made = try KeySlotV2.make(for: credential, kdf: slot.kdf ?? self.vault.options.kdf, vaultID: header.vaultID,
                                                  epoch: self.keys, entropy: self.vault.entropy)
                    return (made.slot, made.seeds)
                }
                let opened = openedSlot.map { ConstantTime.equals($0, slot.identity) } ?? false
                switch slot.kind {
                case .password:
                    if !opened { guard try slot.open(with: .password(old), vaultID: header.vaultID, epochID: header.epochID) != nil else { return nil } }
                    return try make(.password(new))
                case .passwordAndKeyFile where slot.isNewStyle:
                    if !opened { guard try slot.passwordFactorMatches(old) else { return nil } }
                    return try slot.replacingPasswordFactor(new, vaultID: header.vaultID, epoch: keys, entropy: vault.entropy)
                        .map { ($0.slot, nil) }
                case .passwordAndKeyFile:
                    // The key file is an input here (the new slot takes it): always checked.
                    guard let keyFile, try slot.open(with: .passwordAndKeyFile(old, keyFile), vaultID: header.vaultID,
                                                     epochID: header.epochID) != nil else { return nil }
                    return try make(.passwordAndKeyFile(new, keyFile))
                default:
                    return nil
                }
            }
            guard let replacement else { continue }
            if let seeds = replacement.seeds {
                slotReplacements[slot.identity] = SlotKey(slotIdentity: replacement.slot.identity, seeds: seeds)
            }
            header.slots[index] = replacement.slot
            changed.append(slot.kind)
        }
        guard !changed.isEmpty else { throw .wrongPassword }
        setHeader(header)
        return changed
    }

    /// Makes `keyFile` a required second factor (SPEC.md §11.3): adds a password and
    /// key-file slot for `password` and `keyFile`, and removes every slot the password
    /// alone opens, whatever its password, so no password alone opens the vault. `password`
    /// must open a slot of the vault (alone, or as a two-factor slot's password factor),
    /// else ``CofferError/wrongPassword``. Returns the kinds of the slots removed.
    public func requireKeyFile(_ keyFile: KeyFile, password: SecureBytes) throws(CofferError) -> [KeySlotKind] {
        try ensureOpen()
        let current = self.header
        let passwordOnly = current.slots.filter { $0.kind == .password }
        let twoFactor = current.slots.filter { $0.kind == .passwordAndKeyFile && $0.isNewStyle }
        try vault.options.kdfLimit.check(passwordOnly.compactMap(\.kdf) + twoFactor.compactMap(\.kdf))
        // The password that will need the key file must be the vault's: a typo would lock the owner out.
        let known = try formatCall { () throws(FormatError) -> Bool in
            for slot in passwordOnly where try slot.open(with: .password(password), vaultID: current.vaultID, epochID: current.epochID) != nil {
                return true
            }
            for slot in twoFactor where try slot.passwordFactorMatches(password) { return true }
            return false
        }
        guard known else { throw .wrongPassword }
        try addKeySlot(.passwordAndKeyFile(password, keyFile))
        var header = self.header
        header.slots.removeAll { $0.kind == .password }
        setHeader(header)
        return passwordOnly.map(\.kind)
    }

    func setHeader(_ header: VaultHeaderV2) {
        if changes.baseHeader == nil { changes.baseHeader = base.header }
        _ = stamp()
        changes.header = header
    }
}

import CofferCrypto
import CofferFormat

/// What ``Vault/rotateKey()`` did.
///
/// ```swift
/// let rotation = try vault.rotateKey()
/// for kind in rotation.removedSlots { print("removed a \(kind) slot: add it again to keep using it") }
/// ```
public struct KeyRotation: Sendable, Hashable, Codable {
    /// The key slots the rotation removed, by kind: format-1 slots (other than the one that
    /// opened the vault, which was converted first) and slots of types this version does not
    /// know. Neither can be given the new key without its credential.
    public let removedSlots: [KeySlotKind]
    /// How many records were sealed again under the new key (tombstones included).
    public let records: Int
}

extension Vault {
    /// The format version of the file as this vault read it: 1 until the first save (or
    /// ``upgrade()``) writes it as version 2.
    public var formatVersion: Int { withLock { Int(currentSnapshot.sourceVersion) } }

    /// Writes the vault as format version 2 now, with nothing else changed (SPEC.md §11.1):
    /// the format-1 slot it was opened with becomes a format-2 slot of the same credential,
    /// and the format-1 file is kept as the backup (`<path>.bak`). Any save does this too;
    /// this one changes no item. Returns false when the file is format 2 already.
    ///
    /// ```swift
    /// let vault = try Vault.open(at: path, password: password)
    /// if try vault.upgrade() { print("upgraded; the old file is \(path).bak") }
    /// ```
    @discardableResult
    public func upgrade() throws(CofferError) -> Bool {
        try saving { (engine, keys) throws(CofferError) in
            try engine.upgrade(keys: keys) { clock in issueStamp(after: clock) }
        }
    }

    /// Replaces the vault's key (SPEC.md §11.2): a new random epoch key seals every record
    /// again, the old key moves into the key history (sealed under the new one; merging a
    /// copy made before the rotation is not supported yet and is refused with
    /// ``CofferError/Kind/conflict``),
    /// and every format-2 slot gets the new key from its public part, so every password,
    /// key file and raw key keeps working. A copy of the file taken before, or a key
    /// recovered from it, opens nothing written after. Format-1 slots and slots of unknown
    /// types cannot be given the new key: they are removed and listed in the result (the
    /// one that opened the vault is converted first, so it stays). No backup under the old
    /// key is left. Costs about one save plus one decryption and encryption of every record.
    ///
    /// ```swift
    /// let rotation = try vault.rotateKey()
    /// print("\(rotation.records) records sealed under a new key")
    /// ```
    @discardableResult
    public func rotateKey() throws(CofferError) -> KeyRotation {
        try rotatingKey()
    }
}

import Foundation
import CofferCrypto
import CofferFormat
import CofferTestSupport

/// Builds vault files with the format code itself (key slots, sealed records, the
/// file codec), from a deterministic entropy source, fixed dates and fixed revisions.
final class FormatVaultBuilder {
    let entropy: EntropySource
    let keys: VaultKeys
    var header: VaultHeader
    var generation: UInt64 = 1
    private(set) var records: [ItemID: EntryRecord] = [:]
    private(set) var expected: [ItemID: VectorEntry] = [:]

    var vaultID: [UInt8] { header.vaultID }

    /// A new vault: draws the vault key, then the vault id, then one slot per credential
    /// (the order `Vault.create` uses).
    init(entropy: EntropySource, slots: [(VaultCredential, Argon2idParameters)]) throws {
        self.entropy = entropy
        let vaultKey = try entropy.secureBytes(FormatV1.keyLength)
        keys = try VaultKeys(vaultKey: vaultKey)
        let vaultID = try entropy.bytes(FormatV1.vaultIDLength)
        header = VaultHeader(vaultID: vaultID, slots: [], extensions: [])
        for (key, kdf) in slots {
            header.slots.append(try KeySlotRecord.make(for: key, vaultKey: vaultKey, vaultID: vaultID, kdf: kdf, entropy: entropy))
        }
    }

    /// A vault with the same vault key as `other` but its own id (for transplant vectors).
    init(sharingKeyOf other: FormatVaultBuilder, vaultID: [UInt8], entropy: EntropySource, slots: [(VaultCredential, Argon2idParameters)]) throws {
        self.entropy = entropy
        keys = other.keys
        header = VaultHeader(vaultID: vaultID, slots: [], extensions: [])
        for (key, kdf) in slots {
            header.slots.append(try KeySlotRecord.make(for: key, vaultKey: keys.vaultKey, vaultID: vaultID, kdf: kdf, entropy: entropy))
        }
    }

    func newID() throws -> ItemID { ItemID(validated: try entropy.bytes(FormatV1.entryIDLength)) }

    /// Seals an item at `revision` (replacing any record with its id).
    @discardableResult
    func put(_ id: ItemID, revision: UInt64, _ attributes: ItemAttributes, _ secrets: ItemSecrets) throws -> EntryRecord {
        let record = try EntryRecord.seal(id: id, revision: revision, attributes: attributes, secrets: secrets,
                                          vaultID: header.vaultID, keys: keys, entropy: entropy)
        records[id] = record
        expected[id] = VectorEntry(id: id, revision: revision, attributes: attributes, secrets: secrets)
        return record
    }

    /// Adds an already sealed record (its expected entry unknown to the builder).
    func insert(_ record: EntryRecord) {
        records[record.id] = record
        expected[record.id] = nil
    }

    func remove(_ id: ItemID) {
        records[id] = nil
        expected[id] = nil
    }

    var sortedRecords: [EntryRecord] { records.values.sorted { $0.id < $1.id } }

    /// The expected entries, in file (id) order.
    var expectedEntries: [VectorEntry] { expected.keys.sorted().compactMap { expected[$0] } }

    func bytes() throws -> [UInt8] {
        try VaultFile.encode(header: header, generation: generation, records: Array(records.values), keys: keys)
    }
}

/// Dates used by the vectors: milliseconds since 1970.
func vectorDate(_ ms: Int64) -> Date { Date(millisecondsSince1970: ms) }

/// Test entropy: reproducible in debug builds (where the hook exists), the system's otherwise.
func formatTestEntropy(_ label: String) throws -> EntropySource {
    #if DEBUG
    return SeededRandom("coffer format test: \(label)").entropy
    #else
    return .system
    #endif
}

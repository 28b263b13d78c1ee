import Foundation
import CofferCrypto
import CofferFormat
import CofferTestSupport

/// Opens a vault the way SPEC.md §10 says: parse, unlock, verify, then decrypt every
/// overview and every secret part, in file order, and check the merge fields against both (§17.3).
enum FormatReader {
    struct Opened {
        let codec: VaultFile
        let keys: VaultKeys
        let items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets, deleted: Bool)]

        var entries: [VectorEntry] {
            items.map { item in
                var entry = VectorEntry(id: item.id, revision: item.revision, attributes: item.attributes, secrets: item.secrets)
                entry.deleted = item.deleted ? true : nil
                return entry
            }
        }
    }

    static func open(_ bytes: [UInt8], key: VaultCredential) throws(CofferError) -> Opened {
        try formatCall { () throws(FormatError) in try openFormat(bytes, key: key) }
    }

    /// ``open(_:key:)`` with the format layer's own error.
    static func openFormat(_ bytes: [UInt8], key: VaultCredential) throws(FormatError) -> Opened {
        let codec = try VaultFile.parse(bytes)
        let keys = try codec.unlock(with: key).keys
        try codec.verify(keys: keys)
        var items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes, secrets: ItemSecrets, deleted: Bool)] = []
        for record in codec.records {
            let list = try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)
            let attributes = try EntryCodec.decodeOverview(list)
            let secrets = try record.openSecrets(vaultID: codec.header.vaultID, keys: keys)
            // SPEC.md §17.3: the merge fields agree with the values of both parts.
            let clock = try ItemClockCodec.decode(overview: list)
            try ItemParts(overview: list, secrets: record.openSecretList(vaultID: codec.header.vaultID, keys: keys))
                .checkConsistency(with: clock)
            // SPEC.md §17.5: a tombstone's deletion vector dominates its version vector.
            let deleted = clock?.isDeleted ?? false
            items.append((record.id, record.revision, attributes, secrets, deleted))
        }
        return Opened(codec: codec, keys: keys, items: items)
    }

    /// The outcome class of opening `bytes` with `key`, and the error if any.
    static func outcome(_ bytes: [UInt8], key: VaultCredential) -> (VectorExpectation?, CofferError?, Opened?) {
        do {
            let opened = try open(bytes, key: key)
            return (.success, nil, opened)
        } catch {
            return (VectorExpectation(error: error), error, nil)
        }
    }
}

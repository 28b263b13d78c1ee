import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferTestSupport

/// Opens a vault the way SPEC.md §10 says: parse, unlock, verify, then decrypt every
/// overview and every secret part, in file order, and check the merge fields against both (§17.3).
enum FormatReader {
    struct Opened {
        /// A format-1 file and its keys (nil for format 2).
        let codec: VaultFile!
        let keys: VaultKeys!
        /// A format-2 file and its epoch's keys (nil for format 1).
        let codecV2: VaultFileV2?
        let epochKeys: EpochKeys?
        let generation: UInt64
        let items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes?, secrets: ItemSecrets?, deleted: Bool,
                     created: Int64, modified: Int64)]

        var entries: [VectorEntry] {
            items.map { item in
                guard let attributes = item.attributes, let secrets = item.secrets else {
                    return VectorEntry.tombstone(id: item.id, revision: item.revision, created: item.created, modified: item.modified)
                }
                var entry = VectorEntry(id: item.id, revision: item.revision, attributes: attributes, secrets: secrets)
                entry.deleted = item.deleted ? true : nil
                return entry
            }
        }
    }

    static func open(_ bytes: [UInt8], key: VaultCredential) throws(CofferError) -> Opened {
        try formatCall { () throws(FormatError) in try openFormat(bytes, key: key) }
    }

    /// ``open(_:key:)`` with the format layer's own error: format 1 or 2 as the file says.
    static func openFormat(_ bytes: [UInt8], key: VaultCredential) throws(FormatError) -> Opened {
        if try VaultFile.formatVersion(bytes) == FormatV2.version { return try openV2(bytes, key: key) }
        let codec = try VaultFile.parse(bytes)
        let keys = try codec.unlock(with: key).keys
        try codec.verify(keys: keys)
        var items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes?, secrets: ItemSecrets?, deleted: Bool, created: Int64, modified: Int64)] = []
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
            items.append((record.id, record.revision, attributes, secrets, deleted,
                          attributes.created.millisecondsSince1970, attributes.modified.millisecondsSince1970))
        }
        return Opened(codec: codec, keys: keys, codecV2: nil, epochKeys: nil, generation: codec.manifest.generation, items: items)
    }

    /// SPEC.md §10 for format 2: parse, unlock (epoch id checked), authenticate (key history
    /// included), then every overview and every secret part with the rules of both parts.
    static func openV2(_ bytes: [UInt8], key: VaultCredential) throws(FormatError) -> Opened {
        let codec = try VaultFileV2.parse(bytes)
        let keys = try codec.unlock(with: key).keys
        try codec.authenticate(keys: keys)
        let vaultID = codec.header.vaultID
        var items: [(id: ItemID, revision: UInt64, attributes: ItemAttributes?, secrets: ItemSecrets?, deleted: Bool, created: Int64, modified: Int64)] = []
        for record in codec.records {
            let list = try record.openOverviewList(vaultID: vaultID, keys: keys)
            let secretList = try record.openSecretList(vaultID: vaultID, keys: keys, overview: list)
            let scan = CompactOverview.Scan(list)
            func date(_ tag: UInt16) -> Int64 {
                (scan.value(tag) ?? []).withUnsafeBytes { $0.count == 8 ? Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) : 0 }
            }
            if record.isTombstone {
                items.append((record.id, record.revision, nil, nil, true, date(EntryCodec.OverviewTag.created), date(EntryCodec.OverviewTag.modified)))
                continue
            }
            let attributes = try EntryCodec.decodeOverview(list)
            let secrets = try secretList.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) }
            items.append((record.id, record.revision, attributes, secrets, false,
                          attributes.created.millisecondsSince1970, attributes.modified.millisecondsSince1970))
        }
        return Opened(codec: nil, keys: nil, codecV2: codec, epochKeys: keys, generation: codec.generation, items: items)
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

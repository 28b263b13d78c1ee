import CofferStore
import CofferCrypto
import CofferFormat
import CofferVault
/// Entry points for the in-process benchmarks in `Benchmarks/` (package access:
/// not part of the public API). Each runs one hot path exactly as the vault does.
package enum BenchmarkSupport {
    /// Which Argon2id library to run: "automatic", "libsodium" or "libargon2".
    package static func argon2id(password: SecureBytes, salt: [UInt8], parameters: Argon2idParameters,
                                 implementation: String) throws(CofferError) -> SecureBytes {
        let choice: Argon2id.Implementation
        switch implementation {
        case "libsodium": choice = .libsodium
        case "libargon2": choice = .libargon2
        default: choice = .automatic
        }
        return try Argon2id.derive(password: password, salt: salt, parameters: parameters, implementation: choice)
    }

    /// Random keys and a vault id, to seal and open entries without a file.
    package final class EntryBench {
        let keys: EpochKeys
        let vaultID: [UInt8]
        package private(set) var sealed: [UInt8] = []
        private var record: RecordV2?
        private var overview: [UInt8] = []

        package init() throws(CofferError) {
            let epochKey = try SecureBytes.random(count: FormatV1.keyLength)
            keys = try formatCall { () throws(FormatError) in try EpochKeys(epochKey: epochKey) }
            vaultID = try SecureRandom.bytes(FormatV1.vaultIDLength)
        }

        /// Seals one entry as a new item is sealed (a clock of one edit); returns the record's size.
        @discardableResult
        package func seal(_ attributes: ItemAttributes, _ secrets: ItemSecrets) throws(CofferError) -> Int {
            let record = try formatCall { () throws(FormatError) -> RecordV2 in
                let list = EntryCodec.encodeOverview(attributes).publicBytes
                let present = try ItemParts.registers(ofOverview: list).union(ItemParts.registers(of: secrets))
                let stamp = Stamp(replica: 1, time: UInt64(max(1, attributes.modified.millisecondsSince1970)) << 16)
                var stamps: [Register: Stamp] = [:]
                for register in Register.all where !register.isKeyed { stamps[register] = stamp }
                for register in present where register.isKeyed { stamps[register] = stamp }
                let clock = ItemClock(versions: VersionVector([stamp.replica: stamp.time]), stamps: stamps)
                let sealed = try RecordV2.sealReturningOverview(id: try ItemID.random(), revision: 1,
                                                                overview: list + (try ItemClockCodec.encode(clock, present: present, style: .version2)),
                                                                secrets: EntryCodec.encodeSecrets(secrets), vaultID: vaultID, keys: keys, entropy: .system)
                overview = sealed.overview
                return sealed.record
            }
            self.record = record
            return record.body.count
        }

        /// Opens the last sealed entry's overview and secret part.
        package func openLast() throws(CofferError) -> (ItemAttributes, ItemSecrets) {
            guard let record else { throw .invalidArgument("nothing sealed yet") }
            return try formatCall { () throws(FormatError) in
                let list = try record.openOverviewList(vaultID: vaultID, keys: keys)
                return (try EntryCodec.decodeOverview(list), try record.openSecrets(vaultID: vaultID, keys: keys, overview: list))
            }
        }
    }

    /// A vault file read and parsed once, to time the steps of `Vault.open` after the KDF.
    package final class OpenBench {
        let bytes: [UInt8]
        let keys: EpochKeys

        /// `rawKey` must open one of the file's raw-key slots.
        package init(path: String, rawKey: SecureBytes) throws(CofferError) {
            let bytes = try storeCall { () throws(StoreError) in try VaultFileStore(path: path).read().bytes }
            self.bytes = bytes
            keys = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes).unlock(with: .rawKey(rawKey)).keys }
        }

        package var entryCount: Int { (try? VaultFileV2.parse(bytes).records.count) ?? 0 }

        /// Steps 1–9 of SPEC.md §10: structure, no key.
        package func parse() throws(CofferError) { _ = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes) } }

        /// Steps 11–12: header MAC, key history and manifest MAC.
        package func verify() throws(CofferError) { _ = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes).authenticate(keys: keys) } }

        /// Decrypting and decoding every overview, as an open does; returns how many.
        package func decodeOverviews() throws(CofferError) -> Int {
            let codec = try formatCall { () throws(FormatError) in try VaultFileV2.parse(bytes) }
            let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            return snapshot.entries.count
        }

        /// Encoding the whole file again, as a save does (no write).
        package func encode() throws(CofferError) -> Int {
            return try formatCall { () throws(FormatError) in
                let codec = try VaultFileV2.parse(bytes)
                return try VaultFileV2.encode(header: codec.header, generation: codec.generation + 1,
                                              records: codec.records, keys: keys).count
            }
        }
    }
}

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
        let keys: VaultKeys
        let vaultID: [UInt8]
        package private(set) var sealed: [UInt8] = []
        private var record: EntryRecord?

        package init() throws(CofferError) {
            let vaultKey = try SecureBytes.random(count: FormatV1.keyLength)
            keys = try formatCall { () throws(FormatError) in try VaultKeys(vaultKey: vaultKey) }
            vaultID = try SecureRandom.bytes(FormatV1.vaultIDLength)
        }

        /// Seals one entry as `VaultTransaction.add` does; returns the record's size.
        @discardableResult
        package func seal(_ attributes: ItemAttributes, _ secrets: ItemSecrets) throws(CofferError) -> Int {
            let record = try formatCall { () throws(FormatError) in 
                try EntryRecord.seal(id: try ItemID.random(), revision: 1, attributes: attributes, secrets: secrets,
                                     vaultID: vaultID, keys: keys, entropy: .system)
            }
            self.record = record
            return record.body.count
        }

        /// Opens the last sealed entry's overview and secret part.
        package func openLast() throws(CofferError) -> (ItemAttributes, ItemSecrets) {
            guard let record else { throw .invalidArgument("nothing sealed yet") }
            return try formatCall { () throws(FormatError) in (try record.openOverview(vaultID: vaultID, keys: keys), try record.openSecrets(vaultID: vaultID, keys: keys)) }
        }
    }

    /// A vault file read and parsed once, to time the steps of `Vault.open` after the KDF.
    package final class OpenBench {
        let bytes: [UInt8]
        let keys: VaultKeys

        /// `rawKey` must open one of the file's raw-key slots.
        package init(path: String, rawKey: SecureBytes) throws(CofferError) {
            let bytes = try storeCall { () throws(StoreError) in try VaultFileStore(path: path).read().bytes }
            self.bytes = bytes
            keys = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes).unlock(with: .rawKey(rawKey)).keys }
        }

        package var entryCount: Int { (try? VaultFile.parse(bytes).records.count) ?? 0 }

        /// Steps 1–9 of SPEC.md §10: structure, no key.
        package func parse() throws(CofferError) { _ = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) } }

        /// Steps 11–14: header and manifest MACs, every record's digest.
        package func verify() throws(CofferError) { try formatCall { () throws(FormatError) in try VaultFile.parse(bytes).verify(keys: keys) } }

        /// Decrypting and decoding every overview, as an open does; returns how many.
        package func decodeOverviews() throws(CofferError) -> Int {
            let codec = try formatCall { () throws(FormatError) in try VaultFile.parse(bytes) }
            let snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            return snapshot.entries.count
        }

        /// Encoding the whole file again, as a save does (no write).
        package func encode() throws(CofferError) -> Int {
            return try formatCall { () throws(FormatError) in 
                let codec = try VaultFile.parse(bytes)
                return try VaultFile.encode(header: codec.header, generation: codec.manifest.generation + 1,
                                            records: codec.records, keys: keys).count
            }
        }
    }
}

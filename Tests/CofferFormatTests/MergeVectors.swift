import Foundation
import CofferCrypto
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

#if DEBUG
/// Three replicas of one vault edited apart (SPEC.md §15.3, `merge-*.vec`): made through the
/// vault API with seeded randomness and a ticking clock, so regenerating gives the same bytes.
enum MergeVectors {
    static let rawKey: [UInt8] = Array(0x00...0x1F)
    /// The merge vectors of version 1, kept as written then (no longer generated).
    static let versionOneNames: Set<String> = ["merge-replica-a.vec", "merge-replica-b.vec", "merge-replica-c.vec"]

    typealias Ticker = CofferTestSupport.Ticker

    static func open(_ path: String, _ label: String, _ ticker: Ticker) throws -> Vault {
        let options = VaultOptions(kdf: VectorCatalog.tinyKDF, keepsBackup: false, replicaState: .none)
        let vault = try Vault.open(at: path, credential: .rawKey(try SecureBytes(copying: rawKey)), options: options,
                                   entropy: SeededRandom("coffer vector: \(label)").entropy)
        vault.wallClock = WallClock { ticker.next() }
        return vault
    }

    static func build() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            let options = VaultOptions(kdf: VectorCatalog.tinyKDF, keepsBackup: false, replicaState: .none)
            let base = try Vault.create(at: path("a"), credentials: [.rawKey(try SecureBytes(copying: rawKey))], options: options,
                                        entropy: SeededRandom("coffer vector: merge base").entropy, clock: WallClock { VectorCatalog.t1 })
            base.wallClock = WallClock { ticker.next() }
            func item(_ service: String, _ password: String) throws -> ItemID {
                try base.add(ItemAttributes(kind: .genericPassword, service: service, account: "me",
                                            created: Date(millisecondsSince1970: VectorCatalog.t0)),
                             secrets: ItemSecrets(password: try SecureBytes(copying: password))).id
            }
            let bank = try item("bank", "b0"), mail = try item("mail", "m0"), shop = try item("shop", "s0")
            for name in ["b", "c"] { try FileManager.default.copyItem(atPath: path("a"), toPath: path(name)) }
            let a = try open(path("a"), "merge a", ticker), b = try open(path("b"), "merge b", ticker)
            let c = try open(path("c"), "merge c", ticker)
            // A: the bank's label and password, a new item, deletes the shop.
            try a.update(bank) { attributes, secrets in
                attributes.label = "Bank (A)"
                secrets.password = try SecureBytes(copying: "b-A")
            }
            try a.add(ItemAttributes(kind: .genericPassword, service: "from-a", account: "me",
                                     created: Date(millisecondsSince1970: VectorCatalog.t1)))
            try a.delete(shop)
            // B: the bank's password again (later: it wins), its notes, a custom field of the mail, a key slot.
            try b.update(bank) { _, secrets in
                secrets.password = try SecureBytes(copying: "b-B")
                secrets.notes = try SecureBytes(copying: "notes from B")
            }
            try b.update(mail) { attributes, _ in attributes.fields.append(CustomField(name: "hint", value: "from B")) }
            try b.addKeySlot(.rawKey(try SecureBytes(copying: Array(0x20...0x3F))))
            // C: edits the shop A deleted (it comes back), another custom field of the mail, the bank's label (latest: wins).
            try c.update(shop) { attributes, _ in attributes.comment = "kept by C" }
            try c.update(mail) { attributes, _ in attributes.fields.append(CustomField(name: "recovery", value: "from C")) }
            try c.update(bank) { attributes, _ in attributes.label = "Bank (C)" }

            try FileManager.default.copyItem(atPath: path("a"), toPath: path("result"))
            let result = try open(path("result"), "merge result", ticker)
            try result.merge(contentsOf: path("b"))
            try result.merge(contentsOf: path("c"))
            let merged = try MergedVault(result)
            let names = ["a", "b", "c"].map { "v2-merge-replica-\($0).vec" }
            let comments = [
                "replica A: the bank's label and password changed, an item added, the shop deleted",
                "replica B: the bank's password (later than A's) and notes, a custom field of the mail, a raw-key slot added",
                "replica C: the deleted shop edited, another custom field of the mail, the bank's label (latest)",
            ]
            let replicas = try ["a", "b", "c"].enumerated().map { index, name in
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
                let opened = try FormatReader.open(bytes, key: .rawKey(try SecureBytes(copying: rawKey)))
                return VectorFile(name: names[index], expect: .success, rawKey: rawKey, generation: opened.generation,
                                  comment: comments[index], entries: opened.entries,
                                  mergeWith: index == 0 ? Array(names.dropFirst()) : nil, merged: index == 0 ? merged : nil,
                                  bytes: bytes)
            }
            return replicas + (try refused(a: replicas[0], b: replicas[1], bank: bank, mail: mail))
        }
    }

    /// Copies a merge refuses (`merge-refused`, SPEC.md §15.1), each a replica with one record
    /// sealed again by a writer that holds the key: each file opens alone, and merging it with
    /// the replica it lists, either way, is refused as malformed.
    static func refused(a: VectorFile, b: VectorFile, bank: ItemID, mail: ItemID) throws -> [VectorFile] {
        /// `replica` with item `id`'s record replaced by `edit` of its state, sealed with `entropy`.
        func forged(_ replica: VectorFile, _ id: ItemID, entropy: (RecordV2) -> EntropySource,
                    _ edit: (inout ItemState) throws -> Void) throws -> [UInt8] {
            let codec = try VaultFileV2.parse(replica.bytes)
            let keys = try VaultFileV2.unlock(codec.header, with: .rawKey(try SecureBytes(copying: rawKey))).keys
            let record = try requireValue(codec.records.first { $0.id == id }, "no record \(id.hex)")
            let sealer = ItemSealer(vaultID: codec.header.vaultID, keys: keys, entropy: entropy(record))
            var state = try sealer.open(try ItemVersion(record: record, overview: try record.openOverviewList(vaultID: codec.header.vaultID, keys: keys)))
            try edit(&state)
            let sealed = try sealer.seal(state, id: id, revision: record.revision).record
            return try VaultFileV2.encode(header: codec.header, generation: codec.generation,
                                          records: codec.records.map { $0.id == id ? sealed : $0 }, keys: keys).bytes
        }
        // B's bank with another account under the stamp A's bank holds it under (both kept the
        // base vault's): B and A edited the bank apart, so the merge meets two values of one stamp.
        let account = Array("forged".utf8)
        let twoContents = try forged(b, bank, entropy: { _ in SeededRandom("coffer vector: merge refused stamp").entropy }) { state in
            state.parts.overview[.account] = [4, 0] + withUnsafeBytes(of: UInt32(account.count).littleEndian, Array.init) + account
        }
        // A's mail sealed again under its own nonce, one date moved: another record under one nonce.
        let nonceReused = try forged(a, mail, entropy: { RepeatedBytes($0.identity.bytes).entropy }) { state in
            state.parts.modified += 1000
        }
        return try [
            ("v2-merge-refused-two-contents-one-stamp.vec", twoContents,
             "replica B with the bank's account forged under the stamp replica A holds it under; merged with A either way: malformed"),
            ("v2-merge-refused-nonce-reused.vec", nonceReused,
             "replica A with the mail sealed again under its own nonce, its modification date moved; merged with A either way: malformed"),
        ].map { name, bytes, comment in
            let opened = try FormatReader.open(bytes, key: .rawKey(try SecureBytes(copying: rawKey)))
            var vector = VectorFile(name: name, expect: .success, rawKey: rawKey, generation: opened.generation, comment: comment,
                                    entries: opened.entries, mergeWith: [a.name], bytes: bytes)
            vector.mergeRefused = .malformed
            return vector
        }
    }
}
#endif

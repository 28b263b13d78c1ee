import Foundation
import CofferFormat
@testable import CofferVault
import CofferTestSupport

#if DEBUG
/// Three replicas of one vault edited apart (SPEC.md §15.3, `merge-*.vec`): made through the
/// vault API with seeded randomness and a ticking clock, so regenerating gives the same bytes.
enum MergeVectors {
    static let rawKey: [UInt8] = Array(0x00...0x1F)
    /// The merge vectors of version 1, kept as written then (no longer generated).
    static let versionOneNames: Set<String> = ["merge-replica-a.vec", "merge-replica-b.vec", "merge-replica-c.vec"]

    /// A clock that starts at `start` and moves one second per reading.
    final class Ticker: @unchecked Sendable {
        private let lock = NSLock()
        private var ms: Int64
        init(_ start: Int64) { ms = start }
        func next() -> Int64 { lock.lock(); defer { lock.unlock() }; ms += 1000; return ms }
    }

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
            return try ["a", "b", "c"].enumerated().map { index, name in
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path(name))))
                let opened = try FormatReader.open(bytes, key: .rawKey(try SecureBytes(copying: rawKey)))
                return VectorFile(name: names[index], expect: .success, rawKey: rawKey, generation: opened.generation,
                                  comment: comments[index], entries: opened.entries,
                                  mergeWith: index == 0 ? Array(names.dropFirst()) : nil, merged: index == 0 ? merged : nil,
                                  bytes: bytes)
            }
        }
    }
}
#endif

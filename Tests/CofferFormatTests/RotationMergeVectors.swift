import Foundation
import CofferFormat
@testable import CofferVault
import CofferTestSupport

#if DEBUG
/// Merges across a key rotation (SPEC.md §17.8, §15.3, `v2-merge-rotation-*.vec`): made through
/// the vault API with seeded randomness and a ticking clock, as ``MergeVectors`` are. Each
/// vector's `merged` is the result of merging its `merge-with` files into it in that order
/// (this file first): across a rotation the result depends on which side holds the key.
///
/// - `old` / `new`: two copies of one vault; `new` is rekeyed, then adds an item; `old`
///   (still under the earlier key) renames the mail before the rotation and writes the
///   bank's notes after it. Merged into `old`, `new` is a successor (case 2): `old` moves to
///   the new key with both sides' edits. Merged into `new`, `old` is older (case 3): the
///   rename merges, the notes are held.
/// - `concurrent-a` / `concurrent-b`: each copy edits, then rotates apart (case 4 both ways).
enum RotationMergeVectors {
    static func build() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = MergeVectors.Ticker(VectorCatalog.t1 + 3_600_000)
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            let options = VaultOptions(kdf: VectorCatalog.tinyKDF, keepsBackup: false, replicaState: .none)
            let key = { try SecureBytes(copying: MergeVectors.rawKey) }
            let base = try Vault.create(at: path("base"), credentials: [.rawKey(try key())], options: options,
                                        entropy: SeededRandom("coffer vector: rotation base").entropy,
                                        clock: WallClock { VectorCatalog.t1 })
            base.wallClock = WallClock { ticker.next() }
            func item(_ service: String, _ password: String) throws -> ItemID {
                try base.add(ItemAttributes(kind: .genericPassword, service: service, account: "me",
                                            created: Date(millisecondsSince1970: VectorCatalog.t0)),
                             secrets: ItemSecrets(password: try SecureBytes(copying: password))).id
            }
            let bank = try item("bank", "b0"), mail = try item("mail", "m0")
            for name in ["old", "new", "concurrent-a", "concurrent-b"] { try FileManager.default.copyItem(atPath: path("base"), toPath: path(name)) }

            let old = try MergeVectors.open(path("old"), "rotation old", ticker)
            let new = try MergeVectors.open(path("new"), "rotation new", ticker)
            try old.update(mail) { attributes, _ in attributes.label = "Mail (renamed before the rekey)" }
            try new.rotateKey()
            try new.add(ItemAttributes(kind: .genericPassword, service: "after-rekey", account: "me",
                                       created: Date(millisecondsSince1970: VectorCatalog.t1)))
            try old.update(bank) { _, secrets in secrets.notes = try SecureBytes(copying: "held: written under the earlier key after the rekey") }

            let a = try MergeVectors.open(path("concurrent-a"), "rotation concurrent a", ticker)
            let b = try MergeVectors.open(path("concurrent-b"), "rotation concurrent b", ticker)
            try a.update(bank) { attributes, _ in attributes.label = "Bank (A)" }
            try b.update(mail) { attributes, _ in attributes.comment = "from B" }
            try a.rotateKey()
            try b.rotateKey()

            /// `into` with `others` merged in, in order, on copies (the vector files stay as they are).
            func merged(_ into: String, _ others: [String]) throws -> MergedVault {
                let result = path(into + "-result")
                try FileManager.default.copyItem(atPath: path(into), toPath: result)
                let vault = try MergeVectors.open(result, "rotation result \(into)", ticker)
                for other in others { try vault.merge(contentsOf: path(other)) }
                return try MergedVault(vault)
            }
            func name(_ file: String) -> String { "v2-merge-rotation-\(file).vec" }
            let cases: [(String, String, String)] = [
                ("old", "new", "copy under the earlier key: the mail renamed before the rekey, the bank's notes written after it; "
                    + "merged with the rekeyed copy it is a successor (SPEC.md §17.8 case 2): this copy moves to the new key, every edit kept"),
                ("new", "old", "the rekeyed copy, an item added after; merged with the copy under the earlier key (case 3): "
                    + "the rename merges, the notes written after the rekey are held, no slot or clock of that copy enters"),
                ("concurrent-a", "concurrent-b", "the bank's label, then a rekey apart from B; merged with B (case 4): B's comment merges, "
                    + "B's key joins the key history"),
                ("concurrent-b", "concurrent-a", "the mail's comment, then a rekey apart from A; merged with A (case 4)"),
            ]
            return try cases.map { file, other, comment in
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path(file))))
                let opened = try FormatReader.open(bytes, key: .rawKey(try key()))
                return VectorFile(name: name(file), expect: .success, rawKey: MergeVectors.rawKey, generation: opened.generation,
                                  comment: comment, entries: opened.entries, mergeWith: [name(other)], merged: try merged(file, [other]),
                                  bytes: bytes)
            }
        }
    }
}
#endif

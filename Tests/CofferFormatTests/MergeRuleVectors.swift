import Foundation
import CofferCrypto
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

#if DEBUG
/// Merge vectors for the rules of SPEC.md §17.4–§17.6 that the three replicas of
/// ``MergeVectors`` do not show, a few replicas each (§15.3, `v2-merge-<rule>-*.vec`): made
/// through the vault API (and, for files a writer of today cannot make, the format code) with
/// seeded randomness and fixed clocks, so that regenerating gives the same bytes. Each
/// success family lists its `merged` result (on its first file), which merging its files pairwise in every order
/// must give; each `v2-merge-refused-*` pair is refused either way, each
/// `v2-merge-rotation-refused-*` pair when its second file is merged into its first.
///
/// - `deletion`: a tombstone that stays deleted (its deletion vector dominates the other
///   copy's version), and one item deleted on both copies.
/// - `removal`: values removed (a URL, a custom field: a keyed register, a comment) against
///   a copy that kept or edited them: a removal stays removed, wins over an earlier edit (the
///   edit a conflict), and loses to a later one (the removal a conflict, value `""`).
/// - `slots`: a key slot removed on one copy (without a rotation) and one added on the other:
///   the removal is kept whatever the order, the added slot joins.
/// - `history`: two copies that replace one item's password at the same milliseconds: the
///   history's union and its order among equal dates, a password replaced on both at two
///   dates shown once, and the winner of two stamps of one time (the larger replica id).
/// - `legacy`: version-1 records without merge fields (§17.6): two different records of one
///   item are concurrent, the same record merges as itself, and a copy the vault upgraded
///   (its legacy clock written out) merges with both.
/// - refused: a merge that would leave no key slot, more than 32, or more removed slots than
///   a writer keeps (§17.4): class `slot limit`; across epochs (§17.8), a successor without
///   the vault's slot and a copy of a foreign epoch: class `other epoch`.
enum MergeRuleVectors {
    typealias Ticker = CofferTestSupport.Ticker

    static var rawKey: [UInt8] { MergeVectors.rawKey }
    static let options = VaultOptions(kdf: VectorCatalog.tinyKDF, keepsBackup: false, replicaState: .none)

    static func build() throws -> [VectorFile] {
        try deletion() + erasure() + removal() + keyed() + slots() + history() + clearing() + legacy() + refused() + refusedAcrossEpochs()
    }

    // MARK: Families

    static func deletion() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "deletion", ticker: ticker)
            let bank = try add(base, "bank", "b0"), mail = try add(base, "mail", "m0"), shop = try add(base, "shop", "s0")
            let (a, b) = try (copy(dir, "a", "deletion", ticker), copy(dir, "b", "deletion", ticker))
            try a.delete(shop)
            try a.delete(mail)
            try b.delete(mail)
            try b.update(bank) { attributes, _ in attributes.label = "Bank (B)" }
            return try family(dir, "deletion", ["a", "b"], ticker: ticker, comments: [
                "replica A: the shop and the mail deleted (tombstones)",
                "replica B: the mail deleted too, then the bank's label; the shop untouched, so A's deletion of it stays (its deletion vector dominates B's version)",
            ])
        }
    }

    /// §17.5 "Erasure and resurrection": B writes the site's notes; A renames it, merges B,
    /// then deletes it (its deletion has seen both); C writes its comment apart from both, so
    /// the site comes back. B's notes, which only versions the deletion had seen held, are
    /// erased in every order: merged with B's copy after A's tombstone, their confirmation
    /// vector reduced by the deletion is empty (§17.5 step 3). The label A renamed does not
    /// come back, and its new value is erased ("What does not come back").
    static func erasure() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "erasure", ticker: ticker)
            let site = try base.add(ItemAttributes(kind: .genericPassword, label: "L0", service: "site", account: "me", comment: "C0",
                                                   created: Date(millisecondsSince1970: VectorCatalog.t0)),
                                    secrets: ItemSecrets(password: try SecureBytes(copying: "p0"))).id
            let (a, b, c) = try (copy(dir, "a", "erasure", ticker), copy(dir, "b", "erasure", ticker), copy(dir, "c", "erasure", ticker))
            try b.update(site) { _, secrets in secrets.notes = try SecureBytes(copying: "notes from B") }
            try a.update(site) { attributes, _ in attributes.label = "L1" }
            try a.merge(contentsOf: dir.appendingPathComponent("b").path)
            try a.delete(site)
            try c.update(site) { attributes, _ in attributes.comment = "comment from C" }
            // C then takes B's notes: its file holds them with B's confirmation vector (not
            // the default: C's own edit had not seen them), which A's deletion covers.
            try c.merge(contentsOf: dir.appendingPathComponent("b").path)
            return try family(dir, "erasure", ["a", "b", "c"], ticker: ticker, comments: [
                "replica A: the site's label L0 renamed L1, B merged in, then the site deleted (the deletion has seen the rename and B's notes)",
                "replica B: the site's notes written; merged after A's tombstone in any order, their reduced confirmation vector is empty: erased",
                "replica C: the site's comment written apart from A and B, then B merged in (B's notes held with B's confirmation vector): "
                    + "the site comes back with C's comment and password p0, without a label (L0 was replaced before the deletion, "
                    + "L1 is erased) and without B's notes (their confirmation, reduced by A's deletion, is empty)",
            ])
        }
    }

    /// §17.5 "Clearing the history": a clear on one copy and a password changed on another
    /// after it: the cleared entry stays cleared (remove-wins), the later one is kept.
    static func clearing() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "clearing", ticker: ticker)
            let vpn = try add(base, "vpn", "p0")
            try base.update(vpn) { _, secrets in secrets.password = try SecureBytes(copying: "p1") }
            let (a, b) = try (copy(dir, "a", "clearing", ticker), copy(dir, "b", "clearing", ticker))
            _ = try a.clearPasswordHistory(for: vpn)
            try b.update(vpn) { _, secrets in secrets.password = try SecureBytes(copying: "p2") }
            return try family(dir, "clearing", ["a", "b"], ticker: ticker, comments: [
                "replica A: the vpn's password history (p0) cleared",
                "replica B: the vpn's password p1 → p2, after A's clear and apart from it: p0 stays cleared whatever B held, p1 (replaced "
                    + "after the clear) is kept",
            ])
        }
    }

    static func removal() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "removal", ticker: ticker)
            let site = try base.add(ItemAttributes(kind: .genericPassword, service: "site", account: "me", comment: "base comment",
                                                   urls: ["https://site.example"],
                                                   fields: [CustomField(name: "hint", value: "h0"), CustomField(name: "pin", value: "p0")],
                                                   created: Date(millisecondsSince1970: VectorCatalog.t0)),
                                    secrets: ItemSecrets(password: try SecureBytes(copying: "s0"), notes: try SecureBytes(copying: "base notes"))).id
            let (a, b) = try (copy(dir, "a", "removal", ticker), copy(dir, "b", "removal", ticker))
            // In this order on one ticking clock: B's comment, then A's removals, then B's notes and pin.
            try b.update(site) { attributes, _ in attributes.comment = "comment from B" }
            try a.update(site) { attributes, secrets in
                attributes.urls = []
                attributes.comment = nil
                attributes.fields.removeAll { $0.name == "hint" }
                secrets.notes = nil
            }
            try b.update(site) { attributes, secrets in
                secrets.notes = try SecureBytes(copying: "notes from B")
                if let index = attributes.fields.firstIndex(where: { $0.name == "pin" }) { attributes.fields[index].value = "p1" }
            }
            return try family(dir, "removal", ["a", "b"], ticker: ticker, comments: [
                "replica A: the URL, the comment, the custom field hint (a keyed register) and the notes removed, after B's comment and before B's notes",
                "replica B: the comment edited (before A's removal of it: the removal wins, the edit a conflict), then the notes (after A's removal of them: "
                    + "the notes win, the removal a conflict with value \"\") and the custom field pin; the URL and hint untouched, so they stay removed",
            ])
        }
    }

    /// Keyed registers in conflict (§17.2, §17.3): a custom field and a secret field written on
    /// both copies, each copy's other fields apart; the later value wins, the other is a
    /// conflict named by its field.
    static func keyed() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "keyed", ticker: ticker)
            let site = try base.add(ItemAttributes(kind: .genericPassword, service: "site", account: "me",
                                                   fields: [CustomField(name: "pin", value: "p0"), CustomField(name: "hint", value: "h0")],
                                                   created: Date(millisecondsSince1970: VectorCatalog.t0)),
                                    secrets: ItemSecrets(password: try SecureBytes(copying: "s0"),
                                                         fields: [SecretField(name: "otp", value: try SecureBytes(copying: "o0"))])).id
            let (a, b) = try (copy(dir, "a", "keyed", ticker), copy(dir, "b", "keyed", ticker))
            /// The field named `name` of `fields` set to `value`.
            func set(_ fields: inout [CustomField], _ name: String, _ value: String) {
                if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = value }
            }
            try a.update(site) { attributes, secrets in
                set(&attributes.fields, "pin", "pA")
                secrets.fields = [SecretField(name: "otp", value: try SecureBytes(copying: "oA"))]
            }
            try b.update(site) { attributes, secrets in
                set(&attributes.fields, "pin", "pB")
                set(&attributes.fields, "hint", "hB")
                secrets.fields = [SecretField(name: "otp", value: try SecureBytes(copying: "oB"))]
            }
            return try family(dir, "keyed", ["a", "b"], ticker: ticker, comments: [
                "replica A: the custom field pin and the secret field otp written",
                "replica B, later: pin, otp and the custom field hint written; pin and otp are in conflict (A's values lose, "
                    + "shown as the conflicts fields pin=pA and secret-fields otp=oA), hint merges",
            ])
        }
    }

    static func slots() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let password = { try SecureBytes(copying: "base password") }
            let base = try create(dir, "slots", extra: [.password(try password())], ticker: ticker)
            try add(base, "bank", "b0")
            let (a, b) = try (copy(dir, "a", "slots", ticker), copy(dir, "b", "slots", ticker))
            _ = try a.removeKeySlot(.password(try password()), rotatingKey: false)
            try b.addKeySlot(.rawKey(try SecureBytes(copying: Array(0x20...0x3F))))
            return try family(dir, "slots", ["a", "b"], ticker: ticker, comments: [
                "replica A of a vault with a raw-key and a password slot: the password slot removed (listed in removed slots, no rotation)",
                "replica B: the password slot kept, a raw-key slot added; merged, the password slot stays removed and B's slot joins",
            ])
        }
    }

    static func history() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let base = try create(dir, "history", ticker: ticker)
            let vpn = try add(base, "vpn", "v0")
            let (a, b) = try (copy(dir, "a", "history", ticker), copy(dir, "b", "history", ticker))
            let t2 = VectorCatalog.t1 + 200_000, t3 = VectorCatalog.t1 + 300_000
            /// `vault`'s password of the vpn set to `password` at `ms` (a clock that stands still).
            func replace(_ vault: Vault, _ password: String, at ms: Int64) throws {
                vault.wallClock = WallClock { ms }
                try vault.update(vpn) { _, secrets in secrets.password = try SecureBytes(copying: password) }
            }
            // v0 replaced on both, at two dates; pear and fig replaced at one date; plum and
            // apple written at one time (A's replica id is the larger: plum wins, and apple,
            // shown in the history at that date, sorts before the two entries of the record).
            try replace(a, "pear", at: t2)
            try replace(a, "plum", at: t3)
            try replace(b, "fig", at: t2 + 1000)
            try replace(b, "apple", at: t3)
            return try family(dir, "history", ["a", "b"], ticker: ticker, comments: [
                "replica A: the vpn's password v0 → pear → plum, replaced at t2 and t3",
                "replica B: v0 → fig → apple, at t2 + 1 s and t3: pear and fig share a date; plum and apple share a stamp time, and A's "
                    + "larger replica id wins: apple is a conflict, in the history at t3, before fig and pear (one date: by the password's bytes); "
                    + "v0 is in the history at two dates and shown once, at the later",
            ])
        }
    }

    /// Version-1 files written with the format code (a writer of today writes version 2).
    static func legacy() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            let builder = try FormatVaultBuilder(entropy: SeededRandom("coffer vector: legacy").entropy,
                                                 slots: [(.rawKey(try SecureBytes(copying: rawKey)), VectorCatalog.tinyKDF)])
            let created = Date(millisecondsSince1970: VectorCatalog.t0)
            func attributes(_ service: String, label: String? = nil) -> ItemAttributes {
                ItemAttributes(kind: .genericPassword, label: label, service: service, account: "me", created: created, modified: created)
            }
            let mail = try builder.newID(), bank = try builder.newID()
            try builder.put(mail, revision: 1, attributes("mail"), ItemSecrets(password: try SecureBytes(copying: "m0")))
            try builder.put(bank, revision: 2, attributes("bank", label: "Bank (A)"), ItemSecrets(password: try SecureBytes(copying: "b0")))
            builder.generation = 2
            try Data(try builder.bytes()).write(to: URL(fileURLWithPath: path("a")))
            try builder.put(bank, revision: 2, attributes("bank"), ItemSecrets(password: try SecureBytes(copying: "b-B")))
            try Data(try builder.bytes()).write(to: URL(fileURLWithPath: path("b")))
            let c = try copy(dir, "c", from: "a", "legacy", ticker)
            try c.update(mail) { _, secrets in secrets.password = try SecureBytes(copying: "m-C") }
            return try family(dir, "legacy", ["a", "b", "c"], ticker: ticker, comments: [
                "replica A, version 1 without merge fields: the mail as written, the bank at revision 2 with a label",
                "replica B, version 1: the same mail record, the bank at revision 2 another way (no label, another password): "
                    + "two different records without merge fields are concurrent (§17.6), so every register keeps both values",
                "replica C: A opened by the vault and the mail's password changed, saved in version 2 (the bank's legacy clock written out)",
            ])
        }
    }

    /// Merges refused with class `slot limit` (§17.4): no key slot left, more than 32, or more
    /// removed slots than a writer keeps.
    static func refused() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            var out: [VectorFile] = []
            func pair(_ rule: String, keys: [[UInt8]] = [rawKey, rawKey], _ comments: [String]) throws {
                out += try refusedPair(dir, "v2-merge-refused-\(rule)", keys: keys, refusing: 1, .slotLimit, comments)
            }
            let secondKey = Array(UInt8(0x20)...UInt8(0x3F))
            let second = { try SecureBytes(copying: secondKey) }

            // Each copy removes the slot the other keeps.
            let noSlot = try create(dir, "no slot", name: "no-slot", extra: [.rawKey(try second())], ticker: ticker)
            try add(noSlot, "bank", "b0")
            let (a, b) = try (copy(dir, "no-slot-a", from: "no-slot", "no slot", ticker), copy(dir, "no-slot-b", from: "no-slot", "no slot", ticker))
            _ = try a.removeKeySlot(.rawKey(try second()), rotatingKey: false)
            _ = try b.removeKeySlot(.rawKey(try SecureBytes(copying: rawKey)), rotatingKey: false)
            try pair("no-slot", keys: [rawKey, secondKey], [
                "a vault with two raw-key slots, the second removed (no rotation); it opens with the first",
                "the same vault, the first slot removed instead (it opens with the second raw key, 0x20…0x3f); merged with A either way: no slot would be left, refused as slot limit",
            ])

            // 1 + 16 + 16 slots.
            let many = try create(dir, "many slots", name: "many", ticker: ticker)
            try add(many, "bank", "b0")
            let (c, d) = try (copy(dir, "too-many-slots-a", from: "many", "many slots", ticker), copy(dir, "too-many-slots-b", from: "many", "many slots", ticker))
            for index in 0..<16 {
                try c.addKeySlot(.rawKey(try SecureBytes(copying: [UInt8](repeating: UInt8(0x40 + index), count: 32))))
                try d.addKeySlot(.rawKey(try SecureBytes(copying: [UInt8](repeating: UInt8(0x60 + index), count: 32))))
            }
            try pair("too-many-slots", [
                "a vault with a raw-key slot and 16 raw-key slots added",
                "the same vault with 16 other raw-key slots added; merged with A either way: 33 slots, refused as slot limit",
            ])

            // Each copy lists the most removed slots a writer keeps, one of them different.
            let removed = try create(dir, "removed slots", name: "removed", ticker: ticker)
            try add(removed, "bank", "b0")
            let source = Array(try Data(contentsOf: URL(fileURLWithPath: path("removed"))))
            let file = try VaultFileV2.parse(source)
            let keys = try VaultFileV2.unlock(file.header, with: .rawKey(try SecureBytes(copying: rawKey))).keys
            let entropy = SeededRandom("coffer vector: removed slots").entropy
            let limit = VaultHeaderV2.maxRemovedSlots
            // Times 1, 2, …: strictly ascending by (time, identity).
            let shared = try (0..<(limit - 1)).map { RemovedKeySlot(identity: try entropy.bytes(16), time: UInt64($0 + 2)) }
            for (name, extra) in [("a", try entropy.bytes(16)), ("b", try entropy.bytes(16))] {
                var header = file.header
                header.removedSlots = [RemovedKeySlot(identity: extra, time: 1)] + shared
                let bytes = try VaultFileV2.encode(header: header, generation: file.generation, records: file.records, keys: keys).bytes
                try Data(bytes).write(to: URL(fileURLWithPath: path("removed-slots-\(name)")))
            }
            try pair("removed-slots", [
                "a vault listing \(limit) removed key slots, the most a writer keeps",
                "the same vault listing \(limit) removed slots, one of them another; merged with A either way: \(limit + 1) removals, "
                    + "more than a writer keeps (keeping the newest would forget one), refused as slot limit",
            ])
            return out
        }
    }

    /// Merges refused across epochs (§17.8), class `other epoch`, when the copy listed is
    /// merged into the vector (`v2-merge-rotation-refused-*`: the other way may merge).
    ///
    /// - `successor`: the copy removed the slot that opened this vault and rotated (case 2:
    ///   a successor is opened only through that slot). Merged the other way, this vault is
    ///   an older copy (case 3) and merges.
    /// - `foreign`: the copy opens through this vault's slot (its stanza made from the public
    ///   part for another key) and shares no earlier epoch (case 4).
    static func refusedAcrossEpochs() throws -> [VectorFile] {
        try withTemporaryDirectory { dir in
            let ticker = Ticker(VectorCatalog.t1)
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            let secondKey = Array(UInt8(0x20)...UInt8(0x3F))
            var out: [VectorFile] = []
            func pair(_ rule: String, keys: [[UInt8]], _ comments: [String]) throws {
                out += try refusedPair(dir, "v2-merge-rotation-refused-\(rule)", keys: keys, refusing: 0, .otherEpoch, comments)
            }

            let base = try create(dir, "successor", name: "successor", extra: [.rawKey(try SecureBytes(copying: secondKey))], ticker: ticker)
            try add(base, "bank", "b0")
            let (a, b) = try (copy(dir, "successor-a", from: "successor", "successor", ticker),
                              copy(dir, "successor-b", from: "successor", "successor", ticker))
            try a.update(try requireValue(a.items().first?.id, "no item")) { attributes, _ in attributes.label = "Bank (A)" }
            _ = try b.removeKeySlot(.rawKey(try SecureBytes(copying: rawKey)))
            try pair("successor", keys: [rawKey, secondKey], [
                "a vault with two raw-key slots, opened by the first; the bank labelled. Merging B into it is refused as other epoch: "
                    + "B is a successor (§17.8 case 2) without the slot that opened this vault",
                "the same vault with the first raw-key slot removed and the key rotated (it opens with the raw key 0x20…0x3f); "
                    + "merged the other way, A is an older copy (case 3) and merges",
            ])

            // A copy rotated by the format code, its key history left out: it opens through the
            // same slot (a stanza is made from the public part alone) and shares no epoch.
            let foreign = try create(dir, "foreign", name: "foreign-a", ticker: ticker)
            try add(foreign, "bank", "b0")
            let source = Array(try Data(contentsOf: URL(fileURLWithPath: path("foreign-a"))))
            let file = try VaultFileV2.parse(source)
            let keys = try VaultFileV2.unlock(file.header, with: .rawKey(try SecureBytes(copying: rawKey))).keys
            let stamp = Stamp(replica: 0x0F0F_0F0F_0F0F_0F0F, time: UInt64(VectorCatalog.t1 + 86_400_000) << 16)
            let rotated = try EpochRotation.rotate(header: file.header, records: file.records, keys: keys, at: stamp,
                                                   entropy: SeededRandom("coffer vector: foreign epoch").entropy, threads: 1)
            var header = rotated.header
            header.extensions.removeAll { $0.type == KeyHistory.extensionType }
            let bytes = try VaultFileV2.encode(header: header, generation: file.generation + 1, records: rotated.records, keys: rotated.keys).bytes
            try Data(bytes).write(to: URL(fileURLWithPath: path("foreign-b")))
            try pair("foreign", keys: [rawKey, rawKey], [
                "a vault with one raw-key slot and one item; merging B into it is refused as other epoch: "
                    + "B opens through the same slot but shares no earlier epoch (§17.8 case 4)",
                "the same items under another epoch key, the slot's stanza made from its public part, and no key history",
            ])
            return out
        }
    }

    // MARK: Pieces

    /// The vectors `<name>-a.vec` and `<name>-b.vec` of the files `dir/<rule>-a` and
    /// `dir/<rule>-b` (`rule`: `name` after its last family prefix), each with the raw key of
    /// `keys` that opens it; vector `refusing` lists the other, refused with `outcome`.
    static func refusedPair(_ dir: URL, _ name: String, keys: [[UInt8]], refusing: Int, _ outcome: VectorExpectation,
                            _ comments: [String]) throws -> [VectorFile] {
        let rule = name.replacingOccurrences(of: "v2-merge-rotation-refused-", with: "").replacingOccurrences(of: "v2-merge-refused-", with: "")
        let names = ["a", "b"].map { "\(name)-\($0).vec" }
        return try (0..<2).map { index in
            let bytes = Array(try Data(contentsOf: dir.appendingPathComponent("\(rule)-\(index == 0 ? "a" : "b")")))
            let opened = try FormatReader.open(bytes, key: .rawKey(try SecureBytes(copying: keys[index])))
            var vector = VectorFile(name: names[index], expect: .success, rawKey: keys[index], generation: opened.generation,
                                    comment: comments[index], entries: opened.entries,
                                    mergeWith: index == refusing ? [names[1 - index]] : nil, bytes: bytes)
            if index == refusing { vector.mergeRefused = outcome }
            return vector
        }
    }

    /// A new vault at `dir/<name>` with a raw-key slot and `extra` credentials' slots, dated by `ticker`.
    static func create(_ dir: URL, _ label: String, name: String = "base", extra: [VaultCredential] = [], ticker: Ticker) throws -> Vault {
        let vault = try Vault.create(at: dir.appendingPathComponent(name).path,
                                     credentials: [.rawKey(try SecureBytes(copying: rawKey))] + extra, options: options,
                                     entropy: SeededRandom("coffer vector: \(label) base").entropy, clock: WallClock { VectorCatalog.t1 })
        vault.wallClock = WallClock { ticker.next() }
        return vault
    }

    @discardableResult
    static func add(_ vault: Vault, _ service: String, _ password: String) throws -> ItemID {
        try vault.add(ItemAttributes(kind: .genericPassword, service: service, account: "me",
                                     created: Date(millisecondsSince1970: VectorCatalog.t0)),
                      secrets: ItemSecrets(password: try SecureBytes(copying: password))).id
    }

    /// A copy of `dir/<from>` at `dir/<name>`, opened as its own replica.
    static func copy(_ dir: URL, _ name: String, from: String = "base", _ label: String, _ ticker: Ticker) throws -> Vault {
        let path = dir.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: dir.appendingPathComponent(from).path, toPath: path)
        return try MergeVectors.open(path, "\(label) \(name)", ticker)
    }

    /// The vectors `v2-merge-<family>-<name>.vec` of the replicas `names` in `dir`; the first
    /// lists the others and the result of merging them into it, in order, on a copy.
    static func family(_ dir: URL, _ family: String, _ names: [String], ticker: Ticker, comments: [String]) throws -> [VectorFile] {
        let path = { (name: String) in dir.appendingPathComponent(name).path }
        try FileManager.default.copyItem(atPath: path(names[0]), toPath: path("result"))
        let result = try MergeVectors.open(path("result"), "\(family) result", ticker)
        for other in names.dropFirst() { try result.merge(contentsOf: path(other)) }
        let merged = try MergedVault(result)
        let contents = try names.map { Array(try Data(contentsOf: URL(fileURLWithPath: path($0)))) }
        // A vector's name says its file's format (SPEC.md §15): a version-1 replica has no prefix.
        let files = try names.indices.map { index in
            (try VaultFile.formatVersion(contents[index]) == FormatV2.version ? "v2-" : "") + "merge-\(family)-\(names[index]).vec"
        }
        return try names.indices.map { index in
            let bytes = contents[index]
            let opened = try FormatReader.open(bytes, key: .rawKey(try SecureBytes(copying: rawKey)))
            return VectorFile(name: files[index], expect: .success, rawKey: rawKey, generation: opened.generation, comment: comments[index],
                              entries: opened.entries, mergeWith: index == 0 ? Array(files.dropFirst()) : nil,
                              merged: index == 0 ? merged : nil, bytes: bytes)
        }
    }
}
#endif

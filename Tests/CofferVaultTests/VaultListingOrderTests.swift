import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// `items(matching:)` orders by label (else service, else server), then account, then id,
/// comparing texts by code points after canonical composition (NFC). A listing without
/// pending changes sorts the keys read from the overview bytes before decoding; one with
/// pending changes sorts decoded items. Both compare an 8-byte prefix, then the whole key.
/// These tests hold every path to one reference written without any of that machinery.
@Suite("Vault: listing order")
struct VaultListingOrderTests {
    /// Texts that share long prefixes (past the 8 bytes compared first), differ in case,
    /// are empty, hold a NUL or a space, and, when `unicode`, are not ASCII (including
    /// canonically equivalent spellings, which `String` considers equal).
    static func text(_ random: inout SeededRandom, unicode: Bool) -> String {
        var pieces = ["", "a", "A", "ab", "abcdefgh", "abcdefghi", "abcdefgh\u{0}", "abcdefgh ", "bank.example.com",
                      "bank.example.com/x", "Bank.example.com", "zz", "0", "~"]
        if unicode { pieces += ["é", "e\u{301}", "abcdefghé", "日本", "Ωmega", "abcdefgh\u{301}"] }
        let first = pieces.randomElement(using: &random) ?? ""
        return Bool.random(using: &random) ? first : first + (pieces.randomElement(using: &random) ?? "")
    }

    static func attributes(_ random: inout SeededRandom, unicode: Bool) -> ItemAttributes {
        var attributes: ItemAttributes
        switch Int.random(in: 0..<3, using: &random) {
        case 0: attributes = .genericPassword(service: text(&random, unicode: unicode), account: text(&random, unicode: unicode))
        case 1: attributes = .internetPassword(server: text(&random, unicode: unicode), account: text(&random, unicode: unicode))
        default: attributes = .secureNote(title: text(&random, unicode: unicode))
        }
        if Int.random(in: 0..<4, using: &random) == 0 { attributes.label = text(&random, unicode: unicode) }
        if Int.random(in: 0..<5, using: &random) == 0 { attributes.account = nil }
        if Int.random(in: 0..<6, using: &random) == 0 { attributes.tags = ["t\(Int.random(in: 0..<3, using: &random))"] }
        return attributes
    }

    /// Adds, skipping draws the vault refuses (a duplicate unique key, an empty title or server).
    static func addIfValid(_ tx: VaultTransaction, _ attributes: ItemAttributes) throws {
        do { _ = try tx.add(attributes) } catch CofferError.duplicateItem {} catch CofferError.invalidItem {}
    }

    /// The documented order, spelled out: code points of the NFC form, then the id.
    /// (Not `String`'s `<`, which orders "e\u{301}" and "\u{e9}a" neither way.)
    static func referenceOrder(_ items: [Item]) -> [ItemID] {
        func points(_ text: String?) -> [UInt32] {
            (text ?? "").precomposedStringWithCanonicalMapping.unicodeScalars.map(\.value)
        }
        return items.sorted { a, b in
            let (pa, pb) = (points(a.label ?? a.service ?? a.server), points(b.label ?? b.service ?? b.server))
            if pa != pb { return pa.lexicographicallyPrecedes(pb) }
            let (aa, ab) = (points(a.account), points(b.account))
            if aa != ab { return aa.lexicographicallyPrecedes(ab) }
            return a.id < b.id
        }.map(\.id)
    }

    @Test("Saved, reopened and mid-transaction listings all follow the reference order", arguments: [false, true])
    func orderMatchesReference(unicode: Bool) throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("order.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var random = SeededRandom(seed: unicode ? 2 : 1)
            try vault.transaction { tx in
                for _ in 0..<400 {
                    try Self.addIfValid(tx, Self.attributes(&random, unicode: unicode))
                }
            }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let listed = try reopened.items()
            #expect(listed.count > 100)
            #expect(listed.map(\.id) == Self.referenceOrder(listed))
            #expect(try vault.items().map(\.id) == listed.map(\.id))

            // A limit keeps the first items of the same order; a query keeps its matches in order.
            #expect(try reopened.items(matching: ItemQuery(limit: 7)).map(\.id) == Array(listed.prefix(7)).map(\.id))
            let generic = try reopened.items(matching: ItemQuery(kind: .genericPassword))
            #expect(generic.map(\.id) == listed.filter { $0.kind == .genericPassword }.map(\.id))
            let tagged = try reopened.items(matching: ItemQuery(tag: "t1", limit: 3))
            #expect(tagged.map(\.id) == Array(listed.filter { $0.tags.contains("t1") }.prefix(3)).map(\.id))

            // With pending changes (added, changed, deleted items) inside a transaction.
            try reopened.transaction { tx in
                for _ in 0..<40 {
                    try Self.addIfValid(tx, Self.attributes(&random, unicode: unicode))
                }
                if let first = listed.first { try tx.delete(first.id) }
                if let last = listed.last {
                    _ = try tx.update(last.id) { attributes, _ in attributes.label = "aaaa-moved-first" }
                }
                let pending = try tx.items()
                #expect(pending.map(\.id) == Self.referenceOrder(pending))
                #expect(!pending.contains { $0.id == listed.first?.id })
                #expect(try tx.items(matching: ItemQuery(limit: 5)).map(\.id) == Array(pending.prefix(5)).map(\.id))
            }
            let after = try Vault.open(at: path, password: secure("pw"), options: testOptions).items()
            #expect(after.map(\.id) == Self.referenceOrder(after))
        }
    }

    @Test("Vault.info reads the header alone: it agrees with an open vault, and reports a damaged header")
    func infoFromHeader() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("info.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            for index in 0..<25 { _ = try vault.add(.genericPassword(service: "s\(index)", account: "a")) }
            let info = try Vault.info(at: path)
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(info.entryCount == 25)
            #expect(info.generation == vault.generation)
            #expect(info.fileSize == bytes.count)
            #expect(info.slots.map(\.kind) == vault.slots)

            // Records cut off: info still answers (it reads no record); opening refuses.
            let cut = dir.appendingPathComponent("cut.coffer").path
            try Data(bytes.prefix(bytes.count - 100)).write(to: URL(fileURLWithPath: cut))
            #expect(try Vault.info(at: cut).entryCount == 25)
            #expect(throws: CofferError.self) { try Vault.open(at: cut, password: secure("pw"), options: testOptions) }

            // Cut inside the header, or a changed header byte: the same errors as opening.
            let short = dir.appendingPathComponent("short.coffer").path
            try Data(bytes.prefix(40)).write(to: URL(fileURLWithPath: short))
            #expect(throws: CofferError.truncated) { try Vault.info(at: short) }
            var flipped = bytes
            flipped[20] ^= 0x01
            let damaged = dir.appendingPathComponent("damaged.coffer").path
            try Data(flipped).write(to: URL(fileURLWithPath: damaged))
            #expect(throws: CofferError.tampered(.header)) { try Vault.info(at: damaged) }
            #expect(throws: CofferError.tampered(.header)) { try Vault.open(at: damaged, password: secure("pw"), options: testOptions) }
        }
    }
}

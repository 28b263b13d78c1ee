import Foundation
import Testing
@testable import CofferVault
import CofferFormat
import CofferTestSupport

/// `Vault.listing` reads each row from its overview's bytes: it must list exactly the items,
/// in exactly the order, that decoding every item and sorting it for reading gives.
@Suite("Vault: the listing read from the overviews equals the decoded items sorted for reading")
struct VaultStreamedListingTests {
    func rows(_ listing: ItemListing) throws -> [String] {
        try listing.indices.map { index in
            let row = listing[index]
            let item = try row.item()
            #expect(row.listedName == item.attributes.listedName)
            #expect(row.account == item.attributes.account && row.kind == item.attributes.kind)
            #expect(row.tags == item.attributes.tags && row.isFavorite == item.attributes.isFavorite)
            #expect(row.label == item.attributes.label && row.service == item.attributes.service && row.server == item.attributes.server)
            // The same text as bytes in place (what `coffer list` prints from).
            #expect(row.withListedNameUTF8 { Array($0) } == Array(item.attributes.listedName.utf8))
            #expect(row.withAccountUTF8 { $0.map(Array.init) } == item.attributes.account.map { Array($0.utf8) })
            var tags: [[UInt8]] = []
            row.forEachTagUTF8 { tags.append(Array($0)) }
            #expect(tags == item.attributes.tags.map { Array($0.utf8) })
            // What a table reads of each row in place (`ItemListing.withRowText`), the last
            // rows too (it reads ahead of the row it gives).
            let text = listing.withRowText(at: index) { name, account, isFavorite, kind, tags in
                var each: [[UInt8]] = []
                tags { each.append(Array($0)) }
                return (Array(name), account.map(Array.init), isFavorite, kind, each)
            }
            #expect(text.0 == Array(item.attributes.listedName.utf8) && text.1 == item.attributes.account.map { Array($0.utf8) })
            #expect(text.2 == item.attributes.isFavorite && text.3 == item.attributes.kind)
            #expect(text.4 == item.attributes.tags.map { Array($0.utf8) })
            return "\(row.id.hex) r\(row.revision) \(row.listedName)"
        }
    }

    /// The third vault has more items than one thread takes (`ParallelWork.minimumPerThread`):
    /// its overviews are opened on several threads.
    @Test("Random vaults, every query of `coffer list`, fresh and mid-transaction",
          arguments: [("listing-1", 80), ("listing-2", 80), ("listing-3", 5_000)])
    func equalsDecoded(_ seed: String, count: Int) throws {
        try withTemporaryDirectory { dir in
            var random = SeededRandom(seed)
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            let names = ["item 10", "item 2", "Item 1", "caf\u{e9}", "cafe\u{301}", "Zeta", "alpha", "\u{c9}clair", "beta", "b\u{e9}ta"]
            try vault.transaction { tx in
                for index in 0..<count {
                    let name = names.randomElement(using: &random)!
                    var attributes: ItemAttributes
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: attributes = .genericPassword(service: "\(name) \(index)", account: names.randomElement(using: &random)!)
                    case 1:
                        attributes = .internetPassword(server: "host\(index).example", account: "me", protocol: Bool.random(using: &random) ? "https" : nil,
                                                       port: Bool.random(using: &random) ? 8443 : nil, path: Bool.random(using: &random) ? "/login" : nil)
                    default: attributes = .secureNote(title: name)
                    }
                    if Bool.random(using: &random) { attributes.label = names.randomElement(using: &random)! }
                    if Bool.random(using: &random) { attributes.tags = ["work", "Work/Email"].shuffled(using: &random) }
                    attributes.isFavorite = Bool.random(using: &random)
                    _ = try tx.add(attributes)
                }
            }
            // A limit keeps the first items of the stable order (then in reading order).
            var limited = ItemQuery.all
            limited.limit = count / 3
            let queries = count > 100 ? [ItemQuery.all, ItemQuery(tag: "work"), limited]
                : [ItemQuery.all, ItemQuery(kind: .secureNote), ItemQuery(tag: "work"), ItemQuery(isFavorite: true),
                   ItemQuery(service: "alpha 3"), ItemQuery(server: "host5.example"), limited]
            let fresh = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            for query in queries {
                let expected = try fresh.readableItems(matching: query).items.sortedForReading()
                    .map { "\($0.id.hex) r\($0.revision) \($0.attributes.listedName)" }
                #expect(try rows(fresh.listing(matching: query)) == expected, "\(query)")
                #expect(try rows(vault.listing(matching: query)) == expected, "\(query), on the vault that wrote them")
            }
            // A listing filtered keeps its order and its damaged records.
            let all = try fresh.listing()
            let favorites = all.filtered(\.isFavorite)
            #expect(try rows(favorites) == rows(all).enumerated().filter { all[$0.offset].isFavorite }.map(\.element))
            #expect(favorites.damaged.map(\.id) == all.damaged.map(\.id))
            // With changes pending in a transaction: the same rows as its decoded items.
            try vault.transaction { tx in
                _ = try tx.add(.genericPassword(service: "pending", account: "me"))
                let listed = try rows(tx.listing(matching: .all, locale: .current))
                let decoded = try tx.readableItems().items.sortedForReading().map { "\($0.id.hex) r\($0.revision) \($0.attributes.listedName)" }
                #expect(listed == decoded)
            }
        }
    }
}

/// The reading order's sort (`DisplayOrder.ReadingKeys.order`): ranges sorted on several
/// cores and merged must give exactly the order one sort of the keys gives.
@Suite("Vault: the reading order sorted on several cores")
struct VaultReadingOrderSortTests {
    @Test("10,000 keys with many equal names and accounts (ties to the last rule): the merged runs equal a reference sort",
          arguments: [10_000, 2_047, 1])
    func mergedRunsEqualOneSort(count: Int) {
        var random = SeededRandom("reading-order-\(count)")
        // Names alike in their first 8 or 16 key bytes (the sort's two prefix words), one pair
        // differing at byte 8 and byte 9 the other way round.
        let names = ["alpha", "Alpha", "beta 2", "beta 10", "caf\u{e9}", "cafe\u{301}", "zz", "", "abcdefghij", "abcdefghik",
                     "abcdefghxa", "abcdefghyZ", "abcdefghijklmnopb", "abcdefghijklmnopa", "abcdefghijklmnop", "abcdefgh"]
        let accounts = ["me", "Me", "you", ""]
        let locale = Locale(identifier: "en_US")
        var keys = DisplayOrder.ReadingKeys(capacity: count)
        var nameKeys: [[UInt8]] = [], accountKeys: [[UInt8]] = []
        for _ in 0..<count {
            let name = names.randomElement(using: &random)!, account = accounts.randomElement(using: &random)!
            keys.append(name: name, account: account, locale: locale)
            var nameKey: [UInt8] = [], accountKey: [UInt8] = []
            DisplayOrder.appendReadingKey(name, locale: locale, to: &nameKey)
            DisplayOrder.appendReadingKey(account, locale: locale, to: &accountKey)
            nameKeys.append(nameKey)
            accountKeys.append(accountKey)
        }
        // Ties broken from the last index down: not the order the items came in.
        let tie = { (a: Int, b: Int) in a > b }
        let expected = Array(0..<count).sorted { a, b in
            if nameKeys[a] != nameKeys[b] { return nameKeys[a].lexicographicallyPrecedes(nameKeys[b]) }
            if accountKeys[a] != accountKeys[b] { return accountKeys[a].lexicographicallyPrecedes(accountKeys[b]) }
            return tie(a, b)
        }
        #expect(keys.order(tie: tie) == expected)
    }
}

/// The merge of sorted runs (`DisplayOrder.ReadingKeys.merge`), for any number of runs: a
/// machine with more cores merges more than two.
@Suite("Vault: sorted runs merged")
struct VaultSortedRunMergeTests {
    /// Seeds 40 and up merge two runs large enough to be merged a part per core (the parts'
    /// bounds found by binary search), one of them empty or of one item at first.
    @Test("1 to 5 random sorted runs, some empty, with equal prefixes: merged, they are the sorted union, each item once",
          arguments: 0..<48)
    func mergedEqualsSortedUnion(seed: Int) {
        var random = SeededRandom("merge-\(seed)")
        let large = seed >= 40
        let runCount = large ? 2 : 1 + seed % 5
        var values: [[(UInt64, UInt64, Int)]] = []
        var all: [(run: Int, index: Int, key: (UInt64, UInt64, Int))] = []
        for run in 0..<runCount {
            let count = large ? (run == 0 && seed < 42 ? seed - 40 : Int.random(in: 2_000..<9_000, using: &random))
                : Int.random(in: 0..<(seed % 3 == 0 ? 3 : 200), using: &random)
            // A small alphabet: many equal first words, some equal second words too.
            var items = (0..<count).map { index in (UInt64.random(in: 0..<4, using: &random), UInt64.random(in: 0..<3, using: &random), index) }
            // The third word (the index) is unique only within a run: ties across runs go to
            // the lower run, as a total order must decide them.
            items.sort { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
            values.append(items)
            all += items.map { (run, $0.2, $0) }
        }
        func less(_ x: Int, _ a: DisplayOrder.ReadingKeys.Keyed, _ y: Int, _ b: DisplayOrder.ReadingKeys.Keyed) -> Bool {
            if let order = DisplayOrder.ReadingKeys.byPrefix(a, b) { return order }
            return (a.index, x) < (b.index, y)
        }
        let total = values.reduce(0) { $0 + $1.count }
        // Each position written once, from whichever thread merges it.
        let slots = UnsafeMutableBufferPointer<(Int, Int)>.allocate(capacity: max(1, total))
        defer { slots.deallocate() }
        slots.initialize(repeating: (-1, -1))
        DisplayOrder.ReadingKeys.merge(values.map { $0.map { (prefix: $0.0, next: $0.1, index: $0.2) } }, less: less) { slots[$0] = ($1, $2) }
        let merged = Array(slots.prefix(total))
        let expected = all.sorted { ($0.key.0, $0.key.1, $0.key.2, $0.run) < ($1.key.0, $1.key.1, $1.key.2, $1.run) }.map { ($0.run, $0.index) }
        #expect(merged.map { "\($0.0):\($0.1)" } == expected.map { "\($0.0):\($0.1)" })
    }
}

/// Reading keys (`DisplayOrder.appendReadingKey`), byte for byte: the text folded, each run of
/// ASCII digits as '/', its length without leading zeros (two bytes, big-endian), its digits.
@Suite("Vault: reading keys (known answers)")
struct VaultReadingKeyTests {
    static func key(_ text: String) -> [UInt8] {
        var key: [UInt8] = []
        DisplayOrder.appendReadingKey(text, locale: Locale(identifier: "en_US"), to: &key)
        return key
    }

    static func number(_ digits: String) -> [UInt8] {
        [0x2F, UInt8(digits.utf8.count >> 8), UInt8(digits.utf8.count & 0xFF)] + Array(digits.utf8)
    }

    @Test("ASCII and folded texts, digit runs with and without leading zeros, at either end and alone")
    func knownAnswers() {
        #expect(Self.key("") == [])
        #expect(Self.key("GitHub") == Array("github".utf8))
        #expect(Self.key("Item10") == Array("item".utf8) + Self.number("10"))
        #expect(Self.key("a007B") == Array("a".utf8) + Self.number("7") + Array("b".utf8))
        #expect(Self.key("0") == Self.number(""))
        #expect(Self.key("000") == Self.number(""))
        #expect(Self.key("12 Z9") == Self.number("12") + Array(" z".utf8) + Self.number("9"))
        #expect(Self.key("batch-wizard-000120.EXAMPLE.com") == Array("batch-wizard-".utf8) + Self.number("120") + Array(".example.com".utf8))
        // Not ASCII: folded as search folds (case, diacritics), then the same digit rule.
        #expect(Self.key("\u{c9}clair 02") == Array("eclair ".utf8) + Self.number("2"))
        // A run longer than 65,535 digits keeps its first 65,535 (the length field's limit).
        let long = String(repeating: "7", count: 70_000)
        #expect(Self.key(long) == [0x2F, 0xFF, 0xFF] + Array(repeating: 0x37, count: 65_535))
    }

    /// The rule written out byte by byte, for ASCII text: the reference the keys are checked against.
    static func reference(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var key: [UInt8] = [], index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard (0x30...0x39).contains(byte) else {
                key.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, (0x30...0x39).contains(bytes[end]) { end += 1 }
            let digits = bytes[index..<end].drop { $0 == 0x30 }.prefix(65_535)
            key += [0x2F, UInt8(digits.count >> 8), UInt8(digits.count & 0xFF)] + digits
            index = end
        }
        return key
    }

    @Test("Random ASCII names and accounts (letters of both cases, digit runs, punctuation, every length to 40) give the rule's key byte for byte")
    func randomASCII() {
        var random = SeededRandom("reading-keys-ascii")
        // Digits and the letters next to the folded range ('@', 'A', 'Z', '[', '`', 'a', 'z', '{') and '/', '0', '9', ':'.
        let alphabet = Array("0123456789/:@AZ[`az{-. _~GgHhQq".utf8)
        var mismatches: [String] = []
        for length in 0...40 {
            for _ in 0..<60 {
                let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
                let text = String(decoding: bytes, as: UTF8.self)
                if Self.key(text) != Self.reference(text) { mismatches.append(text) }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}

/// The rules of `displayName` and `listedName` (ItemNameText, one owner for items and for a
/// listing's rows): known answers, each shape of name once.
@Suite("Vault: an item's display and listed names (known answers)")
struct VaultItemNameTests {
    static func named(_ attributes: ItemAttributes, label: String?) -> ItemAttributes {
        var attributes = attributes
        attributes.label = label
        return attributes
    }

    @Test("Display and listed names of each kind, with and without a label, a label equal to the name, canonical equivalents",
          arguments: [
            (named(.genericPassword(service: "github.com", account: "me"), label: nil), "github.com", "github.com"),
            (named(.genericPassword(service: "github.com", account: "me"), label: "GitHub"), "github.com", "GitHub (github.com)"),
            (named(.genericPassword(service: "github.com", account: "me"), label: "github.com"), "github.com", "github.com"),
            (named(.genericPassword(service: "cafe\u{301}", account: "me"), label: "caf\u{e9}"), "cafe\u{301}", "caf\u{e9}"),
            (named(.internetPassword(server: "bank.example", account: "me", protocol: "https", port: 8443, path: "/login"), label: "Bank"),
             "https://bank.example:8443/login", "Bank (https://bank.example:8443/login)"),
            (named(.internetPassword(server: "bank.example", account: "me"), label: nil), "bank.example", "bank.example"),
            (named(.internetPassword(server: "bank.example", account: "me", port: 22), label: "bank.example:22"), "bank.example:22", "bank.example:22"),
            (.secureNote(title: "Diary"), "Diary", "Diary"),
            (ItemAttributes(kind: .secureNote), "?", "?"),
          ])
    func names(_ attributes: ItemAttributes, display: String, listed: String) throws {
        #expect(attributes.displayName == display)
        #expect(attributes.listedName == listed)
        // Byte for byte: a label canonically equal to the name is shown as the label was written.
        #expect(Array(attributes.listedName.utf8) == Array(listed.utf8))
        // A listing's row of the same item, read from its overview's bytes (a note needs its title).
        guard attributes.kind != .secureNote || attributes.label != nil else { return }
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            _ = try vault.transaction { tx in try tx.add(attributes) }
            let row = try #require(try vault.listing().first)
            #expect(row.withListedNameUTF8 { Array($0) } == Array(listed.utf8))
            #expect(row.listedName == listed)
        }
    }
}

/// A listing reads every overview for its rows and keys: it takes the entries in the order of
/// their records in the file (the order they and their overviews were made in when the file
/// was read in windows), not the dictionary's hash order, where each one was a cache miss.
@Suite("Vault: a listing reads the entries in file order")
struct VaultListingFileOrderTests {
    /// `withRowText` reads through a pointer: a position out of the listing must stop the
    /// process as the subscript does, never read past the rows.
    @Test("withRowText at a position past the last row stops the process, as the subscript does")
    func rowTextOutOfRange() async {
        await #expect(processExitsWith: .failure) {
            try withTemporaryDirectory { dir in
                let path = dir.appendingPathComponent("v.coffer").path
                let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
                try vault.transaction { tx in for index in 0..<3 { _ = try tx.add(.genericPassword(service: "s\(index)", account: "me")) } }
                let listing = try vault.listing()
                _ = listing.withRowText(at: listing.count) { name, _, _, _, _ in name.count }
            }
        }
    }

    @Test("After every overview is opened from a file read in windows, the live entries come in ascending file offsets, every one once, as opening them returned them")
    func liveEntriesInFileOrder() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            let removed = try vault.transaction { tx in
                var ids: [ItemID] = []
                for index in 0..<600 { ids.append(try tx.add(.genericPassword(service: "svc-\(index)", account: "me")).id) }
                return ids
            }
            try vault.transaction { tx in for id in removed.prefix(50) { try tx.delete(id) } }   // tombstones are not listed
            let store = VaultFileStore(path: path)
            let held = try store.openHeld()
            let bytes = try held.read(at: 0, count: held.size)
            let head = try VaultFileV2.Start(bytes)
            let codec = try VaultFileV2.parse(head: Array(bytes[..<head.manifestMACEnd]), fileSize: held.size)
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            var snapshot = try VaultSnapshot(codec: codec, keys: keys, identity: held.identity, held: held)
            let returned = try #require(try snapshot.openAll(keepingRecords: false), "a lazily read snapshot opened whole gives its live entries")
            let listed = snapshot.liveEntriesInFileOrder()
            #expect(returned.map(ObjectIdentifier.init) == listed.map(ObjectIdentifier.init), "the same entries, in the same order")
            let again = try snapshot.openAll(keepingRecords: false)
            #expect(again == nil, "opened already (its dictionaries built): the caller asks liveEntriesInFileOrder")
            let offsets = listed.map { $0.record.location?.offset ?? -1 }
            #expect(listed.count == 550)
            #expect(Set(listed.map(\.record.id)) == Set(snapshot.entries.keys))
            let located = offsets.allSatisfy { $0 >= 0 }
            let ascending = zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 }
            let opened = listed.allSatisfy(\.isOpened)
            #expect(located, "records let go after their overviews were opened")
            #expect(ascending, "\(zip(offsets, offsets.dropFirst()).filter { $0 >= $1 }.prefix(5)) \(offsets.prefix(8))")
            #expect(opened)
        }
    }
}

import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// A record's parts are checked when they are opened (SPEC.md §10, steps 14 and 15): every
/// overview at open, under its row's nonce; a secret part when it is read, and every secret
/// part before a save carries the records into a new file. A damaged secret part that a
/// command does not read does not stop it (the item is still listed: its overview is
/// authentic), and one it reads gives `tampered` and no data.
@Suite("Vault: lazy verification (a record's secret part is checked when it is read)")
struct VaultLazyVerificationTests {
    /// A vault with items a, b, c; the last byte of b's record (its secret part's tag) flipped.
    func damagedVault(_ dir: URL) throws -> (path: String, damaged: ItemID, bytes: [UInt8]) {
        let path = dir.appendingPathComponent("v.coffer").path
        let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
        var ids: [String: ItemID] = [:]
        for name in ["a", "b", "c"] {
            ids[name] = try vault.add(.genericPassword(service: name, account: "me"),
                                      secrets: ItemSecrets(password: secure("secret-" + name))).id
        }
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let codec = try VaultFileV2.parse(bytes)
        let record = try #require(codec.records.first { $0.id == ids["b"] })
        bytes[record.body.endIndex - 1] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, try #require(ids["b"]), bytes)
    }

    func expectTampered(_ id: ItemID, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        let error = #expect(throws: CofferError.self, sourceLocation: sourceLocation) { try body() }
        #expect(error?.kind == .tampered && error?.tamperedPart == .entry(id.hex), "\(String(describing: error))",
                sourceLocation: sourceLocation)
    }

    @Test("Library: every item lists and searches; the damaged one's secrets, verifyAll and saves give tampered")
    func library() throws {
        try withTemporaryDirectory { dir in
            let (path, damaged, bytes) = try damagedVault(dir)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try vault.password(matching: ItemQuery(service: "a")).testString == "secret-a")
            #expect(try vault.password(matching: ItemQuery(service: "c")).testString == "secret-c")
            #expect(try vault.items(matching: ItemQuery(service: "c")).count == 1)
            // Naming an item (ItemName: any case, a positional name, an id prefix) decodes only
            // the items that may match, so the damaged one is not touched either.
            #expect(try vault.item(named: ItemName("A")).attributes.service == "a")
            #expect(try vault.item(named: ItemName(.service("C"), account: "me")).attributes.service == "c")
            let idOfA = try vault.item(named: ItemName("a")).id
            #expect(try vault.item(named: ItemName(.id(String(idOfA.hex.prefix(10))))).id == idOfA)
            // Its overview is authentic (sealed under its row's nonce): the item is listed.
            #expect(try vault.item(named: ItemName("b")).id == damaged)
            #expect(try vault.item(damaged).attributes.service == "b")
            #expect(try vault.items(matching: ItemQuery(service: "b")).map(\.id) == [damaged])
            #expect(try vault.items().count == 3)
            expectTampered(damaged) { _ = try vault.secrets(for: damaged) }
            expectTampered(damaged) { try vault.verifyAll() }
            // A save never carries the damaged record into a new, freshly MACed file.
            expectTampered(damaged) { _ = try vault.add(.genericPassword(service: "d", account: "me")) }
            expectTampered(damaged) { try vault.update(damaged, secrets: ItemSecrets(password: secure("new"))) }
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        }
    }

    @Test("A damaged overview fails only what uses it: listings, lookups that find nothing, saves")
    func overviewAtOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            let id = try vault.add(.genericPassword(service: "a", account: "me")).id
            let other = try vault.add(.genericPassword(service: "z", account: "me")).id
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let record = try #require(try VaultFileV2.parse(bytes).records.first { $0.id == id })
            // The first byte of the overview ciphertext (the record starts with it).
            bytes[record.body.startIndex] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let opened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try opened.item(named: ItemName("z")).id == other)
            expectTampered(id) { _ = try opened.item(named: ItemName("a")) }   // it may be the damaged one
            expectTampered(id) { _ = try opened.items() }
            expectTampered(id) { try opened.verifyAll() }
            expectTampered(id) { _ = try opened.add(.genericPassword(service: "b", account: "me")) }
            let readable = try opened.readableItems()
            #expect(readable.items.map(\.id) == [other] && readable.damaged.map(\.id) == [id])
            #expect(try opened.damagedItems().map(\.id) == [id])
        }
    }

    /// A listing as the first read of a vault opens every overview from the bytes of its
    /// window, without loading the records (`VaultSnapshot.openAll(keepingRecords: false)`).
    @Test("A listing as the first read sets damaged overviews apart, lists the rest, and the vault reads on the same")
    func listingAtOpen() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            let ids = try vault.transaction { tx in try (0..<30).map { try tx.add(.genericPassword(service: "s\($0)", account: "me")).id } }
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let records = try VaultFileV2.parse(bytes).records
            // A byte of the overview of the second record and of the last one (an overview is at least 32 bytes).
            let hit = [records[1], records[records.count - 1]]
            bytes[hit[0].body.startIndex] ^= 0x01
            bytes[hit[1].body.startIndex + 20] ^= 0x80
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let damaged = hit.map(\.id).sorted()
            let opened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let listing = try opened.listing()
            #expect(listing.damaged.map(\.id) == damaged)
            #expect(Set(listing.map(\.id)) == Set(ids).subtracting(damaged) && listing.count == ids.count - 2)
            // The dictionaries the listing left to be built when first read: never a damaged record.
            let held = opened.snapshotAsHeld
            #expect(Set(held.entries.keys) == Set(ids).subtracting(damaged) && held.tombstones.isEmpty)
            #expect(Set(held.damaged.keys) == Set(damaged))
            // Filtered, the damaged stay named (what `coffer list --expired` reports).
            let some = listing.filtered { $0.listedName.hasSuffix("1") }
            #expect(some.damaged.map(\.id) == damaged && some.map(\.id) == listing.map(\.id).filter { id in some.contains { $0.id == id } })
            #expect(some.map(\.listedName) == listing.map(\.listedName).filter { $0.hasSuffix("1") })
            // The same vault afterwards: the same items readable, the same damaged, its secrets read.
            let readable = try opened.readableItems()
            #expect(listing.map(\.id) == readable.items.sortedForReading().map(\.id) && readable.damaged.map(\.id) == damaged)
            let kept = try #require(listing.first)
            _ = try opened.secrets(for: kept.id)
            expectTampered(damaged[0]) { try opened.verifyAll() }
        }
    }

    /// A listing builds no dictionary of the entries it opens (`VaultSnapshot.DeferredDictionaries`):
    /// they are built when first read, in every copy of the snapshot the same.
    @Test("After a listing, the entries by id are the live items and the deleted ones, and a save, a lookup and a transaction's copy see them all")
    func dictionariesAfterListing() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            let ids = try vault.transaction { tx in try (0..<40).map { try tx.add(.genericPassword(service: "s\($0)", account: "me")).id } }
            try vault.transaction { tx in for id in ids.prefix(5) { try tx.delete(id) } }
            let live = Set(ids.dropFirst(5)), deleted = Set(ids.prefix(5))
            // A transaction's copy of the snapshot reads them first, then the vault's own.
            let listed = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try listed.listing().count == 35)
            let copied = try listed.transaction { tx in (Set(try tx.readableItems().items.map(\.id)), (try? tx.item(ids[0])) == nil) }
            #expect(copied.0 == live && copied.1)
            #expect(Set(listed.snapshotAsHeld.entries.keys) == live && Set(listed.snapshotAsHeld.tombstones.keys) == deleted)
            // A lookup and a save after a listing: every item and every deletion written again.
            let reader = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            _ = try reader.listing()
            #expect(try reader.item(ids[7]).service == "s7")
            let added = try reader.transaction { tx in try tx.add(.genericPassword(service: "after", account: "me")).id }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions).currentSnapshot
            #expect(Set(reopened.entries.keys) == live.union([added]))
            #expect(Set(reopened.tombstones.keys) == deleted)
        }
    }

    @Test("coffer: get of another item and list work; get of the damaged one, check and add exit 65")
    func cli() throws {
        try withTemporaryDirectory { dir in
            let (path, _, bytes) = try damagedVault(dir)
            let good = try runProduct("coffer", ["get", path, "--service", "a", "--no-cache"], stdin: "pw\n")
            #expect(good.status == 0 && good.out == "secret-a\n", "\(good.err)")
            // Its overview is authentic: list shows it (SPEC.md §10, notes).
            let list = try runProduct("coffer", ["list", path, "--no-cache"], stdin: "pw\n")
            #expect(list.status == 0 && list.out.contains("b"), "\(list.err)")
            for arguments in [["get", path, "--service", "b"], ["add", path, "--service", "d", "--account", "me", "--generate"]] {
                let result = try runProduct("coffer", arguments + ["--no-cache"], stdin: "pw\n")
                #expect(result.status == 65 && result.stdout.isEmpty, "\(arguments[0]): \(result.status) \(result.err)")
            }
            // check exits 65, naming the damaged entry.
            let checked = try runProduct("coffer", ["check", path, "--no-cache"], stdin: "pw\n")
            #expect(checked.status == 65 && checked.out.contains("damaged: entry"), "\(checked.out)\(checked.err)")
            #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        }
    }
}

import Foundation
import Testing
@testable import CofferVault
@testable import CofferStore
import CofferFormat
import CofferTestSupport

/// A vault opened from its file reads no overview until one is needed: naming an item by
/// service, server, note title or id opens only the records whose rows carry the name's
/// lookup tag (SPEC.md §8.1), and a unique-key check the same. The result must be exactly
/// what reading every overview gives, on random vaults: names in any case, accented,
/// composed or not, the Kelvin sign that is canonically `K`, full-width letters, and names
/// shared across kinds.
@Suite("Vault: lookups by tag find what reading every overview finds")
struct VaultTagLookupTests {
    /// Names whose tags and foldings collide in every way the rules allow.
    static let names = ["github.com", "GitHub.com", "GITHUB.COM", "gitlab.com", "caf\u{e9}", "cafe\u{301}", "CAF\u{c9}", "cafe",
                        "\u{212A}ey", "Key", "key", "\u{ff47}ithub", "stra\u{df}e", "strasse", "Stra\u{df}e", "", "a b", "gith",
                        "example.org", "EXAMPLE.org", "\u{e9}xample.org", "wi-fi", "WiFi", "note", "Note"]

    /// A vault of `count` random items over ``names``, closed; its path.
    func randomVault(_ dir: URL, seed: String, count: Int) throws -> String {
        var random = SeededRandom(seed)
        let path = dir.appendingPathComponent("\(seed).coffer").path
        let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
        try vault.transaction { tx in
            var added = 0
            while added < count {
                let name = Self.names.randomElement(using: &random)!
                let account = ["alice", "Alice", "bob", ""].randomElement(using: &random)!
                var attributes: ItemAttributes
                switch Int.random(in: 0..<3, using: &random) {
                case 0: attributes = ItemAttributes(kind: .genericPassword, service: name, account: account.isEmpty ? nil : account)
                case 1:
                    guard !name.isEmpty, !name.contains(" ") else { continue }
                    attributes = ItemAttributes(kind: .internetPassword, account: account.isEmpty ? nil : account, server: name)
                    if Bool.random(using: &random) { attributes.protocol = "https" }
                default: attributes = .secureNote(title: name.isEmpty ? "untitled" : name)
                }
                if Int.random(in: 0..<3, using: &random) == 0 { attributes.label = Self.names.randomElement(using: &random)! }
                if attributes.label?.isEmpty == true { attributes.label = nil }
                guard (try? tx.add(attributes)) != nil else { continue }   // a duplicate key: draw again
                added += 1
            }
            // A few deleted items: their rows carry no tag and they are never found.
            for item in try tx.items().prefix(3) { try tx.delete(item.id) }
        }
        return path
    }

    /// The names a lookup tries: every stored name, cased otherwise, and some that match nothing.
    func lookups(_ ids: [ItemID]) -> [ItemName] {
        var out: [ItemName] = []
        for name in Self.names + ["GITHUB.com", "\u{212A}EY", "nothing-here", "CAFE\u{301}", "https://GitHub.com/login", "http://example.org:8080"] {
            out += [ItemName(.service(name)), ItemName(.title(name)), ItemName(.service(name), account: "alice")]
            if !name.isEmpty, !name.contains(" ") { out.append(ItemName(.server(name))) }
            out.append(ItemName(.anything(name)))
        }
        for id in ids.prefix(5) { out += [ItemName(.id(String(id.hex.prefix(8)))), ItemName(.id(id.hex.uppercased()))] }
        out.append(ItemName(.id("00000000")))
        return out
    }

    func describe(_ match: NameMatch) -> [String] {
        match.items.map { "\($0.id.hex) r\($0.revision)" } + [match.isApproximate ? "approximate" : "exact"]
    }

    /// `vault` (read lazily, saved or rotated without keeping overviews) finds the first 40
    /// lookups, lists, and refuses a duplicate exactly as `full` (the same file, every overview
    /// read) does. The lookups come first: a listing opens every overview.
    func expectReadsAsFullyRead(_ vault: Vault, _ full: Vault, sourceLocation: SourceLocation = #_sourceLocation) throws {
        _ = full.currentSnapshot
        for name in lookups(try full.items().map(\.id)).prefix(40) {
            #expect(describe(try vault.match(name)) == describe(try full.match(name)), "\(name)", sourceLocation: sourceLocation)
        }
        func rows(_ vault: Vault) throws -> [String] { try vault.listing().map { "\($0.id.hex) \($0.listedName) \($0.account ?? "")" } }
        #expect(try rows(vault) == rows(full), sourceLocation: sourceLocation)
        let existing = try #require(try full.items().first { $0.kind == .genericPassword }, sourceLocation: sourceLocation)
        let duplicate = #expect(throws: CofferError.self, sourceLocation: sourceLocation) { try vault.add(existing.attributes) }
        #expect(duplicate?.kind == .duplicateItem, sourceLocation: sourceLocation)
    }

    @Test("Vault.match on a vault just opened equals Vault.match with every overview read", arguments: ["tags-1", "tags-2", "tags-3"])
    func matchEqualsFullScan(_ seed: String) throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: seed, count: 60)
            let full = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            _ = full.currentSnapshot   // reads every overview: lookups then compare decoded attributes only
            #expect(full.currentSnapshot.isFullyOpened)
            for name in lookups(try full.items().map(\.id)) {
                // A fresh open per lookup: nothing read before it.
                let lazy = try Vault.open(at: path, password: secure("pw"), options: testOptions)
                let expected = try full.match(name)
                let got = try lazy.match(name)
                #expect(describe(got) == describe(expected), "\(name)")
            }
        }
    }

    @Test("A tag lookup that finds its item opens only the records of its tags")
    func opensOnlyTagged() throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-open", count: 40)
            try Vault.open(at: path, password: secure("pw"), options: testOptions)
                .add(.genericPassword(service: "GitHub.com", account: "the-one-looked-up"))
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let found = try vault.match(ItemName(.service("github.com")))
            let snapshot = vault.snapshotAsHeld
            let keys = try #require(snapshot.lookupKeys)
            let tags = try NameTags.tags(kind: .genericPassword, name: "github.com", keys: keys)
            let opened = Set(snapshot.openedIDs)
            let all = try vault.items()   // opens every overview
            let tagged = Set(vault.currentSnapshot.entries.values.filter { tags.contains($0.record.lookupTag) }.map(\.record.id))
            #expect(!opened.isEmpty && opened.isSubset(of: tagged), "only tagged records are opened")
            #expect(all.count > opened.count)
            #expect(!found.items.isEmpty)
            #expect(!snapshot.isFullyOpened)
        }
    }

    @Test("Adding on a vault just opened refuses exactly the keys a fully read vault refuses", arguments: ["tags-add-1", "tags-add-2"])
    func uniqueKeysEqualFullScan(_ seed: String) throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: seed, count: 50)
            let copy = dir.appendingPathComponent("copy.coffer").path
            var random = SeededRandom(seed + "-keys")
            for _ in 0..<12 {
                let name = Self.names.randomElement(using: &random)!
                let account = ["alice", "Alice", "bob", ""].randomElement(using: &random)!
                let attributes: ItemAttributes = Bool.random(using: &random) || name.isEmpty || name.contains(" ")
                    ? ItemAttributes(kind: .genericPassword, service: name, account: account.isEmpty ? nil : account)
                    : ItemAttributes(kind: .internetPassword, account: account.isEmpty ? nil : account, server: name)
                var outcomes: [String] = []
                for fully in [true, false] {
                    try? FileManager.default.removeItem(atPath: copy)
                    try FileManager.default.copyItem(atPath: path, toPath: copy)
                    let vault = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
                    if fully { _ = vault.currentSnapshot }
                    do {
                        try vault.add(attributes)
                        outcomes.append("added")
                    } catch let error as CofferError {
                        outcomes.append("\(error.kind)")
                    }
                }
                #expect(outcomes[0] == outcomes[1], "\(attributes.kind) \(name) \(account)")
            }
        }
    }

    /// A save checks every record it carries and keeps none of their overviews (23 MB at
    /// 100,000 entries): the vault is then read lazily again, and must read, list, find,
    /// refuse and save as a fully read vault does, in either order of listing and saving.
    @Test("A vault that saved without keeping overviews lists, finds, refuses and saves again as a fully read vault does",
          arguments: [false, true])
    func savedWithoutOverviews(_ listFirst: Bool) throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-save", count: 60)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            if listFirst { _ = try vault.listing() }
            let added = try vault.add(.genericPassword(service: "saved-first", account: "me"), secrets: ItemSecrets(password: secure("s1")))
            if !listFirst {
                #expect(vault.snapshotAsHeld.openedIDs.count < 10, "the save kept no overview but those its unique-key check read")
            }
            let full = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try expectReadsAsFullyRead(vault, full)
            // A second save (its records checked already, in memory), then the file as a reader sees it.
            try vault.update(added.id) { a, _ in a.comment = "saved again" }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.items().count == (try full.items().count))
            #expect(try reopened.item(added.id).attributes.comment == "saved again")
            #expect(try reopened.secrets(for: added.id).password?.unsafeStringCopy() == "s1")
        }
    }

    /// A listing as the first read of a vault whose records fill several windows opens each
    /// piece's overviews from that piece's bytes, on whichever core took it
    /// (`VaultSnapshot.openAll`): every item is listed as a full read lists it, and damaged
    /// overviews far apart (the first live record and one in a later window) are set apart
    /// by their ids, the rest listed.
    @Test("A listing as the first read of a vault of several windows lists every item, and sets apart damaged overviews far apart")
    func listingOverWindows() throws {
        try withTemporaryDirectory { dir in
            let (path, _) = try multiWindowVault(dir, seed: "tags-list-windows")
            let expected = try Vault.open(at: path, password: secure("pw"), options: testOptions).readableItems().items.sortedForReading().map(\.id)
            let listing = try Vault.open(at: path, password: secure("pw"), options: testOptions).listing()
            #expect(listing.map(\.id) == expected && listing.damaged.isEmpty)
            // The last live record: after the 40 large ones (more than a window), so in a later window.
            var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            let records = try VaultFileV2.parse(bytes).records
            let hit = try #require(records.last { !$0.isTombstone })
            #expect(records.prefix { $0.id != hit.id }.reduce(0) { $0 + $1.body.count } > VaultSnapshot.windowSize)
            bytes[hit.body.startIndex] ^= 0x01
            // And the first live record: the two in pieces read and opened by whichever core
            // took them (VaultSnapshot.pieceSize), far apart.
            let early = try #require(records.first { !$0.isTombstone })
            #expect(records.prefix { $0.id != hit.id }.reduce(0) { $0 + $1.body.count } - early.body.count > 2 * VaultSnapshot.pieceSize)
            bytes[early.body.startIndex] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let damaged = try Vault.open(at: path, password: secure("pw"), options: testOptions).listing()
            #expect(damaged.damaged.map(\.id) == [early.id, hit.id].sorted())
            #expect(damaged.map(\.id) == expected.filter { $0 != hit.id && $0 != early.id })
        }
    }

    /// A rotation reads the records of a vault read lazily a window of the file at a time,
    /// checks each overview not opened yet in the decryption that seals it again, and leaves
    /// the vault holding the new records with the overviews it had opened (the others open
    /// under the new key). Whatever was read before, the vault must then read, list, find,
    /// refuse and save as a vault opened from the rotated file with the new password does.
    @Test("A password change of a vault read lazily, its records over several windows, reads, lists, finds and saves as the rotated file opened anew does",
          arguments: [0, 1, 2])
    func rotatedWhileLazy(_ readBefore: Int) throws {
        try withTemporaryDirectory { dir in
            // Notes of 160 KB on 40 items: more than one window (VaultSnapshot.windowSize) of records.
            let (path, big) = try multiWindowVault(dir, seed: "tags-rotate")
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            switch readBefore {
            case 1: _ = try vault.match(ItemName(.service("github.com")))   // a few overviews opened
            case 2: _ = try vault.listing()                                  // every overview, no record kept
            default: break                                                   // nothing read
            }
            let before = try Vault.open(at: path, password: secure("pw"), options: testOptions).items().count
            func nonces() throws -> [RecordV2.Nonce] { try VaultFileV2.parse(Array(Data(contentsOf: URL(fileURLWithPath: path)))).records.map(\.nonce) }
            let earlier = Set(try nonces())
            try vault.changePassword(from: secure("pw"), to: secure("new"))
            // Every record sealed again under a nonce of its own, window after window: none
            // repeated, none kept from before.
            let rotated = try nonces()
            #expect(Set(rotated).count == rotated.count && Set(rotated).isDisjoint(with: earlier))
            // A save right after the rotation, nothing read in between: it carries every record.
            let added = try vault.add(.genericPassword(service: "after-rotation", account: "me"), secrets: ItemSecrets(password: secure("s2")))
            #expect(throws: CofferError.self) { try Vault.open(at: path, password: secure("pw"), options: testOptions) }
            let full = try Vault.open(at: path, password: secure("new"), options: testOptions)
            try full.verifyAll()
            #expect(try full.items().count == before + 1)
            #expect(try full.secrets(for: added.id).password?.unsafeStringCopy() == "s2")
            try expectReadsAsFullyRead(vault, full)
            for (index, id) in big.enumerated() {
                #expect(try vault.secrets(for: id).notes?.unsafeStringCopy() == String(repeating: "\(index % 10)", count: 160_000))
            }
            // Another save, then the file as a reader sees it.
            try vault.update(added.id) { attributes, _ in attributes.comment = "saved again" }
            let reopened = try Vault.open(at: path, password: secure("new"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.items().count == before + 1)
            #expect(try reopened.item(added.id).attributes.comment == "saved again")
        }
    }

    /// After a rotation, a vault read lazily keeps its rows (the new records, in memory) and
    /// builds its entries only when something reads every item or saves: whatever comes first
    /// must see every record, as the rotated file opened anew does.
    @Test("After a password change of a vault read lazily, a merge, another rotation, another writer's save or a check sees every record",
          arguments: [0, 1, 2, 3])
    func firstAfterLazyRotation(_ next: Int) throws {
        try withTemporaryDirectory { dir in
            let (path, big) = try multiWindowVault(dir, seed: "tags-rotate-next", count: 50)
            let count = try Vault.open(at: path, password: secure("pw"), options: testOptions).items().count
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let records = try VaultFileV2.parse(Array(Data(contentsOf: URL(fileURLWithPath: path)))).records.count
            let rotation = try #require(try vault.changePassword(to: secure("new")).rotation)
            #expect(rotation.records == records)
            var password = "new", expected = count
            switch next {
            case 0:   // a copy of the rotated file with one item more, merged in
                let copy = dir.appendingPathComponent("copy.coffer").path
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                _ = try Vault.open(at: copy, password: secure("new"), options: testOptions).add(.genericPassword(service: "from-the-copy", account: "me"))
                let report = try vault.merge(contentsOf: copy)
                #expect(report.added == 1)
                expected += 1
            case 1:   // rotated again at once
                #expect(try vault.changePassword(to: secure("newer")).rotation?.records == records)
                password = "newer"
            case 2:   // another writer saves, then this vault saves: the file is joined
                _ = try Vault.open(at: path, password: secure("new"), options: testOptions).add(.genericPassword(service: "other-writer", account: "me"))
                _ = try vault.add(.genericPassword(service: "this-vault", account: "me"))
                expected += 2
            default:  // a check of every secret part
                #expect(try vault.damagedItems().isEmpty)
                #expect(try vault.items().count == count)
            }
            let reopened = try Vault.open(at: path, password: secure(password), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.items().count == expected)
            try expectReadsAsFullyRead(vault, reopened)
            #expect(try vault.secrets(for: big[7]).notes?.unsafeStringCopy() == String(repeating: "7", count: 160_000))
        }
    }

    /// A rotation joins the file another writer put in place since the vault read it; the
    /// join reads every overview of the vault, which a vault read lazily has not opened (read
    /// as none, the vault's own items would be dropped).
    @Test("A password change of a vault read lazily, after the file was replaced by an older copy, keeps what only the vault held",
          arguments: [false, true])
    func rotationJoinsReplacedFile(_ editedFirst: Bool) throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-rotate-join", count: 30)
            let older = dir.appendingPathComponent("older.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: older)
            let writer = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let kept = try writer.add(.genericPassword(service: "only-in-the-vault", account: "me"), secrets: ItemSecrets(password: secure("k1")))
            let count = try writer.items().count
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            // Read lazily; or with one edit of its own (its entries built, but few overviews opened).
            let edited = editedFirst ? try vault.add(.genericPassword(service: "edited-first", account: "me")) : nil
            // A sync tool puts an older copy in place (another file: the vault sees it changed).
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: older, toPath: path)
            try vault.changePassword(from: secure("pw"), to: secure("new"))
            let reopened = try Vault.open(at: path, password: secure("new"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.items().count == count + (edited == nil ? 0 : 1))
            #expect(try reopened.secrets(for: kept.id).password?.unsafeStringCopy() == "k1")
            if let edited { #expect(try reopened.item(edited.id).attributes.service == "edited-first") }
        }
    }

    /// A record whose overview was damaged on disk, in a vault read lazily: the rotation's
    /// check finds it (as a save's does) and nothing is written.
    @Test("A password change of a vault read lazily with a damaged record refuses it and leaves the file as it was")
    func rotationRefusesDamage() throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-rotate-damaged", count: 30)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            let file = try VaultFileV2.parse(Array(bytes))
            let victim = try #require(file.records.first { !$0.isTombstone })
            let offset = try #require(Array(bytes).firstRange(of: Array(victim.body.prefix(32))))
            bytes[offset.lowerBound + 3] ^= 0x40   // inside the overview ciphertext
            try bytes.write(to: URL(fileURLWithPath: path))
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let error = #expect(throws: CofferError.self) { try vault.changePassword(from: secure("pw"), to: secure("new")) }
            #expect(error?.kind == .tampered)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
            #expect(throws: CofferError.self) { try Vault.open(at: path, password: secure("new"), options: testOptions) }
        }
    }

    @Test("A file cut short while a vault holds it open gives a typed error, never a crash (through the FileIO seam)")
    func truncatedWhileHeld() throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-truncate", count: 30)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            // After the open, the file reads as if another program had cut it to half its size.
            final class Cut: @unchecked Sendable { var at = Int64.max }
            let cut = Cut()
            var io = FileIO.live
            let live = FileIO.live
            io.readAt = { fd, buffer, offset in
                guard offset < cut.at else { return .success(0) }
                let allowed = min(buffer.count, Int(cut.at - offset))
                return live.readAt(fd, UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(allowed)), offset)
            }
            let vault = try Vault.open(at: path, credential: .password(try secure("pw")), options: testOptions, entropy: .system,
                                       store: VaultFileStore(path: path, io: io))
            cut.at = Int64(size / 2)
            #expect {
                _ = try vault.items()
            } throws: { error in
                (error as? CofferError)?.kind == .truncated
            }
        }
    }

    @Test("A record read from the file after it was truncated in place is a typed error")
    func truncatedOnDisk() throws {
        try withTemporaryDirectory { dir in
            let path = try randomVault(dir, seed: "tags-truncate-disk", count: 30)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
            try handle.truncate(atOffset: size - 100)
            try handle.close()
            #expect {
                _ = try vault.items()
            } throws: { error in
                (error as? CofferError)?.kind == .truncated
            }
        }
    }
}

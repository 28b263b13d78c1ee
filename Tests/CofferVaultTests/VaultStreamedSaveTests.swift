import Foundation
import Testing
@testable import CofferVault
@testable import CofferStore
@testable import CofferFormat
import CofferCrypto
import CofferTestSupport

/// A save of a vault read lazily is written straight from its file (``StreamedSave``): the
/// records it keeps are read a window at a time, checked and written on, the records the
/// change sealed put in their places by id. The file must be exactly the old records and
/// the new ones, in id order; a damaged record anywhere must stop it before anything is
/// replaced; and the vault must then read what it wrote.
extension VaultTagLookupTests {
    /// A vault of `count` random items, 40 of them with 160 KB of notes so that its records
    /// fill more than one window (``VaultSnapshot/windowSize``); its path and those ids.
    func multiWindowVault(_ dir: URL, seed: String, count: Int = 60) throws -> (String, [ItemID]) {
        let path = try randomVault(dir, seed: seed, count: count)
        let setUp = try Vault.open(at: path, password: secure("pw"), options: testOptions)
        let big = try setUp.items().sorted { $0.id < $1.id }.prefix(40).map(\.id)
        try setUp.transaction { tx in
            for (index, id) in big.enumerated() {
                try tx.update(id) { _, secrets in secrets.notes = try secure(String(repeating: "\(index % 10)", count: 160_000)) }
            }
        }
        #expect(40 * 160_000 > VaultSnapshot.windowSize)
        return (path, big)
    }

    /// The records of the file at `path`, authenticated with the password `pw`, every
    /// secret part opened: by id, their bytes.
    func verifiedRecords(_ path: String) throws -> [ItemID: [UInt8]] {
        let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
        let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
        _ = try codec.authenticate(keys: keys)
        for record in codec.records { try record.verifySecret(vaultID: codec.header.vaultID, keys: keys) }
        #expect(zip(codec.records, codec.records.dropFirst()).allSatisfy { $0.id < $1.id })
        return Dictionary(uniqueKeysWithValues: codec.records.map { ($0.id, Array($0.body)) })
    }

    @Test("A save of a vault read lazily, its records over several windows, carries every other record byte for byte and puts the changed ones in their places",
          arguments: [0, 1, 2])
    func streamedSaveCarriesRecords(_ seed: Int) throws {
        try withTemporaryDirectory { dir in
            let (path, big) = try multiWindowVault(dir, seed: "streamed-\(seed)")
            let before = try verifiedRecords(path)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            // Items added (their random ids land anywhere), edited (one in each window) and deleted.
            var changed: Set<ItemID> = [big[3], big[37]]
            var added: [ItemID] = []
            try vault.transaction { tx in
                for index in 0..<5 {
                    added.append(try tx.add(.genericPassword(service: "new-\(seed)-\(index)", account: "me"),
                                            secrets: ItemSecrets(password: secure("n\(index)"))).id)
                }
                try tx.update(big[3]) { attributes, _ in attributes.comment = "edited" }
                try tx.update(big[37]) { _, secrets in secrets.notes = try secure("short now") }
            }
            // A second save, from the file the first one wrote (no listing in between: still lazy).
            let deleted = try #require(before.keys.sorted().first { !big.contains($0) && (try? vault.item($0)) != nil })
            try vault.delete(deleted)
            changed.insert(deleted)

            let after = try verifiedRecords(path)
            #expect(after.count == before.count + added.count)
            for (id, bytes) in before {
                if changed.contains(id) {
                    #expect(after[id] != nil && after[id] != bytes, "\(id.hex) sealed again")
                } else {
                    #expect(after[id] == bytes, "\(id.hex) carried byte for byte")
                }
            }
            for id in added { #expect(after[id] != nil) }

            // The vault reads what it wrote, as the file opened anew does; and saves again.
            let full = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try full.verifyAll()
            try expectReadsAsFullyRead(vault, full)
            #expect(try vault.secrets(for: big[37]).notes?.unsafeStringCopy() == "short now")
            #expect(try vault.secrets(for: big[20]).notes?.unsafeStringCopy() == String(repeating: "0", count: 160_000))
            #expect(try vault.item(big[3]).attributes.comment == "edited")
            try vault.update(added[0]) { attributes, _ in attributes.comment = "saved again" }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.item(added[0]).attributes.comment == "saved again")
            #expect(try reopened.items().count == (try full.items().count))
        }
    }

    /// One byte of a record changed on disk, in a window after the first: the save stops
    /// before replacing anything, names that record, and leaves no temporary file; the
    /// vault file and its backup are as they were. Its overview or its secret part: a save
    /// carries a record only after both have opened (SPEC.md §10, notes).
    @Test("A streamed save refuses a record damaged on disk in any window, and changes nothing",
          arguments: ["overview", "secret"])
    func streamedSaveRefusesDamage(_ part: String) throws {
        try withTemporaryDirectory { dir in
            let (path, big) = try multiWindowVault(dir, seed: "streamed-damage")
            // The record after the first window's worth of bytes.
            let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let victim = try #require(codec.records.first { $0.id == big[35] })
            let damaged = try Self.damaging(path, victim: victim, records: codec.records, secretPart: part == "secret")
            let backup = try? Data(contentsOf: URL(fileURLWithPath: path + ".bak"))
            // Opened after the damage: the header and the manifest are intact, so it opens.
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)

            let error = #expect(throws: CofferError.self) {
                try vault.add(.genericPassword(service: "refused", account: "me"))
            }
            #expect(error?.kind == .tampered)
            let described = error.map { String(describing: $0) } ?? ""
            #expect(described.contains(victim.id.hex), "\(described)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
            #expect((try? Data(contentsOf: URL(fileURLWithPath: path + ".bak"))) == backup)
            #expect(Reliability.temporaryFiles(in: dir.path).isEmpty)
        }
    }

    /// A record whose row's lookup tag is not its name's, in a window after the first, the
    /// file otherwise authentic (sealed and MACed): a streamed save checks each overview it
    /// carries as opening it does (SPEC.md §10 step 15, the lookup tag included) and stops
    /// on it, "malformed", before replacing anything.
    @Test("A streamed save refuses a record whose lookup tag is not its name's, and changes nothing")
    func streamedSaveRefusesWrongLookupTag() throws {
        try withTemporaryDirectory { dir in
            let (path, big) = try multiWindowVault(dir, seed: "streamed-tag")
            let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            let victim = try #require(codec.records.first { $0.id == big[35] })
            let records = codec.records.map { record in
                record.id != victim.id ? record
                    : RecordV2(id: record.id, revision: record.revision, nonce: record.nonce, lookupTag: record.lookupTag ^ 1,
                               isTombstone: record.isTombstone, body: record.body, overviewLength: record.overviewLength)
            }
            let forged = Data(try VaultFileV2.encode(header: codec.header, generation: codec.generation, records: records, keys: keys).bytes)
            try forged.write(to: URL(fileURLWithPath: path))
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let error = #expect(throws: CofferError.self) {
                try vault.add(.genericPassword(service: "refused", account: "me"))
            }
            #expect(error?.kind == .malformed)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == forged)
            #expect(Reliability.temporaryFiles(in: dir.path).isEmpty)
        }
    }

    /// Flips one bit of `victim`'s overview (or secret part) in the file at `path`, in place
    /// (as damage on disk is), past the first window of records; the file's bytes after.
    static func damaging(_ path: String, victim: RecordV2, records: [RecordV2], secretPart: Bool) throws -> Data {
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let start = bytes.count - records.drop { $0.id != victim.id }.reduce(0) { $0 + $1.body.count }
        #expect(start > VaultSnapshot.windowSize)
        bytes[start + (secretPart ? victim.overviewLength + 20 : 20)] ^= 0x40
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.write(contentsOf: Data(bytes))
        try handle.close()
        return Data(bytes)
    }

    /// Once saved, the vault reads the file it wrote through the descriptor that wrote it: a
    /// file renamed over the path afterwards (a sync tool's copy) is not mixed into what it
    /// reads; its next save finds the file changed and joins it.
    @Test("After a streamed save the vault reads the version it wrote, whatever is renamed over the path")
    func streamedSaveHoldsWhatItWrote() throws {
        try withTemporaryDirectory { dir in
            let (path, big) = try multiWindowVault(dir, seed: "streamed-held")
            let copy = dir.appendingPathComponent("copy.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let vault = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            let kept = try vault.add(.genericPassword(service: "kept", account: "me"), secrets: ItemSecrets(password: secure("k")))
            // Another device's copy (edited there) replaces the file.
            let other = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
            try other.update(big[30]) { _, secrets in secrets.notes = try secure("from the copy") }
            #expect(rename(copy, path) == 0)

            #expect(try vault.secrets(for: big[30]).notes?.unsafeStringCopy() == String(repeating: "0", count: 160_000))
            #expect(try vault.secrets(for: kept.id).password?.unsafeStringCopy() == "k")
            try vault.update(kept.id) { attributes, _ in attributes.comment = "joined" }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            try reopened.verifyAll()
            #expect(try reopened.secrets(for: big[30]).notes?.unsafeStringCopy() == "from the copy")
            #expect(try reopened.item(kept.id).attributes.comment == "joined")
        }
    }
}

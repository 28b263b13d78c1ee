import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// A large vault checks the first few unique keys of a change by scanning the overviews'
/// bytes (``UniqueIndex/scanned(_:in:)``) instead of building the index of every key: the
/// scan must find exactly what the index would, and a duplicate must still be refused.
@Suite("Vault: unique keys of a large vault (a scan finds what the index finds)")
struct VaultUniqueKeyScanTests {
    /// 2,100 items (above ``UniqueIndex/scanThreshold``): generic and internet passwords,
    /// ASCII and non-ASCII names, one service spelled in composed form.
    func largeVault(_ dir: URL) throws -> (path: String, vault: Vault) {
        let path = dir.appendingPathComponent("v.coffer").path
        let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
        try vault.transaction { tx in
            for index in 0..<2_000 {
                _ = try tx.add(.genericPassword(service: "svc-\(index % 500)", account: "user\(index / 500)"))
            }
            for index in 0..<90 {
                _ = try tx.add(.internetPassword(server: "host\(index).example", account: "me"))
            }
            _ = try tx.add(.genericPassword(service: "caf\u{e9}", account: "\u{fc}ser"))   // composed é, ü
            _ = try tx.add(.secureNote(title: "note"))
        }
        #expect(try vault.items().count == 2_092)
        return (path, vault)
    }

    @Test("Scanned holders equal the built index's, for present, absent and canonically equal keys")
    func scanEqualsIndex() throws {
        try withTemporaryDirectory { dir in
            let (path, _) = try largeVault(dir)
            let codec = try VaultFileV2.parse(try Array(Data(contentsOf: URL(fileURLWithPath: path))))
            let keys = try VaultFileV2.unlock(codec.header, with: .password(try secure("pw"))).keys
            let snapshot = try VaultSnapshot(codec: codec, keys: keys,
                                             identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            let built = UniqueIndex()
            built.build(from: snapshot.entries)
            var scanning = UniqueIndex()
            let wanted: [UniquenessKey] = [
                .generic(service: "svc-7", account: "user3"),                       // present
                .generic(service: "svc-7", account: "user9"),                       // absent
                .generic(service: "SVC-7", account: "user3"),                       // case differs: absent
                .generic(service: "cafe\u{301}", account: "u\u{308}ser"),           // decomposed: canonically equal
                .generic(service: "caf\u{e8}", account: "\u{fc}ser"),                // è, not é: absent, bytes alone cannot say
                .generic(service: "caf\u{e9}", account: "\u{fc}ser"),                // as stored
                .internet(server: "host5.example", protocol: "", port: 0, path: "", account: "me"),
            ]
            let entries = snapshot.entries
            for (number, key) in wanted.enumerated() {
                if number % UniqueIndex.scansBeforeBuilding == 0 { scanning = UniqueIndex() }
                guard let scanned = scanning.scanned(key, in: entries) else {
                    Issue.record("a large vault scans for \(key)")
                    continue
                }
                #expect(scanned == built.holders[key], "\(key)")
                #expect(scanning.scanned(key, in: entries) == scanned, "asked again: the same, from the scans kept")
            }
            for number in 0..<UniqueIndex.scansBeforeBuilding {
                _ = scanning.scanned(.generic(service: "x\(number)", account: "y"), in: entries)
            }
            let past = scanning.scanned(.generic(service: "x", account: "y"), in: entries)
            #expect(past == nil, "past \(UniqueIndex.scansBeforeBuilding) keys the index is used")
        }
    }

    @Test("Through the API: duplicates refused, new keys accepted, renames checked, before and after the index is built")
    func duplicatesStillRefused() throws {
        try withTemporaryDirectory { dir in
            let (path, vault) = try largeVault(dir)
            func expectDuplicate(_ body: () throws -> Void) {
                let error = #expect(throws: CofferError.self) { try body() }
                #expect(error?.kind == .duplicateItem)
            }
            expectDuplicate { _ = try vault.add(.genericPassword(service: "svc-42", account: "user2")) }
            expectDuplicate { _ = try vault.add(.genericPassword(service: "cafe\u{301}", account: "u\u{308}ser")) }
            let added = try vault.add(.genericPassword(service: "svc-42", account: "user7"))
            expectDuplicate { _ = try vault.add(.genericPassword(service: "svc-42", account: "user7")) }   // the one just added
            expectDuplicate { try vault.update(added.id) { attributes, _ in attributes.account = "user1" } }
            try vault.update(added.id) { attributes, _ in attributes.account = "user8" }
            _ = try vault.add(.genericPassword(service: "svc-42", account: "user7"))   // the key it left is free again
            // Many keys in one transaction: the index is built on the way; still every duplicate found.
            expectDuplicate {
                try vault.transaction { tx in
                    for index in 0..<10 { _ = try tx.add(.genericPassword(service: "fresh-\(index)", account: "a")) }
                    _ = try tx.add(.genericPassword(service: "svc-1", account: "user0"))
                }
            }
            // Another process sees the same.
            let other = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            expectDuplicate { _ = try other.add(.internetPassword(server: "host5.example", account: "me")) }
            #expect(try other.items().count == 2_094)
        }
    }
}

import Foundation
import Testing
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

/// New items take their transaction's time (issue 29: bytes per entry).
@Suite("Vault: an item made in a transaction is dated at the transaction's time")
struct VaultTransactionTimeTests {
    /// Before: an item's dates were those of its attributes, made before the transaction's
    /// stamp was drawn (`coffer add` builds them before the KDF; a long import, during the
    /// transaction), so nearly every record wrote both dates out: 20 bytes more each.
    @Test("An item made later in a transaction is dated at its stamp and leaves its dates out; one with dates of its own keeps them")
    func itemsTakeTheTransactionsTime() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var old = ItemAttributes.genericPassword(service: "s3", account: "a")
            old.created = Date(millisecondsSince1970: 1_600_000_000_000)
            old.modified = old.created
            let (first, second, kept) = try vault.transaction { tx in
                let first = try tx.add(.genericPassword(service: "s1", account: "a"))
                Thread.sleep(forTimeInterval: 0.02)
                let second = try tx.add(.genericPassword(service: "s2", account: "a"))
                return (first, second, try tx.add(old))
            }
            #expect(second.attributes.created == first.attributes.created)
            #expect(second.attributes.modified == second.attributes.created)
            #expect(kept.attributes.created == old.created && kept.attributes.modified == old.modified)
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try reopened.item(second.id).attributes.created == second.attributes.created)
            #expect(try reopened.item(kept.id).attributes.created == old.created)
            // The same content's record: with its dates implied, shorter than with them written out.
            let records = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path)))).records
            func length(_ id: ItemID) throws -> Int { try #require(records.first { $0.id == id }).overviewLength }
            #expect(try length(second.id) == length(first.id))
            #expect(try length(kept.id) > length(second.id))
        }
    }
}

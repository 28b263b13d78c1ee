import Coffer
import CofferTestSupport
import Foundation
import Testing

/// `coffer list` makes the cells of a large table a range of rows per core: the columns must
/// line up across every range, and the rows keep the listing's order.
@Suite("coffer list: a large table")
struct CLILargeTableTests {
    @Test("8,200 rows: one width per column across the ranges made on several threads, rows in the listing's order")
    func largeTable() throws {
        try withVault { dir in
            let vault = try Vault.open(at: dir.appendingPathComponent("v.coffer"), password: secure("pw"), options: testOptions)
            try vault.transaction { tx in
                for index in 0..<8_200 {
                    // The widest name sorts last: only the last range holds it, and every
                    // range's rows are padded to it.
                    let service = index == 4_321 ? "zz-" + String(repeating: "w", count: 60) : "item-\(10_000 + index).example"
                    _ = try tx.add(.genericPassword(service: service, account: "a\(index % 7)"))
                }
            }
            let table = try CLI.run(["list", "v.coffer"], input: "pw\n", in: dir)
            #expect(table.status == 0, "\(table.err)")
            let lines = table.out.split(separator: "\n").map(String.init)
            #expect(lines.count == 8_201)
            let header = try #require(lines.first)
            let account = try #require(header.range(of: "ACCOUNT")).lowerBound.utf16Offset(in: header)
            #expect(account == 63 + 2)
            for line in lines.dropFirst() {
                let utf16 = Array(line.utf16)
                #expect(utf16.count > account && utf16[account - 1] == 0x20 && utf16[account] == UInt16(UInt8(ascii: "a")),
                        "a row whose account is not under ACCOUNT: \(line)")
            }
            // The rows in the order of the listing (`--json`).
            let listed = try #require(try CLI.run(["list", "v.coffer", "--json"], input: "pw\n", in: dir).json() as? [[String: Any]])
            let names = lines.dropFirst().map { String($0.prefix { $0 != " " }) }
            #expect(names == listed.map { $0["service"] as? String ?? "" })
            #expect(names.last == "zz-" + String(repeating: "w", count: 60))
        }
    }
}

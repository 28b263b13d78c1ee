import Foundation
import Testing
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

/// Issue 28, finding 7: an item's expiry date (overview tag 17, SPEC.md §7.2), set and
/// cleared through the vault, kept on disk, and merged in the unknown-attributes register
/// 0x7F (SPEC.md §17.2) so that format-2 readers that do not know the tag stay valid.
@Suite("Vault: expiry dates")
struct VaultExpiryTests {
    static let date = Date(timeIntervalSince1970: 1_904_281_689.1234)   // 2030-05-06T07:08:09.123Z

    @Test("add sets it (to the millisecond), update changes and clears it, and a reopened vault reads it")
    func setAndClear() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let vault = try Vault.create(at: path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "vpn", account: "ada")
            attributes.expires = Self.date
            #expect(attributes.expires?.timeIntervalSince1970 == 1_904_281_689.123)
            let item = try vault.add(attributes, secrets: ItemSecrets(password: secure("p")))
            #expect(item.expires == attributes.expires)
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).items().map(\.expires) == [attributes.expires])
            #expect(item.attributes.isExpired(at: Self.date) && !item.attributes.isExpired(at: Self.date.addingTimeInterval(-1)))

            let later = Date(millisecondsSince1970: 1_904_281_689_123 + 86_400_000)
            try vault.update(item.id) { a, _ in a.expires = later }
            #expect(try Vault.open(at: path, password: secure("pw"), options: testOptions).items().map { $0.expires?.millisecondsSince1970 }
                    == [1_904_281_689_123 + 86_400_000])
            try vault.update(item.id) { a, _ in a.expires = nil }
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions).items()
            #expect(reopened.map(\.expires) == [nil])
            #expect(!reopened[0].attributes.isExpired(at: .distantFuture))
        }
    }

    @Test("a date outside the years 1 to 9999 is refused, as for every item date")
    func outOfRange() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "vpn", account: "ada")
            attributes.expires = Date(timeIntervalSince1970: 253_402_300_800)   // 10000-01-01
            #expect(throws: CofferError.self) { try vault.add(attributes, secrets: ItemSecrets(password: secure("p"))) }
            #expect(try vault.items().isEmpty)
        }
    }

    @Test("tag 17 sits in tag order among unknown fields, and belongs to register 0x7F")
    func encoding() throws {
        var attributes = ItemAttributes.genericPassword(service: "vpn", account: "ada")
        attributes.expires = Self.date
        attributes.preservedFields = [PreservedField(tag: 16, value: [1]), PreservedField(tag: 18, value: [2])]
        let list = EntryCodec.encodeOverview(attributes).publicBytes
        // The list's tags and values (u16 tag, u32 length, little-endian).
        var fields: [(UInt16, [UInt8])] = []
        var offset = 0
        while offset + 6 <= list.count {
            let tag = UInt16(list[offset]) | UInt16(list[offset + 1]) << 8
            let length = (0..<4).reduce(0) { $0 | Int(list[offset + 2 + $1]) << (8 * $1) }
            fields.append((tag, Array(list[(offset + 6)..<(offset + 6 + length)])))
            offset += 6 + length
        }
        #expect(fields.map(\.0).filter { $0 >= 15 } == [16, 17, 18])
        let value = try #require(fields.first { $0.0 == 17 }?.1)
        #expect(value == withUnsafeBytes(of: Int64(1_904_281_689_123).littleEndian) { Array($0) })
        #expect(Register.ofOverviewTag(17) == .unknownOverview)
        #expect(try ItemParts.registers(ofOverview: list).contains(.unknownOverview))
    }

    @Test("merging: an expiry set on one replica and a label on the other are both kept; concurrent expiry dates conflict in register 0x7F")
    func merge() throws {
        try withTemporaryDirectory { dir in
            let pathA = dir.appendingPathComponent("a.coffer").path, pathB = dir.appendingPathComponent("b.coffer").path
            let a = try Vault.create(at: pathA, password: secure("pw"), options: testOptions)
            let id = try a.add(.genericPassword(service: "vpn", account: "ada"), secrets: ItemSecrets(password: secure("p"))).id
            try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
            let b = try Vault.open(at: pathB, password: secure("pw"), options: testOptions)
            try a.update(id) { attributes, _ in attributes.expires = Self.date }
            try b.update(id) { attributes, _ in attributes.label = "VPN" }
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            for vault in [a, b] {
                let item = try vault.item(id)
                #expect(item.expires == Self.date.roundedToMilliseconds && item.label == "VPN")
                #expect(try vault.conflicts(for: id).isEmpty)
            }
            let later = Self.date.addingTimeInterval(3600)
            try a.update(id) { attributes, _ in attributes.expires = later }
            try b.update(id) { attributes, _ in attributes.expires = nil }
            try a.merge(contentsOf: pathB)
            try b.merge(contentsOf: pathA)
            let winners = try [a, b].map { try $0.item(id).expires }
            #expect(winners[0] == winners[1])
            #expect(try a.conflicts(for: id).map(\.field) == ["unknown-attributes"])
        }
    }
}

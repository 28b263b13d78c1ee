import Foundation
import Testing
import CofferTransfer
import CofferTestSupport

@Suite("Transfer: item JSON")
struct TransferItemJSONTests {
    @Test("one item shape: every key, in the documented order; strings escaped; invalid UTF-8 refused")
    func shape() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.genericPassword(service: "a\"b\\c\n", account: "me")
            attributes.fields = [CustomField(name: "n", value: "\u{1}")]
            let item = try vault.add(attributes, secrets: ItemSecrets(password: secure("secret")))
            let out = WipingBuffer()
            defer { out.removeAll() }
            ItemJSON.writeAttributes(of: item, to: out)
            let text = try #require(out.string())
            #expect(text.hasPrefix("{\"id\":\"\(item.id.hex)\",\"kind\":\"generic-password\",\"label\":null,\"service\":\"a\\\"b\\\\c\\n\""))
            #expect(text.contains("\"fields\":[{\"name\":\"n\",\"value\":\"\\u0001\"}]"))
            #expect(!text.contains("secret"))
            let keys = ["id", "kind", "label", "service", "account", "server", "protocol", "port", "path", "comment", "urls",
                        "tags", "favorite", "fields", "created", "modified", "expires"]
            let positions = keys.compactMap { text.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.count == keys.count && positions == positions.sorted())
            #expect(["id"] + ItemJSON.attributeKeys == keys)
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
            let invalid: [UInt8] = [0xC3]
            #expect(!invalid.withUnsafeBytes { out.appendJSONString($0) })
        }
    }

    @Test("one shape owner: the export's item objects and list --json's have the same attributes in the same order")
    func exportAndListShareTheShape() throws {
        try withTemporaryDirectory { dir in
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: testOptions)
            var attributes = ItemAttributes.internetPassword(server: "example.com", account: "alice")
            attributes.label = "Example"
            attributes.comment = "c"
            attributes.urls = ["https://example.com"]
            attributes.tags = ["t", "u"]
            attributes.fields = [CustomField(name: "n", value: "v")]
            attributes.expires = Date(timeIntervalSince1970: 1_904_281_689.125)
            let item = try vault.add(attributes, secrets: ItemSecrets(password: secure("secret")))
            let compact = WipingBuffer()
            defer { compact.removeAll() }
            ItemJSON.writeAttributes(of: item, to: compact)
            let listed = try #require(compact.string())
            let exported = try #require(try vault.exportItems(format: .json).unsafeStringCopy())
            // The keys as they come, in each text: the export's object minus its secrets, the
            // listing's minus its id.
            func keys(_ text: String, among names: [String]) -> [String] {
                names.compactMap { name in text.range(of: "\"\(name)\":").map { (name, $0.lowerBound) } }
                    .sorted { $0.1 < $1.1 }.map(\.0)
            }
            let attributeKeys = ["kind", "label", "service", "account", "server", "protocol", "port", "path", "comment",
                                 "urls", "tags", "favorite", "fields", "created", "modified", "expires"]
            #expect(keys(listed, among: attributeKeys) == attributeKeys)
            #expect(keys(exported, among: attributeKeys) == attributeKeys)
            // Same values too: each attribute member of one is in the other, layout aside.
            let listedObject = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])
            let export = try #require(try JSONSerialization.jsonObject(with: Data(exported.utf8)) as? [String: Any])
            let exportedObject = try #require((export["items"] as? [[String: Any]])?.first)
            func canonical(_ object: [String: Any], _ key: String) throws -> Data {
                try JSONSerialization.data(withJSONObject: [key: object[key] ?? NSNull()], options: .sortedKeys)
            }
            for key in attributeKeys {
                #expect(try canonical(listedObject, key) == canonical(exportedObject, key), "\(key)")
            }
            #expect(exported.contains("\"urls\": [\"https://example.com\"],\n      \"tags\": [\"t\", \"u\"]"))
            #expect(listed.contains("\"tags\":[\"t\",\"u\"]"))
            // The expiry date (issue 28, finding 7) goes out and comes back with the rest.
            #expect(exported.contains("\"expires\": \"2030-05-06T07:08:09.125Z\""))
            let other = try Vault.create(at: dir.appendingPathComponent("w.coffer").path, password: secure("pw"), options: testOptions)
            _ = try other.importItems(from: try vault.exportItems(format: .json), format: .cofferJSON)
            #expect(try other.items(matching: .all).map(\.expires) == [attributes.expires])
        }
    }
}

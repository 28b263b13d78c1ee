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
            let keys = ["id", "kind", "label", "service", "account", "server", "protocol", "port", "path", "urls", "tags",
                        "favorite", "comment", "fields", "created", "modified"]
            let positions = keys.compactMap { text.range(of: "\"\($0)\":")?.lowerBound }
            #expect(positions.count == keys.count && positions == positions.sorted())
            #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
            let invalid: [UInt8] = [0xC3]
            #expect(!invalid.withUnsafeBytes { out.appendJSONString($0) })
        }
    }
}

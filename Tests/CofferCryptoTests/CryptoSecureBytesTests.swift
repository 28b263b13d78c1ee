import Testing
import CofferCrypto

@Suite("Crypto: SecureBytes")
struct CryptoSecureBytesTests {
    static let marker = "hunter2-SECRET-4f1c"

    @Test("description, debugDescription, interpolation and dump never show the bytes")
    func redaction() throws {
        let secret = try SecureBytes(copying: Self.marker)
        #expect(secret.description == "<redacted>")
        #expect(secret.debugDescription == "<redacted>")
        #expect("\(secret)" == "<redacted>")
        #expect(String(describing: secret) == "<redacted>")
        #expect(String(reflecting: secret) == "<redacted>")
        var dumped = ""
        dump(secret, to: &dumped)
        #expect(!dumped.contains(Self.marker))
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("<redacted>"))
        // Wrapped inside other values, too.
        struct Holder { let password: SecureBytes }
        var dumpedHolder = ""
        dump(Holder(password: secret), to: &dumpedHolder)
        #expect(!dumpedHolder.contains("hunter2"))
        #expect(!"\(Holder(password: secret))".contains("hunter2"))
        #expect(!"\([secret])".contains("hunter2"))
        #expect(!"\(Optional(secret) as Any)".contains("hunter2"))
    }

    @Test("Bytes are reachable inside the closure and compare in constant time")
    func access() throws {
        let a = try SecureBytes(copying: [1, 2, 3])
        let b = try SecureBytes(copying: [1, 2, 3])
        let c = try SecureBytes(copying: [1, 2, 4])
        let d = try SecureBytes(copying: [1, 2])
        #expect(a == b)
        #expect(a != c)
        #expect(a != d)
        #expect(try SecureBytes(copying: []) == SecureBytes(copying: []))
        #expect(a.withUnsafeBytes { Array($0) } == [1, 2, 3])
        #expect(try SecureBytes.random(count: 32).count == 32)
        #expect(try SecureBytes(copying: "héllo").unsafeStringCopy() == "héllo")
        #expect(try SecureBytes(copying: [0xff, 0xfe]).unsafeStringCopy() == nil)
    }

    @Test("Usable from many tasks at once")
    func concurrent() async throws {
        let key = try SecureBytes.random(count: 32)
        let copies = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask { try SecureBytes(copying: key.withUnsafeBytes { Array($0) }) == key }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(copies.allSatisfy { $0 })
        #expect(copies.count == 16)
    }
}

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

/// The shared slabs small secrets live in (``SecurePool``), each test with a pool of its own
/// so that other tests' secrets do not change the counts.
@Suite("Crypto: the guarded pool of small secrets")
struct CryptoSecurePoolTests {
    @Test("Chunks of every size keep their own bytes; slabs go back when free, one kept per size")
    func chunksStayApart() throws {
        let pool = SecurePool()
        var generator = SystemRandomNumberGenerator()
        var held: [(pointer: UnsafeMutablePointer<UInt8>, slab: SecurePool.Slab, count: Int, pattern: UInt8)] = []
        func check() {
            for chunk in held {
                #expect(UnsafeBufferPointer(start: chunk.pointer, count: chunk.count).allSatisfy { $0 == chunk.pattern })
            }
        }
        for round in 0..<3 {
            for index in 0..<1_500 {
                let count = Int.random(in: 1...SecurePool.largest, using: &generator)
                let (pointer, slab) = try pool.allocate(count)
                #expect(slab.chunkSize >= count)
                let pattern = UInt8(truncatingIfNeeded: index * 7 + round + 1) | 1
                pointer.update(repeating: pattern, count: count)
                held.append((pointer, slab, count, pattern))
            }
            check()
            held.shuffle(using: &generator)
            for chunk in held.suffix(held.count / 2) { pool.release(chunk.pointer, slab: chunk.slab) }
            held.removeLast(held.count / 2)
            check()
        }
        #expect(pool.slabCount > 8)
        for chunk in held { pool.release(chunk.pointer, slab: chunk.slab) }
        // Every slab is free: each size class keeps at most one, the rest went back.
        #expect(pool.slabCount <= 8)
        #expect(pool.slabCount >= 1)
    }

    @Test("A chunk given back is wiped, and given out again it reads zero once filled with nothing")
    func releasedChunkIsWiped() throws {
        let pool = SecurePool()
        let (pointer, slab) = try pool.allocate(100)
        pointer.update(repeating: 0xA5, count: 100)
        pool.release(pointer, slab: slab)
        // The slab stays (the only one of its size): its memory is still mapped, and wiped.
        #expect(pool.slabCount == 1)
        #expect(UnsafeBufferPointer(start: pointer, count: slab.chunkSize).allSatisfy { $0 == 0 })
        // Secrets from the shared pool start zeroed whatever a chunk held before.
        for _ in 0..<64 {
            let secret = try SecureBytes(count: 100) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
            secret.withUnsafeBytes { #expect($0.allSatisfy { $0 == 0 }) }
        }
    }

    @Test("Longer secrets than the pool's largest chunk get a region of their own")
    func largestBound() throws {
        let pool = SecurePool()
        #expect(throws: CofferError.self) { _ = try pool.allocate(SecurePool.largest + 1) }
        let long = try SecureBytes(count: SecurePool.largest + 1) { (buffer) throws(CofferError) in
            buffer.initializeMemory(as: UInt8.self, repeating: 7)
        }
        long.withUnsafeBytes { #expect($0.count == SecurePool.largest + 1 && $0.allSatisfy { $0 == 7 }) }
    }
}

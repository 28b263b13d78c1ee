import Foundation
import Testing
import CofferTestSupport

/// ``ProcessMemory``: a short-lived process has the allocator keep what it frees (the
/// Argon2id memory, a large vault's buffers) for its later blocks, and gives it back when
/// asked. Checked on the allocator itself, in fresh processes (`CofferTestWriter allocator`)
/// on their main thread, as `coffer` derives its keys: whether a block of a KDF's 64 MiB is
/// mapped on its own (fresh pages, a fault each, and unmapped when freed) or comes from
/// the heap, where the next one finds it.
@Suite("Crypto: the allocator of a short-lived process (ProcessMemory)")
struct CryptoProcessMemoryTests {
    static var writer: String { buildProductsDirectory().appendingPathComponent("CofferTestWriter").path }

    func blocks(_ mode: String) throws -> String {
        let result = try runProcess(URL(fileURLWithPath: Self.writer), ["allocator", mode, String(64 << 20)])
        #expect(result.status == 0, "\(result.err)")
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("A 64 MiB block is mapped by default, from the heap after keepFreedMemory (and again when freed), mapped after returnFreedMemory")
    func keepsAndReturns() throws {
        #if canImport(Glibc)
        #expect(try blocks("default") == "mapped mapped")
        #expect(try blocks("keep") == "heap heap")
        #expect(try blocks("keep-then-return") == "mapped mapped")
        #endif
    }
}

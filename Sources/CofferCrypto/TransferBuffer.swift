internal import CSodium
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable byte buffer for plaintext the library handles while importing or
/// exporting (unescaped secrets, an export being written, an otpauth URI being built).
///
/// Why not `[UInt8]`: an array that grows leaves its old storage behind unwiped. This
/// buffer zeroes every copy it leaves: on growth, on ``removeAll()`` and on release,
/// and hands its bytes to ``SecureBytes`` without another copy.
package final class TransferBuffer {
    package private(set) var pointer: UnsafeMutablePointer<UInt8>
    package private(set) var capacity: Int
    package private(set) var count = 0

    package init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit {
        sodium_memzero(pointer, capacity)
        pointer.deallocate()
    }

    package var isEmpty: Bool { count == 0 }

    /// The bytes written so far; valid until the next change.
    package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    package func append(_ byte: UInt8) {
        if count == capacity { grow(to: capacity * 2) }
        pointer[count] = byte
        count += 1
    }

    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (pointer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Appends a non-secret string's UTF-8.
    package func append(_ text: String) {
        var copy = text
        copy.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a secret's bytes straight from guarded memory.
    package func append(_ secret: SecureBytes) {
        secret.withUnsafeBytes { append($0) }
    }

    /// Zeroes the contents and starts again (the storage is kept).
    package func removeAll() {
        sodium_memzero(pointer, capacity)
        count = 0
    }

    /// A copy of the contents in guarded memory.
    package func secureBytes() throws(CofferError) -> SecureBytes {
        let source = pointer
        let length = count
        return try SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            if length > 0, let base = out.baseAddress { base.copyMemory(from: source, byteCount: length) }
        }
    }

    /// The contents as a `String` (for non-secret text only), or nil if not UTF-8.
    package func string() -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }

    private func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var next = capacity
        while next < count + extra { next *= 2 }
        grow(to: next)
    }

    private func grow(to newCapacity: Int) {
        let next = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        next.update(from: pointer, count: count)
        sodium_memzero(pointer, capacity)
        pointer.deallocate()
        pointer = next
        capacity = newCapacity
    }
}

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
final class TransferBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit {
        sodium_memzero(pointer, capacity)
        pointer.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The bytes written so far; valid until the next change.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    func append(_ byte: UInt8) {
        if count == capacity { grow(to: capacity * 2) }
        pointer[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (pointer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Appends a non-secret string's UTF-8.
    func append(_ text: String) {
        var copy = text
        copy.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a secret's bytes straight from guarded memory.
    func append(_ secret: SecureBytes) {
        secret.withUnsafeBytes { append($0) }
    }

    /// Zeroes the contents and starts again (the storage is kept).
    func removeAll() {
        sodium_memzero(pointer, capacity)
        count = 0
    }

    /// A copy of the contents in guarded memory.
    func secureBytes() throws(CofferError) -> SecureBytes {
        let source = pointer
        let length = count
        return try SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            if length > 0, let base = out.baseAddress { base.copyMemory(from: source, byteCount: length) }
        }
    }

    /// The contents as a `String` (for non-secret text only), or nil if not UTF-8.
    func string() -> String? {
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

/// Standard base64 (RFC 4648 §4, padded), decoded by libsodium into guarded memory.
enum Base64 {
    /// Decodes `text` (whitespace ignored); nil when it is not valid base64.
    static func decode(_ text: SecureBytes) throws(CofferError) -> SecureBytes? {
        var length = 0
        var status: Int32 = 0
        // Base64 is never shorter than its bytes: decode into guarded memory that size, then trim.
        let full = try SecureBytes(count: text.count) { (out: UnsafeMutablePointer<UInt8>, capacity: Int) throws(CofferError) in
            status = text.withBytePointer { pointer, count in
                sodium_base642bin(out, capacity, UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self),
                                  count, " \t\r\n", &length, nil, Int32(sodium_base64_VARIANT_ORIGINAL))
            }
        }
        guard status == 0 else { return nil }
        return try full.slice(0..<length)
    }
}

extension SecureBytes {
    /// `value`, or an empty secret when nil (`??` cannot call a typed-throwing initialiser).
    static func orEmpty(_ value: SecureBytes?) throws(CofferError) -> SecureBytes {
        if let value { return value }
        return try SecureBytes(count: 0) { (_: UnsafeMutableRawBufferPointer) throws(CofferError) in }
    }
}

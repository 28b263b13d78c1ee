internal import CSodium

/// A growable byte buffer for plaintext on its way into or out of ``SecureBytes``: a
/// line typed at a prompt, a JSON document being written, an import being unescaped.
///
/// Why not `[UInt8]`: an array that grows leaves its old storage behind unwiped. This
/// buffer zeroes every copy it leaves: on growth, on ``removeAll()`` and on release,
/// and hands its bytes to ``SecureBytes`` without another copy.
///
/// ```swift
/// let line = WipingBuffer()
/// defer { line.removeAll() }
/// for byte in typed { line.append(byte) }
/// let password = try line.secureBytes()   // guarded memory; `line` is wiped on release
/// ```
///
/// Not thread-safe: one buffer belongs to one task at a time.
public final class WipingBuffer {
    /// The storage: `capacity` bytes, of which the first `count` are written.
    public private(set) var pointer: UnsafeMutablePointer<UInt8>
    public private(set) var capacity: Int
    public private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes (at least 16) before it grows.
    public init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        pointer = .allocate(capacity: self.capacity)
    }

    deinit {
        sodium_memzero(pointer, capacity)
        pointer.deallocate()
    }

    public var isEmpty: Bool { count == 0 }

    /// The last byte written, if any.
    public var last: UInt8? { count > 0 ? pointer[count - 1] : nil }

    /// The bytes written so far; valid until the next change.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    public func append(_ byte: UInt8) {
        if count == capacity { grow(to: capacity * 2) }
        pointer[count] = byte
        count += 1
    }

    public func append(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (pointer + count).update(from: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    /// Appends a non-secret string's UTF-8.
    public func append(_ text: String) {
        var copy = text
        copy.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a secret's bytes straight from guarded memory.
    public func append(_ secret: SecureBytes) {
        secret.withUnsafeBytes { append($0) }
    }

    /// Zeroes and drops the last byte, if any.
    public func removeLast() {
        guard count > 0 else { return }
        count -= 1
        pointer[count] = 0
    }

    /// Zeroes the contents and starts again (the storage is kept).
    public func removeAll() {
        sodium_memzero(pointer, capacity)
        count = 0
    }

    /// A copy of the contents in guarded memory, with no copy in ordinary memory.
    public func secureBytes() throws(CofferError) -> SecureBytes {
        let source = pointer
        let length = count
        return try SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) throws(CofferError) in
            if length > 0, let base = out.baseAddress { base.copyMemory(from: source, byteCount: length) }
        }
    }

    /// The contents as a `String` (for non-secret text only), or nil if not UTF-8.
    public func string() -> String? {
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

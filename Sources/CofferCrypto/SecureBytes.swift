internal import CSodium

/// Secret bytes in guarded memory.
///
/// The bytes live in a region from `sodium_malloc`: locked in RAM (not swapped
/// out; see ``SecureMemory`` for when the system refuses that), kept out of core dumps,
/// surrounded by guard pages, and zeroed and freed on release. Secrets of up to 2 KiB
/// share such regions (64 KiB slabs, each secret wiped when released), so that a vault of
/// many items does not cost a kernel mapping per item. They are
/// reachable only inside a scoped closure, and never shown by `description`,
/// `debugDescription`, `dump` or string interpolation. `==` runs in constant time.
///
/// ```swift
/// let key = try SecureBytes.random(count: 32)
/// let password = try SecureBytes(copying: "correct horse")   // copies the String
/// password.withUnsafeBytes { bytes in
///     // use bytes; do not let them escape
/// }
/// print(password)   // <redacted>
/// ```
public final class SecureBytes: @unchecked Sendable {
    // @unchecked: the region is written only during initialisation; afterwards
    // it is read-only, so sharing across threads is safe.
    private let region: UnsafeMutablePointer<UInt8>
    /// The shared slab the region is a chunk of; nil for a region of its own.
    private let slab: SecurePool.Slab?
    /// The number of secret bytes.
    public let count: Int

    /// Allocates `count` zeroed bytes of guarded memory and lets `fill` write them, so a
    /// secret can be built in place (read from a file or a terminal) without an
    /// ordinary-memory copy. If `fill` throws, the region is wiped and freed.
    ///
    /// ```swift
    /// let key = try SecureBytes(count: 32) { (buffer) throws(CofferError) in   // the closure's throws is typed
    ///     guard read(fd, buffer.baseAddress, 32) == 32 else { throw CofferError.invalidKey("short key file") }
    /// }
    /// ```
    public convenience init(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(CofferError) -> Void) throws(CofferError) {
        try self.init(count: count) { (pointer: UnsafeMutablePointer<UInt8>, length: Int) throws(CofferError) in
            try fill(UnsafeMutableRawBufferPointer(start: pointer, count: length))
        }
    }

    /// Same, with a typed non-null pointer for C calls (valid even when `count` is 0).
    package init(count: Int, fillPointer fill: (UnsafeMutablePointer<UInt8>, Int) throws(CofferError) -> Void) throws(CofferError) {
        guard count >= 0 else { throw .invalidArgument("negative length") }
        try Sodium.ensureInitialized()
        // One byte at least, so the pointer is always real.
        let size = max(count, 1)
        let pointer: UnsafeMutablePointer<UInt8>
        if size <= SecurePool.largest {
            let (chunk, slab) = try SecurePool.shared.allocate(size)
            sodium_memzero(chunk, size)
            do {
                try fill(chunk, count)
            } catch {
                SecurePool.shared.release(chunk, slab: slab)
                throw error
            }
            pointer = chunk
            self.slab = slab
        } else {
            guard let raw = sodium_malloc(size) else { throw .secureMemoryUnavailable }
            guard SecureMemory.lock(raw, count: size) else {
                sodium_free(raw)
                throw .secureMemoryUnavailable
            }
            sodium_memzero(raw, size)
            pointer = raw.bindMemory(to: UInt8.self, capacity: size)
            do {
                try fill(pointer, count)
            } catch {
                sodium_free(raw)
                throw error
            }
            slab = nil
        }
        region = pointer
        self.count = count
    }

    /// Copies `bytes` into guarded memory. The caller's copy is not wiped.
    public convenience init<Bytes: Sequence>(copying bytes: Bytes) throws(CofferError) where Bytes.Element == UInt8 {
        if let array = bytes as? [UInt8] {
            try self.init(count: array.count) { buffer in buffer.copyBytes(from: array) }
        } else {
            // Any other sequence goes through a temporary array, wiped before it is freed.
            var array = Array(bytes)
            defer { Self.wipe(&array) }
            try self.init(count: array.count) { buffer in buffer.copyBytes(from: array) }
        }
    }

    /// Copies the UTF-8 bytes of `string` into guarded memory.
    ///
    /// - Important: Swift `String`s live in ordinary memory and cannot be wiped; the
    ///   original string (and any copies Swift made of it) stays in the heap until
    ///   reused. Prefer building secrets as `SecureBytes` from the start.
    public convenience init(copying string: String) throws(CofferError) {
        var utf8 = Array(string.utf8)
        defer { Self.wipe(&utf8) }
        try self.init(copying: utf8)
    }

    /// `count` bytes from the operating system's cryptographic random source.
    public static func random(count: Int) throws(CofferError) -> SecureBytes {
        try SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 { randombytes_buf(base, buffer.count) }
        }
    }

    deinit {
        if let slab {
            SecurePool.shared.release(region, slab: slab)   // wiped, then given back
        } else {
            sodium_free(region)   // zeroes the region before unmapping it
        }
    }

    /// Non-null typed pointer and length, for C calls inside the module.
    package func withBytePointer<R, E: Error>(_ body: (UnsafePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        try body(UnsafePointer(region), count)
    }

    /// Writable access for code in the crypto layer that reuses one guarded buffer for many
    /// values (a scratch buffer per thread); the caller wipes what it wrote. Do not let the
    /// pointer escape.
    package func withMutableBytePointer<R, E: Error>(_ body: (UnsafeMutablePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        try body(region, count)
    }

    /// Calls `body` with the secret bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: region, count: count))
    }

    /// Copies the bytes into a `String`, which cannot be wiped (see ``init(copying:)-(String)``).
    /// Returns nil when the bytes are not valid UTF-8.
    public func unsafeStringCopy() -> String? {
        withUnsafeBytes { bytes in
            let string = String(decoding: bytes, as: UTF8.self)
            // Decoding repairs invalid UTF-8; a repaired string differs from the bytes.
            return string.utf8.elementsEqual(bytes) ? string : nil
        }
    }

    /// A new `SecureBytes` holding the bytes `range` of this one.
    package func slice(_ range: Range<Int>) throws(CofferError) -> SecureBytes {
        guard range.lowerBound >= 0, range.upperBound <= count else { throw .invalidArgument("slice out of range") }
        return try SecureBytes(count: range.count) { out in
            if range.count > 0, let dst = out.baseAddress {
                dst.copyMemory(from: UnsafeRawPointer(region + range.lowerBound), byteCount: range.count)
            }
        }
    }

    /// Zeroes an ordinary array in place (`sodium_memzero`), for temporary copies
    /// that had to exist. The compiler cannot optimise the zeroing away.
    ///
    /// ```swift
    /// var line = readLineBytes()
    /// defer { SecureBytes.wipe(&line) }
    /// ```
    public static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }

    /// ``wipe(_:)`` for arrays of other plain values (code points, word indices).
    package static func wipe<Value: BitwiseCopyable>(_ values: inout [Value]) {
        values.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { sodium_memzero(base, buffer.count) }
        }
    }
}

extension SecureBytes: Equatable {
    /// Constant-time comparison of the contents (lengths are not secret).
    public static func == (lhs: SecureBytes, rhs: SecureBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.count == 0 { return true }
        return sodium_memcmp(lhs.region, rhs.region, lhs.count) == 0
    }
}

extension SecureBytes: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }
}

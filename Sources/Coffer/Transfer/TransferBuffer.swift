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

/// Reading an import file and writing an export file.
enum TransferFile {
    /// Reads a whole regular file into guarded memory, refusing files over `limit` bytes.
    static func contents(of path: String, limit: Int) throws(CofferError) -> SecureBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw code == ENOENT ? .fileNotFound(path) : .io(operation: "open import file", path: path, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "stat import file", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .invalidArgument("\(path) is not a regular file") }
        let size = Int(info.st_size)
        guard size <= limit else { throw .invalidArgument("\(path) is larger than \(limit >> 20) MiB") }
        return try SecureBytes(count: size) { (buffer: UnsafeMutableRawBufferPointer) throws(CofferError) in
            var offset = 0
            while offset < size {
                guard let base = buffer.baseAddress else { return }
                let n = read(fd, base + offset, size - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .io(operation: "read import file", path: path, errno: n < 0 ? errno : EIO) }
                offset += n
            }
        }
    }

    /// Writes `contents` to a new file with mode 0600 (never over an existing file) and fsyncs it.
    static func writeNew(_ contents: SecureBytes, to path: String) throws(CofferError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw .fileExists(path) }
            if code == ENOENT { throw .fileNotFound(path) }
            throw .io(operation: "create export file", path: path, errno: code)
        }
        var failure: CofferError?
        contents.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = write(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failure = .io(operation: "write export file", path: path, errno: n < 0 ? errno : EIO); return }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = .io(operation: "fsync export file", path: path, errno: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
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

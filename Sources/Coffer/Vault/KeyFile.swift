#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A key file: any file whose bytes act as a key. Coffer keeps only its 32-byte
/// BLAKE2b digest, in guarded memory.
///
/// ```swift
/// let keyFile = try KeyFile.generate(at: "/secure/usb/vault.key")   // 64 random bytes, mode 0600
/// let vault = try Vault.open(at: path, credential: .keyFile(keyFile))
/// ```
///
/// Any file works, but its strength is its entropy: prefer a generated one.
public struct KeyFile: Sendable {
    /// BLAKE2b-256 of `"coffer.v1.keyfile" 0x00 || contents` (SPEC.md §4.3).
    let material: SecureBytes

    /// Key files larger than this are refused (a key file is not a document store).
    public static let maximumSize = 16 << 20

    /// Reads a key file. Its contents go straight into guarded memory.
    public init(contentsOf path: String) throws(CofferError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw code == ENOENT ? .fileNotFound(path) : .io(operation: "open key file", path: path, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(operation: "stat key file", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .invalidArgument("key file \(path) is not a regular file") }
        let size = Int(info.st_size)
        guard size > 0 else { throw .invalidArgument("key file \(path) is empty") }
        guard size <= Self.maximumSize else { throw .invalidArgument("key file \(path) is larger than 16 MiB") }
        let contents = try SecureBytes(count: size) { (buffer: UnsafeMutableRawBufferPointer) throws(CofferError) in
            var offset = 0
            while offset < size {
                guard let base = buffer.baseAddress else { return }
                let n = read(fd, base + offset, size - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw .io(operation: "read key file", path: path, errno: n < 0 ? errno : EIO) }
                offset += n
            }
        }
        material = try contents.withUnsafeBytes { (raw) throws(CofferError) in try SlotKey.keyFileMaterial(contents: raw) }
    }

    /// A key file from bytes the caller already holds.
    public init(contents: SecureBytes) throws(CofferError) {
        guard contents.count > 0 else { throw .invalidArgument("key file contents are empty") }
        material = try contents.withUnsafeBytes { (raw) throws(CofferError) in try SlotKey.keyFileMaterial(contents: raw) }
    }

    /// Writes 64 random bytes to a new file (mode 0600; never overwrites) and returns it.
    public static func generate(at path: String) throws(CofferError) -> KeyFile {
        let contents = try SecureBytes.random(count: 64)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw .fileExists(path) }
            if code == ENOENT { throw .fileNotFound(path) }
            throw .io(operation: "create key file", path: path, errno: code)
        }
        var failure: CofferError?
        contents.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = write(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failure = .io(operation: "write key file", path: path, errno: n < 0 ? errno : EIO); return }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = .io(operation: "fsync key file", path: path, errno: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
        return try KeyFile(contents: contents)
    }
}

import CofferCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole files whose bytes are secret (key files, import and export files): read
/// straight into guarded memory, written new with mode 0600. Not the vault file, which
/// goes through ``VaultFileStore`` and its I/O seam.
package enum SecretFile {
    /// Reads a whole regular file into guarded memory, refusing files over `limit` bytes
    /// and, with `ownerOnly`, files that others may read or write (mode beyond 0700).
    /// `kind` names the file in operations ("key file"), `name` in messages.
    package static func contents(of path: String, limit: Int, kind: String, name: String,
                                 ownerOnly: Bool = false) throws(StoreError) -> SecureBytes {
        // O_NONBLOCK: a FIFO planted at the path must not block the open; the fstat
        // below then refuses it. No effect on regular files.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            throw code == ENOENT ? .fileNotFound(path) : .system(.secretFile(.open, kind: kind), path: path, errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(.secretFile(.stat, kind: kind), path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile("\(name) is not a regular file", path: path) }
        if ownerOnly, info.st_mode & 0o077 != 0 {
            throw .insecurePermissions("\(name) must be readable by its owner only (mode 0600)", path: path)
        }
        let size = Int(info.st_size)
        guard size <= limit else { throw .fileTooLarge("\(name) is larger than \(limit >> 20) MiB", path: path) }
        var failure: StoreError?
        let contents: SecureBytes
        do throws(CofferError) {
            contents = try SecureBytes(count: size) { (buffer: UnsafeMutableRawBufferPointer) in
                var offset = 0
                while offset < size {
                    guard let base = buffer.baseAddress else { return }
                    let n = read(fd, base + offset, size - offset)
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else {
                        failure = .system(.secretFile(.read, kind: kind), path: path, errno: n < 0 ? errno : EIO)
                        return
                    }
                    offset += n
                }
            }
        } catch {
            throw .crypto(error)
        }
        // On a failed read, `contents` is released (and wiped) here.
        if let failure { throw failure }
        return contents
    }

    /// Writes `contents` to a new file with mode 0600 (never over an existing file or
    /// through a symbolic link) and fsyncs it; on failure the file is removed.
    package static func writeNew(_ contents: SecureBytes, to path: String, kind: String) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let code = errno
            if code == EEXIST { throw .fileExists(path) }
            if code == ENOENT { throw .fileNotFound(path) }
            throw .system(.secretFile(.create, kind: kind), path: path, errno: code)
        }
        var failure: StoreError?
        contents.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count, let base = raw.baseAddress {
                let n = write(fd, base + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { failure = .system(.secretFile(.write, kind: kind), path: path, errno: n < 0 ? errno : EIO); return }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = .system(.secretFile(.fsync, kind: kind), path: path, errno: errno) }
        close(fd)
        if let failure {
            unlink(path)
            throw failure
        }
    }
}

extension SecureBytes {
    /// Reads a whole file whose bytes are secret (a key, a token) straight into guarded
    /// memory: the reader Coffer uses for key files and import files. Only a regular file
    /// is read (a FIFO or device at `path` is refused without blocking), up to
    /// `maximumSize` bytes; with `ownerOnly`, a file that others may read or write
    /// (mode beyond 0700) is refused. A missing file is ``CofferError/fileNotFound(_:)``.
    ///
    /// ```swift
    /// let token = try SecureBytes.readSecretFile(at: "/run/secrets/token", maximumSize: 4096, ownerOnly: true)
    /// ```
    public static func readSecretFile(at path: String, maximumSize: Int = 16 << 20, ownerOnly: Bool = false) throws(CofferError) -> SecureBytes {
        try storeCall { () throws(StoreError) in
            try SecretFile.contents(of: path, limit: maximumSize, kind: "secret file", name: path, ownerOnly: ownerOnly)
        }
    }

    /// Writes these bytes to a new file with mode 0600 (never over an existing file or
    /// through a symbolic link) and flushes it to disk; on failure the file is removed.
    /// An existing file is ``CofferError/fileExists(_:)``.
    ///
    /// ```swift
    /// let key = try SecureBytes.random(count: 32)
    /// try key.writeNewSecretFile(at: "/secure/device.key")
    /// ```
    public func writeNewSecretFile(at path: String) throws(CofferError) {
        try storeCall { () throws(StoreError) in try SecretFile.writeNew(self, to: path, kind: "secret file") }
    }
}

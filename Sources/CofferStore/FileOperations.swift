import CofferCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `operation` names the store puts in ``CofferError/io(operation:path:errno:)``.
///
/// The Vault layer can compare against these, e.g. ``syncDirectory`` means "the new
/// file is in place but its durability is unknown" (see ``AtomicWriter``).
package enum StoreOperation {
    static let openDirectory = "open directory"
    static let createTemporary = "create temporary file"
    static let setPermissions = "set permissions"
    static let write = "write"
    static let syncFile = "fsync"
    static let stat = "stat"
    static let close = "close"
    static let linkBackup = "link backup"
    static let renameBackup = "rename backup"
    static let commit = "rename"
    static let linkNew = "link new file"
    package static let syncDirectory = "fsync directory"
    static let open = "open"
    static let read = "read"
    static let openLock = "open lock file"
    static let lock = "flock"
    static let readLink = "readlink"
}

/// Small helpers over the seam: `EINTR` retries, whole-buffer loops, quiet clean-up.
/// Every system call still goes through `FileIO`.
extension FileIO {
    /// Calls `call` again while it fails with `EINTR`.
    package func retryingInterrupts(_ call: () -> SyscallResult) -> SyscallResult {
        while true {
            let outcome = call()
            if !(outcome.failed && outcome.errno == EINTR) { return outcome }
        }
    }

    /// Writes all of `bytes`, looping on short writes.
    ///
    /// A write that makes no progress (returns 0 for a non-empty buffer) cannot be
    /// retried forever; it is reported as `ENOSPC`, the only reason a regular file
    /// refuses bytes without an error.
    func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CofferError) {
        let failure: Int32? = bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                let outcome = retryingInterrupts { write(fd, rest) }
                if outcome.failed { return outcome.errno }
                if outcome.value == 0 { return ENOSPC }
                // A misbehaving call claiming more than asked must not push us past the end.
                offset += min(outcome.value, rest.count)
            }
            return nil
        }
        if let failure { throw .io(operation: StoreOperation.write, path: path, errno: failure) }
    }

    /// Closes a descriptor whose close result does not matter (read-only or already failed).
    /// `close` is never retried: the descriptor is gone even when it reports `EINTR`.
    func closeQuietly(_ fd: Int32) {
        _ = close(fd)
    }

    /// Removes a file whose removal is best effort (a temporary file on an error path).
    func unlinkQuietly(_ path: String) {
        _ = retryingInterrupts { unlink(path) }
    }

    /// `stat` that treats `ENOENT` and `ENOTDIR` as "does not exist".
    func statIfExists(_ path: String) throws(CofferError) -> FileStatus? {
        let (status, code) = stat(path)
        if let status { return status }
        if code == ENOENT || code == ENOTDIR { return nil }
        throw .io(operation: StoreOperation.stat, path: path, errno: code)
    }

    /// Reads a whole regular file, refusing more than ``VaultFileStore.maximumFileSize`` bytes
    /// before allocating. Missing -> `fileNotFound(path)`.
    ///
    /// With `limit`, reads only the first `limit` bytes (fewer if the file is shorter);
    /// the identity's `size` still gives the whole file's size.
    func readWholeFile(_ path: String, limit: Int = .max) throws(CofferError) -> FileSnapshot {
        // O_NONBLOCK: opening a FIFO planted at the path must not hang; it has no
        // effect on regular files.
        let opened = retryingInterrupts { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0) }
        if opened.failed {
            if opened.errno == ENOENT || opened.errno == ENOTDIR { throw .fileNotFound(path) }
            throw .io(operation: StoreOperation.open, path: path, errno: opened.errno)
        }
        let fd = Int32(truncatingIfNeeded: opened.value)
        defer { closeQuietly(fd) }

        let (found, code) = fstat(fd)
        guard let status = found else { throw .io(operation: StoreOperation.stat, path: path, errno: code) }
        if status.isDirectory { throw .io(operation: StoreOperation.read, path: path, errno: EISDIR) }
        if !status.isRegularFile { throw .io(operation: StoreOperation.read, path: path, errno: EINVAL) }
        if status.size > Int64(VaultFileStore.maximumFileSize) { throw .malformed("file larger than 1 GiB") }

        // Read until end of file; the file may differ from what fstat said only if
        // someone writes it in place (Coffer never does), so stay bounded regardless.
        // One byte more than the size: the read that finds the end of the file then
        // needs no larger buffer (growing it would copy the whole file).
        // The buffer is not zeroed first: the reads fill it (a large vault is tens of MB).
        var failure: Int32?
        var sawEnd = false
        var bytes = [UInt8](unsafeUninitializedCapacity: min(Int(max(status.size, 0)) + 1, limit)) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var filled = 0
            while filled < raw.count {
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[filled...])
                let outcome = retryingInterrupts { read(fd, rest) }
                if outcome.failed { failure = outcome.errno; break }
                if outcome.value == 0 { sawEnd = true; break }
                filled += min(outcome.value, rest.count)
            }
            count = filled
        }
        if let failure { throw .io(operation: StoreOperation.read, path: path, errno: failure) }
        var filled = bytes.count
        // Only when the file grew since fstat: keep reading, in bounded steps.
        while !sawEnd && filled < limit {
            if filled == bytes.count {
                if bytes.count > VaultFileStore.maximumFileSize { throw .malformed("file larger than 1 GiB") }
                bytes += [UInt8](repeating: 0, count: min(64 * 1024, limit - filled))
            }
            let outcome = bytes.withUnsafeMutableBytes { buffer in
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                return retryingInterrupts { read(fd, rest) }
            }
            if outcome.failed { throw .io(operation: StoreOperation.read, path: path, errno: outcome.errno) }
            if outcome.value == 0 { break }
            filled += min(outcome.value, bytes.count - filled)
        }
        if filled > VaultFileStore.maximumFileSize { throw .malformed("file larger than 1 GiB") }
        bytes.removeSubrange(filled...)
        return FileSnapshot(bytes: bytes, identity: status.identity)
    }
}

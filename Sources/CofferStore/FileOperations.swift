import CofferCrypto

/// The system call that failed, in ``StoreError/system(_:path:errno:)``.
///
/// The Vault layer switches on it, e.g. ``syncDirectory`` means "the new file is in
/// place but its durability is unknown" (see ``AtomicWriter``).
package enum StoreOperation: Sendable, Hashable, CustomStringConvertible {
    case openDirectory, createTemporary, setPermissions, write, syncFile, stat, close
    case linkBackup, renameBackup, commit, linkNew, syncDirectory, open, read, openLock, lock, unlink, readLink
    case listDirectory, makeDirectory, link, create
    /// A step on a ``SecretFile``; `kind` names the file ("key file").
    case secretFile(SecretFileStep, kind: String)

    package enum SecretFileStep: String, Sendable, Hashable {
        case open, stat, read, create, write, fsync
    }

    /// The phrase used in messages ("fsync directory").
    package var description: String {
        switch self {
        case .openDirectory: return "open directory"
        case .createTemporary: return "create temporary file"
        case .setPermissions: return "set permissions"
        case .write: return "write"
        case .syncFile: return "fsync"
        case .stat: return "stat"
        case .close: return "close"
        case .linkBackup: return "link backup"
        case .renameBackup: return "rename backup"
        case .commit: return "rename"
        case .linkNew: return "link new file"
        case .syncDirectory: return "fsync directory"
        case .open: return "open"
        case .read: return "read"
        case .openLock: return "open lock file"
        case .lock: return "flock"
        case .unlink: return "unlink"
        case .readLink: return "readlink"
        case .listDirectory: return "list directory"
        case .makeDirectory: return "mkdir"
        case .link: return "link"
        case .create: return "create"
        case .secretFile(let step, let kind): return "\(step.rawValue) \(kind)"
        }
    }
}

/// Small helpers over the seam: `EINTR` retries, whole-buffer loops, quiet clean-up.
/// Every system call still goes through `FileIO`.
extension FileIO {
    /// Calls `call` again while it fails with `EINTR`.
    package func retryingInterrupts(_ call: () -> SyscallResult) -> SyscallResult {
        while true {
            let outcome = call()
            if !(outcome.failed && outcome.errno == Errno.interrupted) { return outcome }
        }
    }

    /// Writes all of `contents`, piece by piece, looping on short writes.
    ///
    /// A write that makes no progress (returns 0 for a non-empty buffer) cannot be
    /// retried forever; it is reported as `ENOSPC`, the only reason a regular file
    /// refuses bytes without an error.
    func writeAll(_ fd: Int32, _ contents: some FileContents, path: String) throws(StoreError) {
        try contents.forEachChunk { (buffer) throws(StoreError) in
            var offset = 0
            while offset < buffer.count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                let outcome = retryingInterrupts { write(fd, rest) }
                if outcome.failed { throw .system(.write, path: path, errno: outcome.errno) }
                if outcome.value == 0 { throw .system(.write, path: path, errno: Errno.noSpace) }
                // A misbehaving call claiming more than asked must not push us past the end.
                offset += min(outcome.value, rest.count)
            }
        }
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

    /// What is at `path` now (`stat`, or `lstat` without `followingLinks`), or nil when
    /// nothing is there or it cannot be examined: the checks an app makes before it asks
    /// for a password.
    package func status(of path: String, followingLinks: Bool) -> FileStatus? {
        (followingLinks ? stat(path) : lstat(path)).status
    }

    /// Whether this process may read the file at `path` (`access(R_OK)`, links followed).
    package func isReadable(_ path: String) -> Bool {
        !retryingInterrupts { checkReadable(path) }.failed
    }

    /// Removes the file at `path`; false when it could not (or nothing was there).
    @discardableResult
    package func removeFile(_ path: String) -> Bool {
        !retryingInterrupts { unlink(path) }.failed
    }

    /// `stat` that treats `ENOENT` and `ENOTDIR` as "does not exist".
    func statIfExists(_ path: String) throws(StoreError) -> FileStatus? {
        let (status, code) = stat(path)
        if let status { return status }
        if code == Errno.noSuchFileOrDirectory || code == Errno.notDirectory { return nil }
        throw .system(.stat, path: path, errno: code)
    }

    /// Opens a regular file for reading and returns its descriptor (the caller closes it) and
    /// status; refuses more than ``VaultFileStore.maximumFileSize`` bytes. Missing -> `fileNotFound(path)`.
    func openForReading(_ path: String) throws(StoreError) -> (fd: Int32, status: FileStatus) {
        // O_NONBLOCK: opening a FIFO planted at the path must not hang; it has no
        // effect on regular files.
        let opened = retryingInterrupts { open(path, OpenFlags.readOnly | OpenFlags.closeOnExec | OpenFlags.nonBlocking, 0) }
        if opened.failed {
            if opened.errno == Errno.noSuchFileOrDirectory || opened.errno == Errno.notDirectory { throw .fileNotFound(path) }
            throw .system(.open, path: path, errno: opened.errno)
        }
        let fd = Int32(truncatingIfNeeded: opened.value)
        let (found, code) = fstat(fd)
        do throws(StoreError) {
            guard let status = found else { throw .system(.stat, path: path, errno: code) }
            if status.isDirectory { throw .system(.read, path: path, errno: Errno.isDirectory) }
            if !status.isRegularFile { throw .system(.read, path: path, errno: Errno.invalidArgument) }
            if status.size > Int64(VaultFileStore.maximumFileSize) { throw .vaultTooLarge(path) }
            return (fd, status)
        } catch {
            closeQuietly(fd)
            throw error
        }
    }

    /// Reads a whole regular file, refusing more than ``VaultFileStore.maximumFileSize`` bytes
    /// before allocating. Missing -> `fileNotFound(path)`.
    ///
    /// With `limit`, reads only the first `limit` bytes (fewer if the file is shorter);
    /// the identity's `size` still gives the whole file's size.
    func readWholeFile(_ path: String, limit: Int = .max) throws(StoreError) -> FileSnapshot {
        let (fd, status) = try openForReading(path)
        defer { closeQuietly(fd) }

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
        if let failure { throw .system(.read, path: path, errno: failure) }
        var filled = bytes.count
        // Only when the file grew since fstat: keep reading, in bounded steps.
        while !sawEnd && filled < limit {
            if filled == bytes.count {
                if bytes.count > VaultFileStore.maximumFileSize { throw .vaultTooLarge(path) }
                bytes += [UInt8](repeating: 0, count: min(64 * 1024, limit - filled))
            }
            let outcome = bytes.withUnsafeMutableBytes { buffer in
                let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
                return retryingInterrupts { read(fd, rest) }
            }
            if outcome.failed { throw .system(.read, path: path, errno: outcome.errno) }
            if outcome.value == 0 { break }
            filled += min(outcome.value, bytes.count - filled)
        }
        if filled > VaultFileStore.maximumFileSize { throw .vaultTooLarge(path) }
        bytes.removeSubrange(filled...)
        return FileSnapshot(bytes: bytes, identity: status.identity)
    }

    /// Hands the first `limit` bytes of a regular file (fewer if it is shorter) to `body` in
    /// order, `window` bytes at a time, holding no more than one window: a length claimed by
    /// an unauthenticated field is checked without reading that much into memory. Returns
    /// the file's identity as opened. Refuses what ``readWholeFile(_:limit:)`` refuses.
    func readWindows(_ path: String, limit: Int, window: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws(StoreError) -> FileIdentity {
        let (fd, status) = try openForReading(path)
        defer { closeQuietly(fd) }
        var buffer = [UInt8](repeating: 0, count: max(1, min(window, limit)))
        var remaining = limit
        while remaining > 0 {
            let count = min(remaining, buffer.count)
            let outcome = buffer.withUnsafeMutableBytes { raw in
                retryingInterrupts { read(fd, UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])) }
            }
            if outcome.failed { throw .system(.read, path: path, errno: outcome.errno) }
            if outcome.value == 0 { break }
            let got = min(outcome.value, count)
            buffer.withUnsafeBytes { raw in body(UnsafeRawBufferPointer(rebasing: raw[0..<got])) }
            remaining -= got
        }
        return status.identity
    }
}


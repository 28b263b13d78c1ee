import CofferCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One vault file at a path: reading it, creating it, replacing it atomically (with
/// an optional `.bak` of the previous version), and the writers' lock.
///
/// The store moves opaque bytes; it knows nothing about the vault format.
///
/// - Readers never take the lock: every save renames a complete file over the path,
///   so a reader sees either the old file or the new one.
/// - Writers (``create(_:)``, ``replace(with:keepBackup:)``, ``restoreBackup()``)
///   must run inside ``withExclusiveLock(timeout:_:)``: each write first removes
///   leftover temporary files of crashed writers, which is only safe when no other
///   writer of the same path is running.
/// - If `path` is a symbolic link, saves replace the link with a regular file.
///
/// See ``AtomicWriter`` for the write procedure and exactly what each failure leaves.
package struct VaultFileStore: Sendable {
    /// Largest file the store reads or writes: 1 GiB.
    static let maximumFileSize = 1 << 30

    let path: String
    package let io: FileIO
    /// The folder holding the file: the part of `path` before the last "/", "." if none.
    let directory: String
    /// The last component of `path`.
    let baseName: String

    package init(path: String, io: FileIO = .live) {
        self.path = path
        self.io = io
        if let slash = path.lastIndex(of: "/") {
            let head = path[..<slash]
            directory = head.isEmpty ? "/" : String(head)
            baseName = String(path[path.index(after: slash)...])
        } else {
            directory = "."
            baseName = path
        }
    }

    /// `<path>.bak`: the previous version, kept by `replace(with:keepBackup: true)`.
    var backupPath: String { path + ".bak" }
    /// `<path>.lock`: the sidecar file writers lock.
    package var lockPath: String { path + ".lock" }

    /// Reads the whole file. Files over 1 GiB -> `malformed("file larger than 1 GiB")`
    /// before allocating; missing -> `fileNotFound(path)`. Takes no lock.
    package func read() throws(StoreError) -> FileSnapshot {
        try io.readWholeFile(path)
    }

    /// Reads at most the first `limit` bytes (the identity's `size` is the whole size).
    package func readPrefix(_ limit: Int) throws(StoreError) -> FileSnapshot {
        try io.readWholeFile(path, limit: limit)
    }

    /// The current identity, or nil if the file does not exist.
    package func currentIdentity() throws(StoreError) -> FileIdentity? {
        try io.statIfExists(path)?.identity
    }

    /// Creates the file with `bytes` atomically, mode 0600. Never overwrites: an
    /// existing file -> `fileExists(path)`; missing folder -> `fileNotFound(folder)`.
    /// Returns the new file's identity.
    @discardableResult
    package func create(_ bytes: [UInt8]) throws(StoreError) -> FileIdentity {
        let writer = try makeWriter()
        if try io.statIfExists(path) != nil { throw .fileExists(path) }
        return try writer.write(bytes, mode: .create)
    }

    /// Replaces the file atomically with `bytes` (mode 0600); with `keepBackup`, the
    /// current file becomes `<path>.bak`. Returns the new identity. A missing file ->
    /// `fileNotFound(path)` (use ``create(_:)``). On failure the file and its backup
    /// are unchanged, except after a failed directory fsync: see ``AtomicWriter``.
    package func replace(with bytes: [UInt8], keepBackup: Bool) throws(StoreError) -> FileIdentity {
        let writer = try makeWriter()
        if try io.statIfExists(path) == nil { throw .fileNotFound(path) }
        return try writer.write(bytes, mode: .replace(keepBackup: keepBackup))
    }

    /// Runs `body` while holding the exclusive writers' lock on ``lockPath``.
    /// Times out with `lockTimeout(path)`. Not re-entrant. See ``FileLock``.
    package func withExclusiveLock<R>(timeout: Duration, _ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        try FileLock(io: io, lockPath: lockPath, protectedPath: path, directory: directory)
            .withExclusiveLock(timeout: timeout, body)
    }

    /// Copies the backup over the vault file (atomically, like `replace`, without
    /// touching the backup). Works also when the vault file is missing. No backup ->
    /// `fileNotFound(backupPath)`. Returns the new identity.
    /// Deletes the vault file, its backup and leftover temp files (call it under the
    /// lock; the lock file itself is removed by the caller afterwards). A missing vault
    /// file -> `fileNotFound(path)`; nothing else is touched then.
    package func destroy() throws(StoreError) {
        guard try io.statIfExists(path) != nil else { throw .fileNotFound(path) }
        let writer = try makeWriter()
        writer.removeStaleTemporaries()
        for victim in [path, backupPath] {
            let removed = io.retryingInterrupts { io.unlink(victim) }
            if removed.failed && removed.errno != ENOENT {
                throw .system(.unlink, path: victim, errno: removed.errno)
            }
        }
    }

    @discardableResult
    package func restoreBackup() throws(StoreError) -> FileIdentity {
        let writer = try makeWriter()
        let backup = try io.readWholeFile(backupPath)
        return try writer.write(backup.bytes, mode: .replace(keepBackup: false))
    }

    func makeWriter() throws(StoreError) -> AtomicWriter {
        guard !baseName.isEmpty, baseName != ".", baseName != ".." else {
            throw .notARegularFile("vault path must name a file: \(path)", path: path)
        }
        return AtomicWriter(io: io, path: path, directory: directory, baseName: baseName, backupPath: backupPath)
    }
}

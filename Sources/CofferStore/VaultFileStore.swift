import CofferCrypto

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
/// - If `path` is a symbolic link (or a chain of them), writes and the lock go to the
///   file it names: the temporary file, `fsync`s and rename happen in the target's
///   folder, the backup is `<target>.bak` and the lock `<target>.lock`, and the link
///   stays. A writer using the link and one using the real path exclude each other.
///
/// See ``AtomicWriter`` for the write procedure and exactly what each failure leaves.
package struct VaultFileStore: Sendable {
    /// Largest file the store reads or writes: 1 GiB.
    static let maximumFileSize = 1 << 30

    package let path: String
    package let io: FileIO
    /// The folder holding the file: the part of `path` before the last "/", "." if none.
    let directory: String
    /// The last component of `path`.
    let baseName: String

    package init(path: String, io: FileIO = .live) {
        self.path = path
        self.io = io
        (directory, baseName) = PathName.split(path)
    }

    /// `<path>.bak`: the previous version, kept by `replace(with:keepBackup: true)`.
    package var backupPath: String { path + ".bak" }
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

    /// Hands the first `limit` bytes to `body`, `window` bytes at a time (see `FileIO.readWindows`).
    package func readWindows(_ limit: Int, window: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) -> Void) throws(StoreError) -> FileIdentity {
        try io.readWindows(path, limit: limit, window: window, body)
    }

    /// The current identity, or nil if the file does not exist.
    package func currentIdentity() throws(StoreError) -> FileIdentity? {
        try io.statIfExists(path)?.identity
    }

    /// The absolute path of the file `path` finally names (links followed): what a
    /// device's replica id and a cached unlock belong to. Nil when a link cannot be read.
    package static func absolutePath(_ path: String) -> String? {
        guard let resolved = try? VaultFileStore(path: path).resolved().path else { return nil }
        if resolved.hasPrefix("/") { return resolved }
        guard let cwd = FileIO.live.currentDirectory().path else { return nil }
        return PathName.joined(cwd, resolved)
    }

    /// Largest number of symbolic links followed from `path` (Linux's own limit).
    static let maximumLinks = 40

    /// The store of the file `path` finally names: `self` unless `path` is a symbolic
    /// link, else the store of its target (followed through chains of links; a relative
    /// target is relative to the link's folder). The target need not exist yet.
    /// Too many links -> `io(readlink, ELOOP)`.
    package func resolved() throws(StoreError) -> VaultFileStore {
        var current = self
        for _ in 0...Self.maximumLinks {
            let (target, code) = io.readLink(current.path)
            guard let target else {
                // EINVAL: not a link; ENOENT, ENOTDIR: nothing there (yet): this is the file.
                if code == Errno.invalidArgument || code == Errno.noSuchFileOrDirectory || code == Errno.notDirectory { return current }
                throw .system(.readLink, path: current.path, errno: code)
            }
            guard !target.isEmpty else { throw .system(.readLink, path: current.path, errno: Errno.noSuchFileOrDirectory) }
            let next = target.hasPrefix("/") ? target : PathName.joined(current.directory, target)
            current = VaultFileStore(path: next, io: io)
        }
        throw .system(.readLink, path: path, errno: Errno.tooManySymbolicLinkLevels)
    }

    /// Creates the file with `bytes` atomically, mode 0600. Never overwrites: an
    /// existing file -> `fileExists(path)`; missing folder -> `fileNotFound(folder)`.
    /// Through a dangling symbolic link, creates the link's target. Returns the new
    /// file's identity.
    @discardableResult
    package func create(_ bytes: some FileContents) throws(StoreError) -> FileIdentity {
        let target = try resolved()
        let writer = try target.makeWriter()
        if try io.statIfExists(target.path) != nil { throw .fileExists(path) }
        return try writer.write(bytes, mode: .create)
    }

    /// Replaces the file atomically with `bytes` (mode 0600); with `keepBackup`, the
    /// current file becomes `<path>.bak`. Returns the new identity. A missing file ->
    /// `fileNotFound(path)` (use ``create(_:)``). On failure the file and its backup
    /// are unchanged, except after a failed directory fsync: see ``AtomicWriter``.
    ///
    /// With `slotsChanged` (the new version's key slots differ: a password change, a slot
    /// added or removed), no file under the old slots is left beside it: with
    /// `keepBackup`, `<path>.bak` becomes a copy of the new version; without, an existing
    /// `<path>.bak` is removed.
    package func replace(with bytes: some FileContents, keepBackup: Bool, slotsChanged: Bool = false) throws(StoreError) -> FileIdentity {
        var unused: HeldFile?
        return try replace(with: bytes, keepBackup: keepBackup, slotsChanged: slotsChanged, holding: false, held: &unused)
    }

    /// ``replace(with:keepBackup:slotsChanged:)``; with `holding`, `held` is the new file
    /// held open for reading once it is written (``HeldFile``, through the descriptor that
    /// wrote it), before the commit: it is the file at the path when this returns, or when
    /// it throws `system(.syncDirectory, …)` (committed, durability unknown), and no file at
    /// all after any other error.
    package func replace(with bytes: some FileContents, keepBackup: Bool, slotsChanged: Bool = false,
                         holding: Bool, held: inout HeldFile?) throws(StoreError) -> FileIdentity {
        let target = try resolved()
        let writer = try target.makeWriter()
        if try io.statIfExists(target.path) == nil { throw .fileNotFound(path) }
        return try writer.write(bytes, mode: slotsChanged ? .replaceChangingSlots(keepBackup: keepBackup) : .replace(keepBackup: keepBackup),
                                holding: holding, held: &held)
    }

    /// Runs `body` while holding the exclusive writers' lock on ``lockPath`` (of the
    /// link's target when `path` is a symbolic link). Times out with `lockTimeout(path)`.
    /// Not re-entrant. See ``FileLock``.
    package func withExclusiveLock<R>(timeout: Duration, _ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        let target = try storeCall { () throws(StoreError) in try resolved() }
        return try FileLock(io: io, lockPath: target.lockPath, protectedPath: path, directory: target.directory)
            .withExclusiveLock(timeout: timeout, body)
    }

    /// Copies the backup over the vault file (atomically, like `replace`, without
    /// touching the backup). Works also when the vault file is missing. No backup ->
    /// `fileNotFound(backupPath)`. Returns the new identity.
    /// Deletes the vault file, its backup and leftover temp files (call it under the
    /// lock; the lock file itself is removed by the caller afterwards). A missing vault
    /// file -> `fileNotFound(path)`; nothing else is touched then.
    /// Through a symbolic link, deletes the target and its backup, then the link.
    package func destroy() throws(StoreError) {
        guard try io.statIfExists(path) != nil else { throw .fileNotFound(path) }
        let target = try resolved()
        let writer = try target.makeWriter()
        writer.removeStaleTemporaries()
        let links = target.path == path ? [] : [path]
        for victim in [target.path, target.backupPath] + links {
            let removed = io.retryingInterrupts { io.unlink(victim) }
            if removed.failed && removed.errno != Errno.noSuchFileOrDirectory {
                throw .system(.unlink, path: victim, errno: removed.errno)
            }
        }
    }

    /// The backup (`.bak`) of the file `path` finally names.
    package func readBackup() throws(StoreError) -> FileSnapshot {
        try io.readWholeFile(try resolved().backupPath)
    }

    /// Puts `.bak` in place of the vault file, atomically. The version it replaces becomes
    /// the new `.bak`, so a restore is undone by restoring again and never loses a version;
    /// with no vault file, `.bak` is copied into place and kept.
    @discardableResult
    package func restoreBackup() throws(StoreError) -> FileIdentity {
        let target = try resolved()
        let writer = try target.makeWriter()
        let backup = try io.readWholeFile(target.backupPath)
        let hasCurrent = try target.currentIdentity() != nil
        return try writer.write(backup.bytes, mode: .replace(keepBackup: hasCurrent))
    }

    func makeWriter() throws(StoreError) -> AtomicWriter {
        guard !baseName.isEmpty, baseName != ".", baseName != ".." else {
            throw .notARegularFile("vault path must name a file: \(path)", path: path)
        }
        return AtomicWriter(io: io, path: path, directory: directory, baseName: baseName, backupPath: backupPath)
    }
}

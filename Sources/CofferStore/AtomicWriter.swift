import CofferCrypto

/// Writes a new version of one file so that, at every instant and after any crash,
/// the file is either entirely the old version or entirely the new one.
///
/// ## Procedure (``write(_:mode:)``)
/// 1. Open the directory (kept open for the final `fsync`). Failing here changes nothing.
/// 2. Remove leftover temporary files of crashed writers (`.<basename>.tmp-<16 hex>`).
/// 3. Create a temporary file in the same directory, `O_CREAT|O_EXCL`, mode 0600; write
///    all bytes (looping on short writes), `fsync`, `fstat` (the new identity), `close`.
/// 4. Backup (`replace` with `keepBackup`): hard-link the current file to a temporary
///    name; hard-link the previous `.bak` (if any) to another temporary name so it can
///    be put back; rename the first over `.bak`.
/// 5. Commit: rename the temporary file over the path (`create`: hard-link it to the
///    path, which fails with `EEXIST` instead of overwriting, then unlink it).
/// 6. Remove the saved previous `.bak`; `fsync` the directory.
///
/// `replaceChangingSlots` (the new version's key slots differ, e.g. after a password
/// change) keeps no backup under the old slots: step 4 instead hard-links the new
/// temporary file to a second temporary name, and right after the commit that name is
/// renamed over `.bak` (without `keepBackup`, `.bak` is removed then). A crash between
/// the two renames leaves the old `.bak` until the next save (without backups: the
/// next one that changes slots); the vault file itself is complete either way.
///
/// Where hard links are not supported (`EPERM`, `ENOTSUP`, `EOPNOTSUPP`, `EMLINK`:
/// FAT, exFAT, some network file systems), steps 4 and 5 fall back to copies
/// (step 4) and to a check-then-rename (step 5, `create` only; not atomic against a
/// concurrent creator, which the lock excludes).
///
/// ## Failures
/// Every failure up to and including the commit rename (steps 1-5) removes the
/// temporary files, puts the previous `.bak` back if step 4 had replaced it (or
/// removes a `.bak` that did not exist before), and throws
/// ``CofferError/io(operation:path:errno:)`` with the failing call's `errno`: the vault
/// file and its backup are byte-for-byte as they were. (If a clean-up call itself
/// fails as well, a leftover temporary file is removed by the next write; if putting
/// the previous `.bak` back fails, `.bak` holds a copy of the current vault file.)
///
/// The one failure after the commit is the directory `fsync` (step 6). Then:
/// - the path already names the NEW file, complete and `fsync`ed; every process that
///   opens the path reads the new bytes;
/// - with `keepBackup`, `.bak` holds the previous vault file;
/// - no temporary file is left;
/// - but the renames may not survive a power loss: after a crash the path may name
///   the old file again (never a partial one).
/// The error thrown is `.io(operation: StoreOperation.syncDirectory, path: <directory>,
/// errno:)`. A caller that sees it should treat the save as done but not known to be
/// durable (for example, re-read ``VaultFileStore/currentIdentity()``, and save again
/// later). `EINVAL`, `ENOTSUP` and `EOPNOTSUPP` from the directory `fsync` mean that
/// the file system cannot sync directories at all; those are not errors.
///
/// ## Crashes
/// After a crash at any point, the path names the old file or the new one, complete
/// (never a partial file), and `.bak` names either the previous backup or the file's
/// version before this save (a crash between steps 4 and 5 leaves `.bak` equal to the
/// still-current file; the previous backup then survives only as a temporary file,
/// which the next write removes). Leftover temporary files are removed by the next
/// write.
///
/// Callers hold the store's exclusive lock: step 2 assumes that no other writer of
/// this path is running.
struct AtomicWriter: Sendable {
    enum Mode: Sendable {
        /// Never overwrite: an existing file -> ``CofferError/fileExists(_:)``.
        case create
        /// Rename over the path; with `keepBackup`, the current file becomes `backupPath`.
        case replace(keepBackup: Bool)
        /// Rename over the path, for a new version whose key slots changed (a password
        /// change, a slot added or removed): no backup may keep the old slots. With
        /// `keepBackup`, `backupPath` becomes a copy of the new file (a hard link made
        /// before the commit, renamed over `backupPath` right after it); without, an
        /// existing `backupPath` is removed after the commit.
        case replaceChangingSlots(keepBackup: Bool)
    }

    let io: FileIO
    let path: String
    let directory: String
    let baseName: String
    let backupPath: String

    /// The prefix of every temporary file of this path; 16 lowercase hex digits follow.
    var temporaryPrefix: String { "." + baseName + ".tmp-" }

    /// Whether `name` (in `directory`) is one of this path's temporary files.
    func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix(temporaryPrefix) else { return false }
        let suffix = name.utf8.dropFirst(temporaryPrefix.utf8.count)
        return suffix.count == 16 && suffix.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    func write(_ bytes: some FileContents, mode: Mode) throws(StoreError) -> FileIdentity {
        var unused: HeldFile?
        return try write(bytes, mode: mode, holding: false, held: &unused)
    }

    /// ``write(_:mode:)``; with `holding`, `held` is set, once the new file is written and
    /// synced (before the commit), to that file held open for reading through the
    /// descriptor that wrote it: the caller reads the very version it wrote, whatever is
    /// renamed over the path later. Only a commit (no error, or the directory sync's) makes
    /// it the file at the path.
    func write(_ bytes: some FileContents, mode: Mode, holding: Bool, held: inout HeldFile?) throws(StoreError) -> FileIdentity {
        guard bytes.count <= VaultFileStore.maximumFileSize else { throw .fileTooLarge("file larger than 1 GiB", path: path) }

        // 1. The directory descriptor, for the final fsync; opened first so that a
        //    directory we cannot open fails before anything changes.
        let openedDirectory = io.retryingInterrupts { io.open(directory, OpenFlags.readOnly | OpenFlags.directory | OpenFlags.closeOnExec, 0) }
        if openedDirectory.failed {
            if openedDirectory.errno == Errno.noSuchFileOrDirectory || openedDirectory.errno == Errno.notDirectory { throw .fileNotFound(directory) }
            throw .system(.openDirectory, path: directory, errno: openedDirectory.errno)
        }
        let directoryFD = Int32(truncatingIfNeeded: openedDirectory.value)
        defer { io.closeQuietly(directoryFD) }

        // 2. Leftovers of crashed writers.
        removeStaleTemporaries()

        // 3. The new file, complete and on disk before anything is renamed.
        let (temporary, identity, written) = try writeTemporary(bytes, holding: holding)
        held = written

        // 4-5. Backup and commit; everything is undone on failure.
        var pending = Rollback(io: io, backupPath: backupPath)
        pending.temporaries.append(temporary)
        var newBackup: String?
        do throws(StoreError) {
            switch mode {
            case .replace(let keepBackup):
                if keepBackup { try installBackup(&pending) }
                let renamed = io.retryingInterrupts { io.rename(temporary, path) }
                if renamed.failed { throw .system(.commit, path: path, errno: renamed.errno) }
                pending.temporaries.removeAll { $0 == temporary }
            case .replaceChangingSlots(let keepBackup):
                if keepBackup {
                    newBackup = try temporaryCopy(of: temporary, operation: .linkBackup)
                    if let newBackup { pending.temporaries.append(newBackup) }
                }
                let renamed = io.retryingInterrupts { io.rename(temporary, path) }
                if renamed.failed { throw .system(.commit, path: path, errno: renamed.errno) }
                pending.temporaries.removeAll { $0 == temporary || $0 == newBackup }
            case .create:
                try commitExclusively(temporary)
                pending.temporaries.removeAll { $0 == temporary }
            }
        } catch {
            pending.undo()
            throw error
        }
        // Committed. The saved previous backup is no longer needed.
        pending.discard()
        if case .replaceChangingSlots = mode { replaceBackupWithNewVersion(newBackup) }

        // 6. Make the renames durable.
        let synced = io.retryingInterrupts { io.fsync(directoryFD) }
        if synced.failed && !Self.directorySyncUnsupported(synced.errno) {
            // See "Failures" above: the new file is in place, durability is unknown.
            throw .system(.syncDirectory, path: directory, errno: synced.errno)
        }
        return identity
    }

    static func directorySyncUnsupported(_ code: Int32) -> Bool {
        code == Errno.invalidArgument || code == Errno.notSupported || code == Errno.notSupportedOnSocket
    }

    static func linksUnsupported(_ code: Int32) -> Bool {
        code == Errno.notPermitted || code == Errno.notSupported || code == Errno.notSupportedOnSocket || code == Errno.tooManyLinks
    }

    // MARK: - Steps

    /// Best effort: a temporary file that cannot be listed or removed does no harm.
    func removeStaleTemporaries() {
        guard let names = io.listDirectory(directory).names else { return }
        for name in names where isTemporaryName(name) {
            io.unlinkQuietly(joined(name))
        }
    }

    /// A fresh temporary path: `.<basename>.tmp-<16 random hex digits>`.
    func temporaryPath() -> String {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16)
        return joined(temporaryPrefix + String(repeating: "0", count: 16 - random.count) + random)
    }

    func joined(_ name: String) -> String { PathName.joined(directory, name) }

    /// Creates a new, empty temporary file (0600, `O_EXCL`); returns its path and descriptor
    /// (open for reading too with `readable`).
    func createTemporary(readable: Bool = false) throws(StoreError) -> (path: String, fd: Int32) {
        var attempts = 0
        while true {
            let candidate = temporaryPath()
            let access = readable ? OpenFlags.readWrite : OpenFlags.writeOnly
            let opened = io.retryingInterrupts {
                io.open(candidate, access | OpenFlags.create | OpenFlags.exclusive | OpenFlags.closeOnExec, 0o600)
            }
            if !opened.failed { return (candidate, Int32(truncatingIfNeeded: opened.value)) }
            attempts += 1
            // A name collision (64 random bits) is retried; anything else is final.
            if opened.errno != Errno.fileExists || attempts >= 8 {
                if opened.errno == Errno.noSuchFileOrDirectory || opened.errno == Errno.notDirectory { throw .fileNotFound(directory) }
                throw .system(.createTemporary, path: candidate, errno: opened.errno)
            }
        }
    }

    /// Step 3: a temporary file holding `bytes`, mode exactly 0600, synced and closed
    /// (with `holding`, kept open for reading instead: `held`). On failure it is removed.
    func writeTemporary(_ bytes: some FileContents, holding: Bool = false)
        throws(StoreError) -> (path: String, identity: FileIdentity, held: HeldFile?) {
        let (temporary, fd) = try createTemporary(readable: holding)
        var open = true
        do throws(StoreError) {
            // The umask may have removed bits from 0600; the owner needs both.
            let chmod = io.retryingInterrupts { io.fchmod(fd, 0o600) }
            if chmod.failed { throw .system(.setPermissions, path: temporary, errno: chmod.errno) }
            try io.writeAll(fd, bytes, path: temporary)
            let synced = io.retryingInterrupts { io.fsync(fd) }
            if synced.failed { throw .system(.syncFile, path: temporary, errno: synced.errno) }
            let (status, statErrno) = io.fstat(fd)
            guard let status else { throw .system(.stat, path: temporary, errno: statErrno) }
            if holding {
                // Synced: what close could still report (NFS) is already known. The file is
                // named by the path it becomes, which is what its reads report.
                return (temporary, status.identity, HeldFile(io: io, path: path, fd: fd, identity: status.identity))
            }
            open = false
            // Never retried: after close returns, even with EINTR, the descriptor is gone.
            let closed = io.close(fd)
            if closed.failed { throw .system(.close, path: temporary, errno: closed.errno) }
            return (temporary, status.identity, nil)
        } catch {
            if open { io.closeQuietly(fd) }
            io.unlinkQuietly(temporary)
            throw error
        }
    }

    /// A temporary file with the same bytes as `source`: a hard link, or a copy where
    /// hard links are unsupported. `nil` when `source` does not exist.
    func temporaryCopy(of source: String, operation: StoreOperation) throws(StoreError) -> String? {
        var attempts = 0
        while true {
            let candidate = temporaryPath()
            let linked = io.retryingInterrupts { io.link(source, candidate) }
            if !linked.failed { return candidate }
            if linked.errno == Errno.noSuchFileOrDirectory { return nil }
            if Self.linksUnsupported(linked.errno) {
                let snapshot: FileSnapshot
                do throws(StoreError) {
                    snapshot = try io.readWholeFile(source)
                } catch .fileNotFound {
                    return nil
                }
                return try writeTemporary(snapshot.bytes).path
            }
            attempts += 1
            if linked.errno != Errno.fileExists || attempts >= 8 {
                throw .system(operation, path: source, errno: linked.errno)
            }
        }
    }

    /// Step 4: the current file becomes `.bak`; the previous `.bak` is kept aside in
    /// `pending` so that a failed commit can put it back.
    func installBackup(_ pending: inout Rollback) throws(StoreError) {
        guard let current = try temporaryCopy(of: path, operation: .linkBackup) else {
            // Nothing to back up: the file vanished. The commit creates it afresh.
            return
        }
        pending.temporaries.append(current)
        if let previous = try temporaryCopy(of: backupPath, operation: .linkBackup) {
            pending.temporaries.append(previous)
            pending.previousBackup = previous
        }
        let renamed = io.retryingInterrupts { io.rename(current, backupPath) }
        if renamed.failed { throw .system(.renameBackup, path: backupPath, errno: renamed.errno) }
        // `current` stays listed for removal: a save killed between its backup and its commit
        // leaves `.bak` a link to the vault's own file, and a rename onto another link to the
        // same file does nothing (POSIX), which left this name beside the vault. Otherwise the
        // name is gone and its removal does nothing.
        pending.backupReplaced = true
    }

    /// After a commit that changed the key slots: the backup under the old slots goes.
    /// `newBackup` (a copy of the new file), when given, is renamed over it; if that
    /// fails, or without one, the old backup is removed. Never throws: the new version
    /// is already in place, and a caller told the save failed would think it was not.
    func replaceBackupWithNewVersion(_ newBackup: String?) {
        if let newBackup {
            let renamed = io.retryingInterrupts { io.rename(newBackup, backupPath) }
            if !renamed.failed { return }
            io.unlinkQuietly(newBackup)
        }
        io.unlinkQuietly(backupPath)
    }

    /// Step 5 for `create`: link the temporary file to the path, which never
    /// overwrites, then remove the temporary name.
    func commitExclusively(_ temporary: String) throws(StoreError) {
        let linked = io.retryingInterrupts { io.link(temporary, path) }
        if linked.failed {
            if linked.errno == Errno.fileExists { throw .fileExists(path) }
            guard Self.linksUnsupported(linked.errno) else {
                throw .system(.linkNew, path: path, errno: linked.errno)
            }
            // No hard links here: check, then rename. The lock excludes other creators.
            if try io.statIfExists(path) != nil { throw .fileExists(path) }
            let renamed = io.retryingInterrupts { io.rename(temporary, path) }
            if renamed.failed { throw .system(.commit, path: path, errno: renamed.errno) }
            return
        }
        // The file is in place under both names; the temporary one goes.
        io.unlinkQuietly(temporary)
    }
}

extension AtomicWriter {
    /// What ``AtomicWriter/write(_:mode:)`` must undo if it fails before the commit.
    struct Rollback {
        let io: FileIO
        let backupPath: String
        /// Temporary files to remove.
        var temporaries: [String] = []
        /// The previous `.bak`, saved under a temporary name, to put back.
        var previousBackup: String?
        /// Whether `.bak` was already replaced by the current file.
        var backupReplaced = false

        /// Puts `.bak` back as it was and removes the temporary files.
        mutating func undo() {
            if backupReplaced {
                if let previousBackup {
                    // Left listed: removing its name after the rename does nothing, or drops the
                    // second link when `.bak` already was that file (as in installBackup).
                    _ = io.retryingInterrupts { io.rename(previousBackup, backupPath) }
                } else {
                    // There was no backup before this write.
                    io.unlinkQuietly(backupPath)
                }
            }
            discard()
        }

        /// Removes the temporary files.
        mutating func discard() {
            for temporary in temporaries { io.unlinkQuietly(temporary) }
            temporaries.removeAll()
        }
    }
}

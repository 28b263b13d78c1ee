import CofferCrypto

/// Puts a replica file away once it has been merged into its vault (a conflict copy a sync
/// service left, or a copy from elsewhere): moved into a folder, keeping its name and never
/// replacing a file there, or deleted. Either only when the file is still the version noted
/// before the merge read it: a copy the sync service was still writing stays where it is.
///
/// A failure leaves the copy where it was and nothing new in the folder (a hard link or a
/// copy made on the way is removed again); the vault file is never touched.
package struct MergedCopyStore: Sendable {
    package let io: FileIO

    package init(io: FileIO = .live) {
        self.io = io
    }

    /// Creates `folder` with mode 0700 when it is missing (and flushes its parent). An
    /// existing folder is used as it is; anything else there (a file, a symbolic link, even
    /// to a folder) -> `fileExists(folder)`.
    package func prepareFolder(_ folder: String) throws(StoreError) {
        let made = io.retryingInterrupts { io.makeDirectory(folder, 0o700) }
        if !made.failed {
            syncFolder(PathName.folder(of: folder))
            return
        }
        guard made.errno == Errno.fileExists else { throw .system(.makeDirectory, path: folder, errno: made.errno) }
        guard let status = io.lstat(folder).status, status.isDirectory else { throw .fileExists(folder) }
    }

    /// Moves the file at `path` into `folder` (which must exist) under its own name, or,
    /// when that name is taken, with `~2`, `~3`… before its extension. Returns the new path,
    /// or nil, leaving the file in place, when `path` no longer names the version `noted`.
    ///
    /// A hard link never replaces a name; where there are none (another file system, FAT)
    /// the file is copied (mode 0600, created exclusively, flushed), then removed.
    package func move(_ path: String, into folder: String, unchangedSince noted: FileIdentity) throws(StoreError) -> String? {
        guard try isUnchanged(path, since: noted) else { return nil }
        let name = PathName.name(of: path)
        var lastCode = Errno.fileExists
        for attempt in 1...1000 {
            let candidate = PathName.joined(folder, Self.numbered(name, attempt))
            let linked = io.retryingInterrupts { io.link(path, candidate) }
            if !linked.failed {
                try removeOriginal(path, keeping: candidate)
                return candidate
            }
            lastCode = linked.errno
            // link() never replaces a name: EEXIST means try the next one.
            if linked.errno == Errno.fileExists { continue }
            guard Self.needsCopy(linked.errno) else { throw .system(.link, path: path, errno: linked.errno) }
            guard try copyExclusively(path, to: candidate) else { continue }
            try removeOriginal(path, keeping: candidate)
            return candidate
        }
        // A thousand names taken: something is wrong with the folder; leave the file.
        throw .system(.link, path: path, errno: lastCode)
    }

    /// Deletes the file at `path`; false, leaving it, when it is no longer the version `noted`.
    package func delete(_ path: String, unchangedSince noted: FileIdentity) throws(StoreError) -> Bool {
        guard try isUnchanged(path, since: noted) else { return false }
        let removed = io.retryingInterrupts { io.unlink(path) }
        if removed.failed { throw .system(.unlink, path: path, errno: removed.errno) }
        syncFolder(PathName.folder(of: path))
        return true
    }

    /// `name` for the first attempt, then with `~N` before the extension (the part from
    /// the last dot, unless that dot starts the name).
    package static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 1 else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(name[..<dot]) + "~\(attempt)" + String(name[dot...])
        }
        return name + "~\(attempt)"
    }

    // MARK: - Steps

    /// Whether `path` (links followed) is still the file and version `noted`.
    private func isUnchanged(_ path: String, since noted: FileIdentity) throws(StoreError) -> Bool {
        try io.statIfExists(path)?.identity == noted
    }

    /// The link errors that mean "no hard link here", where a copy does instead.
    private static func needsCopy(_ code: Int32) -> Bool {
        code == Errno.improperLink || code == Errno.notPermitted || code == Errno.notSupportedOnSocket
            || code == Errno.notSupported || code == Errno.tooManyLinks || code == Errno.noFunction
    }

    /// The file now has a second name, `copy`: the first goes. If it cannot, the second
    /// goes instead, so that the file is where it was and only there.
    private func removeOriginal(_ path: String, keeping copy: String) throws(StoreError) {
        let removed = io.retryingInterrupts { io.unlink(path) }
        if removed.failed && removed.errno != Errno.noSuchFileOrDirectory {
            io.unlinkQuietly(copy)
            throw .system(.unlink, path: path, errno: removed.errno)
        }
        syncFolder(PathName.folder(of: copy))
        syncFolder(PathName.folder(of: path))
    }

    /// Copies `source` to a new file `target` (0600, `O_EXCL`), flushed to disk. False when
    /// `target` exists. On failure `target` is removed.
    private func copyExclusively(_ source: String, to target: String) throws(StoreError) -> Bool {
        let input = io.retryingInterrupts { io.open(source, OpenFlags.readOnly | OpenFlags.closeOnExec | OpenFlags.nonBlocking, 0) }
        if input.failed { throw .system(.open, path: source, errno: input.errno) }
        let inputFD = Int32(truncatingIfNeeded: input.value)
        defer { io.closeQuietly(inputFD) }
        let output = io.retryingInterrupts {
            io.open(target, OpenFlags.writeOnly | OpenFlags.create | OpenFlags.exclusive | OpenFlags.closeOnExec | OpenFlags.noFollow, 0o600)
        }
        if output.failed {
            if output.errno == Errno.fileExists { return false }
            throw .system(.create, path: target, errno: output.errno)
        }
        let outputFD = Int32(truncatingIfNeeded: output.value)
        var open = true
        do throws(StoreError) {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { raw in io.retryingInterrupts { io.read(inputFD, raw) } }
                if count.failed { throw .system(.read, path: source, errno: count.errno) }
                if count.value == 0 { break }
                try io.writeAll(outputFD, Array(buffer[..<min(count.value, buffer.count)]), path: target)
            }
            let synced = io.retryingInterrupts { io.fsync(outputFD) }
            if synced.failed { throw .system(.syncFile, path: target, errno: synced.errno) }
            open = false
            let closed = io.close(outputFD)
            if closed.failed { throw .system(.close, path: target, errno: closed.errno) }
        } catch {
            if open { io.closeQuietly(outputFD) }
            io.unlinkQuietly(target)
            throw error
        }
        return true
    }

    /// Flushes a folder's entries to disk; best effort (the change itself has happened).
    private func syncFolder(_ folder: String) {
        let opened = io.retryingInterrupts { io.open(folder, OpenFlags.readOnly | OpenFlags.directory | OpenFlags.closeOnExec, 0) }
        guard !opened.failed else { return }
        let fd = Int32(truncatingIfNeeded: opened.value)
        _ = io.retryingInterrupts { io.fsync(fd) }
        io.closeQuietly(fd)
    }
}

extension ReplicaStateStore {
    /// `<directory>/merged/<vault id, 32 hex digits>`: where an app keeps merged copies of
    /// the vault on this device, outside any synced folder.
    package func mergedCopiesFolder(vaultID: String) -> String {
        PathName.joined(PathName.joined(directory, "merged"), vaultID)
    }
}

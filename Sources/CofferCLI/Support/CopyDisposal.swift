import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Puts merged conflict copies away for `coffer sync`: into `.coffer-merged/` beside the
/// vault, keeping their names and never replacing a file there, or deletes them.
enum CopyDisposal {
    static let backupFolderName = ".coffer-merged"

    /// `.coffer-merged` in the folder of the vault file (the file a symbolic link names,
    /// where the sync service leaves its copies).
    static func backupFolder(forVault vault: String) -> String {
        var info = stat()
        var file = vault
        if lstat(vault, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let resolved = resolvedPath(vault) { file = resolved }
        return joined(FileChecks.folder(of: file), backupFolderName)
    }

    /// Creates `folder` with mode 0700 when it is missing; an existing one must be a
    /// folder (not a symbolic link or a file).
    static func prepare(_ folder: String) throws {
        if mkdir(folder, 0o700) == 0 {
            syncFolder(FileChecks.folder(of: folder))
            return
        }
        let code = errno
        guard code == EEXIST else { throw CLIFailure(.ioError, "cannot create \(folder): \(describe(code))") }
        var info = stat()
        guard lstat(folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIFailure(.ioError, "\(folder) exists and is not a folder; merged copies were left in place")
        }
    }

    /// Moves the file at `path` into `folder` under its own name, or, when that name is
    /// taken, with `~2`, `~3`… before its extension; a file already there is never replaced.
    /// On another file system (or one without hard links) the file is copied (mode 0600,
    /// flushed to disk), then removed. Returns the new path.
    static func move(_ path: String, into folder: String) throws -> String {
        let name = baseName(path)
        for attempt in 1...1000 {
            let candidate = joined(folder, numbered(name, attempt))
            // link() never replaces an existing name: EEXIST means try the next one.
            if link(path, candidate) == 0 {
                try removeOriginal(path, keeping: candidate)
                return candidate
            }
            let code = errno
            if code == EEXIST { continue }
            guard [EXDEV, EPERM, EOPNOTSUPP, EMLINK, ENOSYS].contains(code) else {
                throw CLIFailure(.ioError, "cannot move \(path) to \(folder): \(describe(code)); it was left in place")
            }
            guard try copyExclusively(path, to: candidate) else { continue }
            try removeOriginal(path, keeping: candidate)
            return candidate
        }
        throw CLIFailure(.ioError, "cannot move \(path) to \(folder): too many files there named like it; it was left in place")
    }

    /// Deletes the file at `path`.
    static func delete(_ path: String) throws {
        guard unlink(path) == 0 else {
            let code = errno
            throw CLIFailure(.ioError, "cannot delete \(path): \(describe(code)); it was left in place")
        }
        syncFolder(FileChecks.folder(of: path))
    }

    // MARK: - Helpers

    private static func removeOriginal(_ path: String, keeping copy: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            let code = errno
            unlink(copy)
            throw CLIFailure(.ioError, "cannot remove \(path) after copying it to \(copy): \(describe(code)); it was left in place")
        }
        syncFolder(FileChecks.folder(of: copy))
        syncFolder(FileChecks.folder(of: path))
    }

    /// Copies `source` to a new file `target` (0600, `O_EXCL`), flushed to disk. False when
    /// `target` exists.
    private static func copyExclusively(_ source: String, to target: String) throws -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else {
            let code = errno
            throw CLIFailure(.ioError, "cannot read \(source): \(describe(code)); it was left in place")
        }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            let code = errno
            if code == EEXIST { return false }
            throw CLIFailure(.ioError, "cannot create \(target): \(describe(code)); \(source) was left in place")
        }
        var failure: Int32?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            if count == 0 { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { bytes in bytes.baseAddress.map { write(output, $0 + offset, count - offset) } ?? -1 }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break copying
                }
                offset += written
            }
        }
        if failure == nil, fsync(output) != 0 { failure = errno }
        if close(output) != 0, failure == nil { failure = errno }
        if let failure {
            unlink(target)
            throw CLIFailure(.ioError, "cannot copy \(source) to \(target): \(describe(failure)); it was left in place")
        }
        return true
    }

    /// `name` for the first attempt, then with `~N` before the extension (the part from
    /// the last dot, unless that dot starts the name).
    static func numbered(_ name: String, _ attempt: Int) -> String {
        guard attempt > 1 else { return name }
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(name[..<dot]) + "~\(attempt)" + String(name[dot...])
        }
        return name + "~\(attempt)"
    }

    private static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    private static func joined(_ folder: String, _ name: String) -> String {
        folder == "/" ? "/" + name : folder + "/" + name
    }

    private static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Flushes a folder's entries to disk; best effort (the move itself has happened).
    private static func syncFolder(_ folder: String) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

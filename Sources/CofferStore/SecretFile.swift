import CofferCrypto

/// Whole files whose bytes are secret (key files, import and export files): read
/// straight into guarded memory, written new with mode 0600. Not the vault file, which
/// goes through ``VaultFileStore``; every call goes through the same seam, ``FileIO``.
package enum SecretFile {
    /// Reads a whole regular file into guarded memory, refusing files over `limit` bytes
    /// and, with `ownerOnly`, files that others may read or write (mode beyond 0700).
    /// `kind` names the file in operations ("key file"), `name` in messages.
    ///
    /// The file is read as `fstat` sized it. One that shrinks meanwhile is a read error
    /// (`EIO`); one that grows is never read past `limit`: over it, ``StoreError/fileTooLarge(_:path:)``,
    /// else a read error (`EAGAIN`: it is being written, try again), never its first bytes alone.
    package static func contents(of path: String, limit: Int, kind: String, name: String,
                                 ownerOnly: Bool = false, io: FileIO = .live) throws(StoreError) -> SecureBytes {
        // O_NONBLOCK: a FIFO planted at the path must not block the open; the fstat
        // below then refuses it. No effect on regular files.
        let opened = io.retryingInterrupts {
            io.open(path, OpenFlags.readOnly | OpenFlags.closeOnExec | OpenFlags.nonBlocking, 0)
        }
        if opened.failed {
            if opened.errno == Errno.noSuchFileOrDirectory { throw .fileNotFound(path) }
            throw .system(.secretFile(.open, kind: kind), path: path, errno: opened.errno)
        }
        let fd = Int32(truncatingIfNeeded: opened.value)
        defer { io.closeQuietly(fd) }
        let (found, code) = io.fstat(fd)
        guard let status = found else { throw .system(.secretFile(.stat, kind: kind), path: path, errno: code) }
        guard status.isRegularFile else { throw .notARegularFile("\(name) is not a regular file", path: path) }
        if ownerOnly, status.permissions & 0o077 != 0 {
            throw .insecurePermissions("\(name) must be readable by its owner only (mode 0600)", path: path)
        }
        let tooLarge = StoreError.fileTooLarge("\(name) is larger than \(limit >> 20) MiB", path: path)
        guard status.size <= Int64(limit) else { throw tooLarge }
        let size = Int(max(status.size, 0))
        var failure: StoreError?
        let contents: SecureBytes
        do throws(CofferError) {
            contents = try SecureBytes(count: size) { (buffer: UnsafeMutableRawBufferPointer) in
                var offset = 0
                while offset < size {
                    let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[offset...])
                    let outcome = io.retryingInterrupts { io.read(fd, rest) }
                    guard !outcome.failed, outcome.value > 0 else {
                        // An error, or the end of a file that shrank since fstat.
                        failure = .system(.secretFile(.read, kind: kind), path: path,
                                          errno: outcome.failed ? outcome.errno : Errno.ioError)
                        return
                    }
                    // A misbehaving call claiming more than asked must not push us past the end.
                    offset += min(outcome.value, rest.count)
                }
            }
        } catch {
            throw .crypto(error)
        }
        // On a failed read, `contents` is released (and wiped) here.
        if let failure { throw failure }
        if let growth = try bytesBeyondEnd(fd, upTo: limit - size, io: io, kind: kind, path: path) {
            // The file grew since fstat: what was read is not the whole file.
            throw growth > limit - size ? tooLarge
                : .system(.secretFile(.read, kind: kind), path: path, errno: Errno.resourceTemporarilyUnavailable)
        }
        return contents
    }

    /// After a whole file was read: nil at its end, as expected; else how many more bytes
    /// it has now, counting no further than `bound + 1`. They are read into a small buffer
    /// that is wiped, since they may be secret too.
    private static func bytesBeyondEnd(_ fd: Int32, upTo bound: Int, io: FileIO, kind: String, path: String) throws(StoreError) -> Int? {
        var scratch = [UInt8](repeating: 0, count: 4096)
        defer { SecureBytes.wipe(&scratch) }
        var extra = 0
        while extra <= bound {
            let outcome = scratch.withUnsafeMutableBytes { buffer in
                io.retryingInterrupts { io.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(bound + 1 - extra))) }
            }
            if outcome.failed { throw .system(.secretFile(.read, kind: kind), path: path, errno: outcome.errno) }
            if outcome.value == 0 { break }
            extra += min(outcome.value, scratch.count)
        }
        return extra == 0 ? nil : extra
    }

    /// Writes `contents` to a new file with mode 0600 (never over an existing file or
    /// through a symbolic link) and fsyncs it; on failure the file is removed.
    package static func writeNew(_ contents: SecureBytes, to path: String, kind: String, io: FileIO = .live) throws(StoreError) {
        let opened = io.retryingInterrupts {
            io.open(path, OpenFlags.writeOnly | OpenFlags.create | OpenFlags.exclusive | OpenFlags.closeOnExec | OpenFlags.noFollow, 0o600)
        }
        if opened.failed {
            if opened.errno == Errno.fileExists { throw .fileExists(path) }
            if opened.errno == Errno.noSuchFileOrDirectory { throw .fileNotFound(path) }
            throw .system(.secretFile(.create, kind: kind), path: path, errno: opened.errno)
        }
        let fd = Int32(truncatingIfNeeded: opened.value)
        var failure: StoreError?
        contents.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                let outcome = io.retryingInterrupts { io.write(fd, rest) }
                guard !outcome.failed, outcome.value > 0 else {
                    failure = .system(.secretFile(.write, kind: kind), path: path, errno: outcome.failed ? outcome.errno : Errno.ioError)
                    return
                }
                offset += min(outcome.value, rest.count)
            }
        }
        if failure == nil {
            let synced = io.retryingInterrupts { io.fsync(fd) }
            if synced.failed { failure = .system(.secretFile(.fsync, kind: kind), path: path, errno: synced.errno) }
        }
        io.closeQuietly(fd)
        if let failure {
            io.unlinkQuietly(path)
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

import CofferCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The outcome of one system call: its C return value and, when it failed, `errno`.
///
/// `value` is what the call returned (a file descriptor, a byte count, or 0 / -1);
/// `errno` is 0 when the call succeeded.
package struct SyscallResult: Sendable, Equatable {
    var value: Int
    var errno: Int32

    static func success(_ value: Int = 0) -> SyscallResult { SyscallResult(value: value, errno: 0) }
    static func failure(_ errno: Int32) -> SyscallResult { SyscallResult(value: -1, errno: errno) }
    var failed: Bool { value < 0 }
}

/// What `stat`/`fstat` report, reduced to the fields the store uses; the same on Linux and macOS.
struct FileStatus: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedNanoseconds: Int64
    /// The whole `st_mode`: file type and permission bits.
    var mode: UInt32

    static let typeMask: UInt32 = 0o170000
    static let regularType: UInt32 = 0o100000
    static let directoryType: UInt32 = 0o040000

    var isRegularFile: Bool { mode & Self.typeMask == Self.regularType }
    var isDirectory: Bool { mode & Self.typeMask == Self.directoryType }
    /// The permission bits, e.g. `0o600`.
    var permissions: UInt32 { mode & 0o7777 }
    var identity: FileIdentity {
        FileIdentity(device: device, inode: inode, size: size, modifiedNanoseconds: modifiedNanoseconds)
    }
}

/// The single narrow seam every system call of the store goes through.
///
/// Production uses ``live``, a thin wrapper over Glibc/Darwin. Tests build a `FileIO`
/// that forwards to `live` and fails one chosen call, to check that every failure
/// leaves the vault file and its backup as they were.
///
/// Every closure makes exactly one system call (or, for `listDirectory`, one
/// opendir/readdir/closedir sequence) and reports the C result and `errno`. None of
/// them retries: the store decides what to do with `EINTR`, short writes and so on.
package struct FileIO: Sendable {
    /// `open(path, flags, mode)`; `value` is the new descriptor.
    var open: @Sendable (_ path: String, _ flags: Int32, _ mode: UInt32) -> SyscallResult
    /// `close(fd)`.
    var close: @Sendable (_ fd: Int32) -> SyscallResult
    /// `read(fd, buffer, buffer.count)`; `value` is the number of bytes read, 0 at end of file.
    var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> SyscallResult
    /// `write(fd, buffer, buffer.count)`; `value` is the number of bytes written (may be short).
    var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> SyscallResult
    /// `fsync(fd)`; on Darwin `fcntl(fd, F_FULLFSYNC)`, falling back to `fsync` where unsupported.
    var fsync: @Sendable (_ fd: Int32) -> SyscallResult
    /// `fchmod(fd, mode)`.
    var fchmod: @Sendable (_ fd: Int32, _ mode: UInt32) -> SyscallResult
    /// `fstat(fd)`.
    var fstat: @Sendable (_ fd: Int32) -> (status: FileStatus?, errno: Int32)
    /// `stat(path)` (follows symbolic links).
    var stat: @Sendable (_ path: String) -> (status: FileStatus?, errno: Int32)
    /// `lstat(path)`: like `stat`, but a symbolic link reports itself, not its target.
    var lstat: @Sendable (_ path: String) -> (status: FileStatus?, errno: Int32)
    /// `rename(from, to)`.
    var rename: @Sendable (_ from: String, _ to: String) -> SyscallResult
    /// `link(existing, new)`: a hard link.
    var link: @Sendable (_ existing: String, _ new: String) -> SyscallResult
    /// `unlink(path)`.
    package var unlink: @Sendable (_ path: String) -> SyscallResult
    /// `mkdir(path, mode)` (the umask applies, as always).
    var makeDirectory: @Sendable (_ path: String, _ mode: UInt32) -> SyscallResult
    /// The names in a directory, without "." and "..": `opendir` / `readdir` / `closedir`.
    var listDirectory: @Sendable (_ path: String) -> (names: [String]?, errno: Int32)
    /// `flock(fd, operation)`.
    var flock: @Sendable (_ fd: Int32, _ operation: Int32) -> SyscallResult
    /// `readlink(path)`: the target of a symbolic link (`EINVAL` when `path` is not one).
    var readLink: @Sendable (_ path: String) -> (target: String?, errno: Int32)

    /// The real system calls.
    static let live = FileIO(
        open: liveOpen,
        close: liveClose,
        read: liveRead,
        write: liveWrite,
        fsync: liveFsync,
        fchmod: liveFchmod,
        fstat: liveFstat,
        stat: liveStat,
        lstat: liveLstat,
        rename: liveRename,
        link: liveLink,
        unlink: liveUnlink,
        makeDirectory: liveMakeDirectory,
        listDirectory: liveListDirectory,
        flock: liveFlock,
        readLink: liveReadLink
    )
}

// MARK: - Live implementations
// Defined at file scope so that `open`, `read`, … name the C functions, not the
// closure properties above.

private func result(_ value: Int) -> SyscallResult {
    value < 0 ? .failure(errno) : .success(value)
}

private func result(_ value: Int32) -> SyscallResult { result(Int(value)) }

private func liveOpen(_ path: String, _ flags: Int32, _ mode: UInt32) -> SyscallResult {
    result(open(path, flags, mode_t(truncatingIfNeeded: mode)))
}

private func liveClose(_ fd: Int32) -> SyscallResult { result(close(fd)) }

private func liveRead(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> SyscallResult {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
    return result(read(fd, base, buffer.count))
}

private func liveWrite(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> SyscallResult {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
    return result(write(fd, base, buffer.count))
}

private func liveFsync(_ fd: Int32) -> SyscallResult {
    #if canImport(Darwin)
    // On macOS fsync does not flush the drive's cache; F_FULLFSYNC does. Some file
    // systems (network, FAT) do not support it: fall back to plain fsync there.
    if fcntl(fd, F_FULLFSYNC) == 0 { return .success() }
    #endif
    return result(fsync(fd))
}

private func liveFchmod(_ fd: Int32, _ mode: UInt32) -> SyscallResult {
    result(fchmod(fd, mode_t(truncatingIfNeeded: mode)))
}

private func status(of raw: stat) -> FileStatus {
    #if canImport(Darwin)
    let seconds = Int64(raw.st_mtimespec.tv_sec)
    let nanoseconds = Int64(raw.st_mtimespec.tv_nsec)
    #else
    let seconds = Int64(raw.st_mtim.tv_sec)
    let nanoseconds = Int64(raw.st_mtim.tv_nsec)
    #endif
    return FileStatus(
        device: UInt64(truncatingIfNeeded: raw.st_dev),
        inode: UInt64(truncatingIfNeeded: raw.st_ino),
        size: Int64(raw.st_size),
        // Wrapping: a file stamped centuries away must not trap.
        modifiedNanoseconds: seconds &* 1_000_000_000 &+ nanoseconds,
        mode: UInt32(truncatingIfNeeded: raw.st_mode)
    )
}

private func liveFstat(_ fd: Int32) -> (status: FileStatus?, errno: Int32) {
    var raw = stat()
    guard fstat(fd, &raw) == 0 else { return (nil, errno) }
    return (status(of: raw), 0)
}

private func liveStat(_ path: String) -> (status: FileStatus?, errno: Int32) {
    var raw = stat()
    guard stat(path, &raw) == 0 else { return (nil, errno) }
    return (status(of: raw), 0)
}

private func liveLstat(_ path: String) -> (status: FileStatus?, errno: Int32) {
    var raw = stat()
    guard lstat(path, &raw) == 0 else { return (nil, errno) }
    return (status(of: raw), 0)
}

private func liveRename(_ from: String, _ to: String) -> SyscallResult { result(rename(from, to)) }

private func liveLink(_ existing: String, _ new: String) -> SyscallResult { result(link(existing, new)) }

private func liveUnlink(_ path: String) -> SyscallResult { result(unlink(path)) }

private func liveMakeDirectory(_ path: String, _ mode: UInt32) -> SyscallResult {
    result(mkdir(path, mode_t(truncatingIfNeeded: mode)))
}

private func liveListDirectory(_ path: String) -> (names: [String]?, errno: Int32) {
    guard let directory = opendir(path) else { return (nil, errno) }
    defer { closedir(directory) }
    var names: [String] = []
    while true {
        errno = 0
        guard let entry = readdir(directory) else {
            // NULL with errno 0 is the end of the directory.
            let code = errno
            return code == 0 ? (names, 0) : (nil, code)
        }
        let name = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
            tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                String(cString: $0)
            }
        }
        if name != "." && name != ".." { names.append(name) }
    }
}

private func liveFlock(_ fd: Int32, _ operation: Int32) -> SyscallResult { result(flock(fd, operation)) }

private func liveReadLink(_ path: String) -> (target: String?, errno: Int32) {
    // PATH_MAX bytes; a longer target cannot be opened anyway.
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = buffer.withUnsafeMutableBufferPointer { slots -> Int in
        guard let base = slots.baseAddress else { return -1 }
        return readlink(path, base, slots.count)
    }
    guard count >= 0 else { return (nil, errno) }
    guard count < buffer.count else { return (nil, ENAMETOOLONG) }
    let bytes = buffer[..<count].map { UInt8(bitPattern: $0) }
    return (String(decoding: bytes, as: UTF8.self), 0)
}

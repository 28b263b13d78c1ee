import CCofferSystem
import CofferCrypto
// The one file of CofferStore that imports the C library: the live side of the store's
// seams (``FileIO``, ``KeyringIO``) and the C constants the rest of the store names
// (``Errno``, ``OpenFlags``, ``LockOperation``). Every other file of the store reaches
// the system only through these, so tests can fail any call they make.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `errno` values the store acts on, named as swift-system names them.
package enum Errno {
    package static let interrupted = EINTR
    package static let noSuchFileOrDirectory = ENOENT
    package static let notDirectory = ENOTDIR
    package static let isDirectory = EISDIR
    package static let fileExists = EEXIST
    package static let invalidArgument = EINVAL
    package static let notPermitted = EPERM
    package static let permissionDenied = EACCES
    package static let notSupported = ENOTSUP
    package static let notSupportedOnSocket = EOPNOTSUPP
    package static let noFunction = ENOSYS
    package static let noSpace = ENOSPC
    package static let diskQuotaExceeded = EDQUOT
    package static let tooManyLinks = EMLINK
    package static let improperLink = EXDEV
    package static let ioError = EIO
    package static let tooManySymbolicLinkLevels = ELOOP
    package static let noSuchAddressOrDevice = ENXIO
    package static let wouldBlock = EWOULDBLOCK
    package static let resourceTemporarilyUnavailable = EAGAIN
}

/// The `open(2)` flags the store uses; combine them with `|`.
enum OpenFlags {
    static let readOnly = O_RDONLY
    static let writeOnly = O_WRONLY
    static let readWrite = O_RDWR
    static let create = O_CREAT
    static let exclusive = O_EXCL
    static let closeOnExec = O_CLOEXEC
    static let nonBlocking = O_NONBLOCK
    static let noFollow = O_NOFOLLOW
    static let directory = O_DIRECTORY
}

/// The `flock(2)` operations the store uses.
enum LockOperation {
    static let exclusive = LOCK_EX
    static let nonBlocking = LOCK_NB
}

extension FileIO {
    /// The real system calls.
    package static let live = FileIO(
        open: liveOpen,
        close: liveClose,
        read: liveRead,
        readAt: liveReadAt,
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
        readLink: liveReadLink,
        checkReadable: liveCheckReadable,
        currentDirectory: liveCurrentDirectory
    )
}


// MARK: - Live implementations
// Defined at file scope so that `open`, `read`, … name the C functions, not the
// closure properties of `FileIO`.

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

private func liveReadAt(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int64) -> SyscallResult {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return .success(0) }
    return result(pread(fd, base, buffer.count, off_t(offset)))
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

private func liveCheckReadable(_ path: String) -> SyscallResult { result(access(path, R_OK)) }

private func liveCurrentDirectory() -> (path: String?, errno: Int32) {
    guard let cwd = getcwd(nil, 0) else { return (nil, errno) }
    defer { free(cwd) }
    return (String(cString: cwd), 0)
}

extension KeyringIO {
    /// The system's calls.
    package static let live = KeyringIO(
        addKey: { description, payload, keyring in
            let result = coffer_add_key("user", description, payload.baseAddress, UInt(payload.count), keyring)
            return result < 0 ? .failure(errno) : .success(Int(result))
        },
        keyctl: { operation, a2, a3, a4, a5 in
            let result = coffer_keyctl(operation.rawValue, a2, a3, a4, a5)
            return result < 0 ? .failure(errno) : .success(Int(result))
        })
}

/// Sleeps the calling thread for `duration`, resuming after signals (the lock's polling).
func sleepThread(for duration: Duration) {
    let (seconds, attoseconds) = duration.components
    guard seconds > 0 || attoseconds > 0 else { return }
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 && errno == EINTR {
        request = remaining
    }
}

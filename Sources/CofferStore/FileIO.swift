import CofferCrypto

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
package struct FileStatus: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedNanoseconds: Int64
    /// The whole `st_mode`: file type and permission bits.
    var mode: UInt32

    static let typeMask: UInt32 = 0o170000
    static let regularType: UInt32 = 0o100000
    static let directoryType: UInt32 = 0o040000

    package var isRegularFile: Bool { mode & Self.typeMask == Self.regularType }
    package var isDirectory: Bool { mode & Self.typeMask == Self.directoryType }
    /// The permission bits, e.g. `0o600`.
    var permissions: UInt32 { mode & 0o7777 }
    package var identity: FileIdentity {
        FileIdentity(device: device, inode: inode, size: size, modifiedNanoseconds: modifiedNanoseconds)
    }
}

/// The single narrow seam every system call of the store goes through.
///
/// Production uses ``live``, a thin wrapper over Glibc/Darwin (SystemCalls.swift, the one
/// file of the store that imports the C library). Tests build a `FileIO`
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
    /// `pread(fd, buffer, buffer.count, offset)`; `value` is the number of bytes read, 0 at end of file.
    var readAt: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int64) -> SyscallResult
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
    /// `access(path, R_OK)`: whether this process may read the file (following links).
    var checkReadable: @Sendable (_ path: String) -> SyscallResult
    /// `getcwd()`: the absolute path of the working directory.
    var currentDirectory: @Sendable () -> (path: String?, errno: Int32)
}

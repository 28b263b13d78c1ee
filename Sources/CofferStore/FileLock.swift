import CofferCrypto

/// An exclusive advisory lock on a sidecar file (`<vault>.lock`).
///
/// `flock` locks belong to an open file description, so every acquisition opens the
/// lock file afresh: two threads or tasks of one process exclude each other exactly
/// like two processes do. The consequence is that the lock is not re-entrant:
/// taking it again while holding it times out.
///
/// The lock file is created (mode 0600) when missing and never deleted: deleting it
/// would let two writers lock two different files under the same name.
struct FileLock: Sendable {
    let io: FileIO
    /// The sidecar lock file.
    let lockPath: String
    /// What `lockTimeout` names: the vault file the lock protects.
    let protectedPath: String
    /// Its directory, named by `fileNotFound` when missing.
    let directory: String

    /// How often a held lock is tried again.
    static let pollInterval: Duration = .milliseconds(10)

    /// Runs `body` while holding the lock; gives up with ``CofferError/lockTimeout(_:)``
    /// after `timeout` (a zero or negative timeout tries once). The lock is released
    /// when `body` returns or throws.
    ///
    /// This blocks the calling thread while it waits (polling every
    /// ``pollInterval``); call it off the main thread.
    ///
    /// `body` throws the caller's error (the vault's), so the lock's own failures are
    /// converted to ``CofferError`` here.
    func withExclusiveLock<R>(timeout: Duration, _ body: () throws(CofferError) -> R) throws(CofferError) -> R {
        let fd: Int32
        do throws(StoreError) {
            fd = try acquire(timeout: timeout)
        } catch {
            throw CofferError(error)
        }
        // Closing the descriptor releases the lock; no explicit LOCK_UN is needed,
        // and none could fail in a way that leaves the lock held.
        defer { io.closeQuietly(fd) }
        return try body()
    }

    /// Opens and locks ``lockPath``; returns the descriptor that holds the lock.
    private func acquire(timeout: Duration) throws(StoreError) -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)

        let opened = io.retryingInterrupts {
            io.open(lockPath, OpenFlags.readWrite | OpenFlags.create | OpenFlags.closeOnExec | OpenFlags.noFollow, 0o600)
        }
        if opened.failed {
            if opened.errno == Errno.noSuchFileOrDirectory || opened.errno == Errno.notDirectory { throw .fileNotFound(directory) }
            throw .system(.openLock, path: lockPath, errno: opened.errno)
        }
        let fd = Int32(truncatingIfNeeded: opened.value)

        while true {
            let locked = io.flock(fd, LockOperation.exclusive | LockOperation.nonBlocking)
            if !locked.failed { break }
            if locked.errno == Errno.interrupted { continue }
            guard locked.errno == Errno.wouldBlock || locked.errno == Errno.resourceTemporarilyUnavailable else {
                io.closeQuietly(fd)
                throw .system(.lock, path: lockPath, errno: locked.errno)
            }
            let now = clock.now
            if now >= deadline {
                io.closeQuietly(fd)
                throw .lockTimeout(protectedPath)
            }
            Self.pause(min(Self.pollInterval, now.duration(to: deadline)))
        }
        return fd
    }

    /// Sleeps the calling thread (not a file operation, so not part of the seam).
    static func pause(_ duration: Duration) {
        sleepThread(for: duration)
    }
}

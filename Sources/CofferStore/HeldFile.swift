import CofferCrypto

/// A vault file held open for reading, read in windows at offsets (`pread`) rather than
/// whole: a large vault's lookup reads its start and the few records it needs, and a
/// listing reads the records a bounded window at a time.
///
/// The descriptor names the file as it was when opened: a save elsewhere renames a new
/// file over the path and this one keeps reading the version it opened, so what is read
/// stays consistent with the identity. A file cut short in place by another program
/// while held (no Coffer writer does that) gives ``StoreError/changedWhileRead(_:path:)``,
/// a typed error, where a memory map would have ended the process with SIGBUS.
///
/// ```swift
/// let file = try store.openHeld()
/// let start = try file.read(at: 0, count: min(4096, file.size))
/// ```
package final class HeldFile: Sendable {
    package let path: String
    /// `fstat` of the descriptor when it was opened: the file this reads.
    package let identity: FileIdentity
    private let io: FileIO
    private let fd: Int32

    convenience init(io: FileIO, path: String) throws(StoreError) {
        let (fd, status) = try io.openForReading(path)
        self.init(io: io, path: path, fd: fd, identity: status.identity)
    }

    /// Holds `fd`, open for reading on the file of `identity`, and closes it when released.
    init(io: FileIO, path: String, fd: Int32, identity: FileIdentity) {
        self.io = io
        self.path = path
        self.fd = fd
        self.identity = identity
    }

    deinit { io.closeQuietly(fd) }

    /// The file's size when it was opened.
    package var size: Int { Int(identity.size) }

    /// Exactly `count` bytes from `offset`. The file ending before them (it was truncated
    /// while held) is ``StoreError/changedWhileRead(_:path:)``; a failed read, `system(.read)`.
    package func read(at offset: Int, count: Int) throws(StoreError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, count <= size - offset else {
            throw .changedWhileRead("bytes \(offset)..<\(offset + count) are past the end of the file (\(size) bytes)", path: path)
        }
        var failure: StoreError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var filled = 0
            while filled < count {
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[filled...])
                let outcome = io.retryingInterrupts { io.readAt(fd, rest, Int64(offset + filled)) }
                if outcome.failed { failure = .system(.read, path: path, errno: outcome.errno); break }
                if outcome.value == 0 {
                    failure = .changedWhileRead("the file ended at \(offset + filled) bytes while \(offset + count) were read", path: path)
                    break
                }
                filled += min(outcome.value, rest.count)
            }
            initialized = failure == nil ? filled : 0
        }
        if let failure { throw failure }
        return bytes
    }
}

extension VaultFileStore {
    /// The file held open for reading in windows (``HeldFile``). Takes no lock. Missing ->
    /// `fileNotFound(path)`; over 1 GiB -> `vaultTooLarge`.
    package func openHeld() throws(StoreError) -> HeldFile {
        try HeldFile(io: io, path: path)
    }
}

import CofferCrypto
/// Identity of the file on disk, to notice that another process replaced it.
///
/// Every save replaces the file by renaming a new one over it, so the inode changes
/// with each save. Inode numbers can be reused once a file is deleted, which is why
/// the size and the modification time (nanoseconds since 1970, as the file system
/// stores it) are part of the identity too.
package struct FileIdentity: Equatable, Hashable, Sendable {
    let device: UInt64
    let inode: UInt64
    package let size: Int64
    package let modifiedNanoseconds: Int64

    package init(device: UInt64, inode: UInt64, size: Int64, modifiedNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    /// Whether `other` is the same file (device and inode), changed since or not.
    package func isSameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode
    }
}

/// What was read: the whole file and its identity at the time.
///
/// `identity` comes from `fstat` on the same descriptor the bytes were read from, so
/// the two always describe the same file even if it was replaced meanwhile.
package struct FileSnapshot: Sendable {
    package let bytes: [UInt8]
    package let identity: FileIdentity
}

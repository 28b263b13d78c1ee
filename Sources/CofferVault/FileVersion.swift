import CofferStore
import Foundation

/// The file a path names and its version when noted: device and inode (which file),
/// size and modification time (which version of it). Two notes of one path are equal
/// only when nobody replaced, wrote or touched the file in between.
///
/// Note a copy's version before merging it, and put it away only if it is still that
/// version (``Vault/putAwayMergedCopy(at:unchangedSince:_:)``): a sync service may still
/// be writing it.
///
/// ```swift
/// guard let before = FileVersion(of: copyPath) else { return }   // nothing there
/// try vault.merge(contentsOf: copyPath)
/// print(FileVersion(of: copyPath) == before)   // false if it changed meanwhile
/// ```
public struct FileVersion: Sendable, Hashable {
    let identity: FileIdentity
    /// Whether the path named a folder.
    public let isDirectory: Bool
    /// Whether the path named a regular file (not a folder, a FIFO, a device, or, when
    /// links are not followed, a symbolic link).
    public let isRegularFile: Bool

    /// When the file was last written, as the file system records it.
    ///
    /// ```swift
    /// if let backup = FileVersion(of: path + ".bak") { print("backup saved", backup.modificationDate) }
    /// ```
    public var modificationDate: Date {
        Date(timeIntervalSince1970: Double(identity.modifiedNanoseconds) / 1_000_000_000)
    }

    /// The version of what `path` names now, following symbolic links unless
    /// `followingLinks` is false (then a link is noted itself, even a dangling one); nil
    /// when nothing is there or it cannot be examined (a folder on the way is not searchable).
    public init?(of path: String, followingLinks: Bool = true) {
        guard let status = FileIO.live.status(of: path, followingLinks: followingLinks) else { return nil }
        identity = status.identity
        isDirectory = status.isDirectory
        isRegularFile = status.isRegularFile
    }

    init(_ identity: FileIdentity, isDirectory: Bool, isRegularFile: Bool) {
        self.identity = identity
        self.isDirectory = isDirectory
        self.isRegularFile = isRegularFile
    }

    /// Whether `other` is a version of the same file (same device and inode), changed or not:
    /// two paths, or a link and its target, that name one file.
    ///
    /// ```swift
    /// if let copy = FileVersion(of: copyPath), let vault = FileVersion(of: vaultPath), copy.isSameFile(as: vault) {
    ///     print("that is the vault itself")
    /// }
    /// ```
    public func isSameFile(as other: FileVersion) -> Bool {
        identity.isSameFile(as: other.identity)
    }
}

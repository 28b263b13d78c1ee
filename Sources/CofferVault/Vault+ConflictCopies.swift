import CofferCrypto
import CofferStore

/// The sync service whose naming a conflict copy of a vault follows (``Vault/conflictCopies(of:)-(String)``).
///
/// ```swift
/// for copy in try Vault.conflictCopies(of: path) where copy.service == .syncthing {
///     print("Syncthing left", copy.path)
/// }
/// ```
public enum ConflictCopyService: String, Sendable, Hashable, CaseIterable {
    /// Syncthing: `NAME.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.EXT`.
    case syncthing
    /// Dropbox: `NAME (OWNER's conflicted copy YYYY-MM-DD).EXT`, optionally with ` (N)` after the date.
    case dropbox
    /// Nextcloud (and ownCloud): `NAME (conflicted copy [USER ]YYYY-MM-DD HHMMSS).EXT`, or the
    /// older `NAME_conflict-YYYYMMDD-HHMMSS.EXT`.
    case nextcloud

    init(_ origin: ConflictCopyOrigin) {
        switch origin {
        case .syncthing: self = .syncthing
        case .dropbox: self = .dropbox
        case .nextcloud: self = .nextcloud
        }
    }
}

/// A file beside a vault named as a sync service names the copy it keeps when two devices
/// changed the vault at once. It is probably another replica of the vault, to merge with
/// ``Vault/merge(contentsOf:)-(String)``; nothing about it has been read or checked.
///
/// ```swift
/// let copy = try Vault.conflictCopies(of: "/home/me/Sync/vault.coffer").first
/// // copy?.path == "/home/me/Sync/vault.sync-conflict-20260301-101500-ABCDEF2.coffer"
/// // copy?.service == .syncthing
/// ```
public struct ConflictCopy: Sendable, Hashable {
    /// The copy's path: the vault file's folder (after symbolic links) joined with the copy's name.
    public let path: String
    /// The service whose naming the copy follows.
    public let service: ConflictCopyService

    /// A conflict copy at `path` named as `service` names them.
    public init(path: String, service: ConflictCopyService) {
        self.path = path
        self.service = service
    }
}

extension Vault {
    /// The conflict copies sync services left next to the vault file at `vaultPath`,
    /// sorted by name; none is opened or read.
    ///
    /// A copy is recognised by its name alone, as Syncthing, Dropbox and Nextcloud (or
    /// ownCloud) build it from the vault's file name (``ConflictCopyService``); only
    /// regular files count (never a folder or a symbolic link), and the vault's own `.bak`,
    /// `.lock` and temporary files never do. When `vaultPath` is a symbolic link, the copies
    /// are looked for next to the file it finally names, under that file's name: that is
    /// the file a sync service syncs. Names in other languages (Dropbox and Nextcloud
    /// translate "conflicted copy") and copies of copies are not recognised.
    ///
    /// The vault file itself need not exist; a missing folder throws
    /// ``CofferError/Kind/fileNotFound``, and a folder that cannot be listed ``CofferError/Kind/io``.
    ///
    /// Merge each copy, then put it away (``putAwayMergedCopy(at:unchangedSince:_:)``), so
    /// it is not merged again:
    ///
    /// ```swift
    /// let vault = try Vault.open(at: path, credential: .keyFile(try KeyFile(contentsOf: keyPath)))
    /// for copy in try Vault.conflictCopies(of: path) {
    ///     guard let noted = FileVersion(of: copy.path) else { continue }
    ///     do {
    ///         let report = try vault.merge(contentsOf: copy.path)   // saved atomically
    ///         print("\(copy.service): \(report.added) added, \(report.updated) updated")
    ///     } catch {
    ///         guard error.kind == .differentVault else { throw error }
    ///         print("\(copy.path) holds another vault; left alone")
    ///         continue
    ///     }
    ///     _ = try Vault.putAwayMergedCopy(at: copy.path, unchangedSince: noted, .delete)
    /// }
    /// ```
    public static func conflictCopies(of vaultPath: String) throws(CofferError) -> [ConflictCopy] {
        let found = try storeCall { () throws(StoreError) in try VaultFileStore(path: vaultPath).conflictCopies() }
        return found.map { ConflictCopy(path: $0.path, service: ConflictCopyService($0.origin)) }
    }
}

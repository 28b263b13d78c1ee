import CofferCrypto

/// One earlier version of a vault file kept in the state folder (``ReplicaStateStore``).
package struct StoredUndoVersion: Sendable, Hashable {
    /// The file's path in the versions folder.
    package let path: String
    /// When it stopped being the current version (the save that replaced it), in
    /// milliseconds since 1970.
    package let replacedMilliseconds: Int64
    /// The generation its header carries.
    package let generation: UInt64
}

/// Earlier versions of each vault file, kept on this device only: in the state folder
/// (`<directory>/versions/<32 hex memory key>/`, the key naming the vault at its path, as
/// the remembered clock does), never beside the vault, so a sync service does not copy
/// them to other devices. Each save that keeps a backup adds the version it replaced
/// (the new `.bak`), by a hard link to it where the file system allows (the `.bak` is only
/// ever renamed, never written in place) or a copy, named
/// `<20-digit milliseconds replaced>-<generation>.coffer`, mode 0600. The oldest are
/// removed past a count and an age.
///
/// A version is a whole vault file, sealed as it was: it opens with the credentials that
/// opened it then. So when the key slots change (a password change, a slot removed, a key
/// rotation), ``dropUndoVersions(vaultKey:)`` removes them all: a revoked credential
/// must not open any of them. (A rotation that re-seals rather than drops would replace
/// each file through ``replaceUndoVersion(_:with:)``.)
extension ReplicaStateStore {
    /// The folder of one vault's versions.
    func versionsFolder(vaultKey: [UInt8]) -> String {
        PathName.joined(PathName.joined(directory, "versions"), Self.hex(vaultKey))
    }

    /// Keeps the file at `backupPath` (the version a save just replaced) as an undo
    /// version, then removes versions beyond `count` and those replaced more than
    /// `maximumAgeMilliseconds` before `nowMilliseconds`. Best effort, like all state.
    package func keepUndoVersion(of backupPath: String, generation: UInt64, vaultKey: [UInt8], nowMilliseconds: Int64,
                                 count: Int, maximumAgeMilliseconds: Int64) throws(StoreError) {
        guard count > 0 else { return dropUndoVersions(vaultKey: vaultKey) }
        let folder = versionsFolder(vaultKey: vaultKey)
        try ensureDirectory(folder)
        let digits = String(max(0, nowMilliseconds))
        let name = String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "-\(generation).coffer"
        let target = PathName.joined(folder, name)
        let linked = io.retryingInterrupts { io.link(backupPath, target) }
        if linked.failed, linked.errno != Errno.fileExists {
            // Another file system (EXDEV) or no hard links: a copy.
            let backup = try io.readWholeFile(backupPath)
            _ = try writeStateFile(backup.bytes, to: target, exclusive: true)
        }
        let kept = try undoVersions(vaultKey: vaultKey)
        for (index, version) in kept.enumerated()
        where index >= count || nowMilliseconds - version.replacedMilliseconds > maximumAgeMilliseconds {
            io.unlinkQuietly(version.path)
        }
    }

    /// The versions kept for the vault, newest first; none when the folder is missing.
    /// Names that are not a version's are ignored.
    package func undoVersions(vaultKey: [UInt8]) throws(StoreError) -> [StoredUndoVersion] {
        let folder = versionsFolder(vaultKey: vaultKey)
        let listed = io.listDirectory(folder)
        guard let names = listed.names else {
            if listed.errno == Errno.noSuchFileOrDirectory || listed.errno == Errno.notDirectory { return [] }
            throw .system(.listDirectory, path: folder, errno: listed.errno)
        }
        let versions = names.compactMap { name -> StoredUndoVersion? in
            guard name.hasSuffix(".coffer"), !name.hasPrefix(".") else { return nil }
            let parts = name.dropLast(".coffer".count).split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].count == 20, let replaced = Int64(parts[0]), let generation = UInt64(parts[1]) else { return nil }
            return StoredUndoVersion(path: PathName.joined(folder, name), replacedMilliseconds: replaced, generation: generation)
        }
        return versions.sorted { ($0.replacedMilliseconds, $0.generation) > ($1.replacedMilliseconds, $1.generation) }
    }

    /// The bytes of one version (a regular file within the vault file's size bound).
    package func readUndoVersion(_ version: StoredUndoVersion) throws(StoreError) -> FileSnapshot {
        try io.readWholeFile(version.path)
    }

    /// Replaces one version's file with `bytes` (a re-sealed version), through a
    /// temporary file renamed over it.
    package func replaceUndoVersion(_ version: StoredUndoVersion, with bytes: [UInt8]) throws(StoreError) {
        _ = try writeStateFile(bytes, to: version.path, exclusive: false)
    }

    /// Removes every version kept for the vault (the hook a change of key slots calls).
    package func dropUndoVersions(vaultKey: [UInt8]) {
        for version in (try? undoVersions(vaultKey: vaultKey)) ?? [] { io.unlinkQuietly(version.path) }
    }
}

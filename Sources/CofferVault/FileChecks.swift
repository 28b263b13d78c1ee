import CofferStore

/// Quick questions about a path that an app asks before it prompts for a password, so that
/// a command that would fail anyway fails first; and removing a file the app just created
/// when a later step fails. Every call goes through the store's I/O seam; none throws (a
/// path that cannot be examined is answered as if nothing were there).
///
/// ```swift
/// if FileChecks.exists(path) { throw CofferError.fileExists(path) }
/// let folder = FileChecks.folder(of: path)
/// if !FileChecks.isDirectory(folder) { throw CofferError.fileNotFound(folder) }
/// let password = try askForNewPassword()            // only now
/// let vault = try Vault.create(at: path, password: password)
/// ```
public enum FileChecks {
    /// Whether anything is at `path`, without following a symbolic link (a dangling link
    /// counts): what a file created there would collide with.
    public static func exists(_ path: String) -> Bool {
        FileIO.live.status(of: path, followingLinks: false) != nil
    }

    /// Whether something is at `path` once symbolic links are followed (a dangling link: no).
    public static func existsFollowingLinks(_ path: String) -> Bool {
        FileIO.live.status(of: path, followingLinks: true) != nil
    }

    /// Whether `path` names a folder, following symbolic links.
    public static func isDirectory(_ path: String) -> Bool {
        FileIO.live.status(of: path, followingLinks: true)?.isDirectory == true
    }

    /// Whether `path` names something other than a folder that this process may read,
    /// following symbolic links.
    public static func isReadableFile(_ path: String) -> Bool {
        guard let status = FileIO.live.status(of: path, followingLinks: true), !status.isDirectory else { return false }
        return FileIO.live.isReadable(path)
    }

    /// The folder holding `path`, from the string alone: the part before the last "/"
    /// ("/" for a name at the root, "." for a bare name).
    ///
    /// ```swift
    /// FileChecks.folder(of: "/home/me/vault.coffer")   // "/home/me"
    /// FileChecks.folder(of: "vault.coffer")            // "."
    /// ```
    public static func folder(of path: String) -> String {
        PathName.folder(of: path)
    }

    /// Removes the file at `path` (a symbolic link itself, never its target); false when it
    /// could not, or nothing was there. For undoing a file this app created, such as a key
    /// file generated for a vault whose creation then failed.
    @discardableResult
    public static func remove(_ path: String) -> Bool {
        FileIO.live.removeFile(path)
    }
}

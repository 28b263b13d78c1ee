/// Paths taken apart and put together as strings, without asking the file system: the one
/// place the store (and, through ``FileChecks/folder(of:)``, the CLI) splits a path into
/// its folder and name.
package enum PathName {
    /// The folder holding `path`: the part before the last "/" ("/" for a name at the root,
    /// "." for a bare name), and the part after it (empty when `path` ends in "/").
    ///
    /// ```swift
    /// PathName.split("/home/me/vault.coffer")   // ("/home/me", "vault.coffer")
    /// PathName.split("vault.coffer")            // (".", "vault.coffer")
    /// ```
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let head = path[..<slash]
        return (head.isEmpty ? "/" : String(head), String(path[path.index(after: slash)...]))
    }

    /// The folder holding `path` (see ``split(_:)``).
    package static func folder(of path: String) -> String { split(path).folder }

    /// The last component of `path` (see ``split(_:)``).
    package static func name(of path: String) -> String { split(path).name }

    /// The folder above the folder `path`: like ``folder(of:)`` once trailing slashes are
    /// dropped, so that "a/b/" has the parent "a".
    package static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return folder(of: String(trimmed))
    }

    /// `name` inside `folder`, with one "/" between them however many `folder` ends with.
    package static func joined(_ folder: String, _ name: String) -> String {
        var folder = Substring(folder)
        while folder.count > 1 && folder.hasSuffix("/") { folder = folder.dropLast() }
        return folder == "/" ? "/" + name : folder + "/" + name
    }
}

import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small file checks made before asking for a password, so that a command that will
/// fail anyway fails first.
enum FileChecks {
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// A readable file (not a directory), following symbolic links.
    static func isReadableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFDIR && access(path, R_OK) == 0
    }

    /// Something exists at `path` once symbolic links are followed (a dangling link: no).
    static func existsFollowingLinks(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// The folder holding `path`: the part before the last "/", "." if none.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = path[..<slash]
        return head.isEmpty ? "/" : String(head)
    }

    static func remove(_ path: String) {
        unlink(path)
    }
}

enum KeyFileSupport {
    /// Reads the key file at `path`, or generates one there (64 random bytes, mode 0600)
    /// when nothing exists at `path`, saying so on stderr.
    static func loadOrGenerate(_ path: String) throws -> (KeyFile, generated: Bool) {
        if FileChecks.exists(path) {
            return (try mappingErrors(vault: nil) { try KeyFile(contentsOf: path) }, false)
        }
        do {
            let file = try KeyFile.generate(at: path)
            Output.error("generated key file \(path); keep a copy somewhere safe: without it the slot cannot be opened")
            return (file, true)
        } catch CofferError.fileNotFound {
            throw CLIFailure(.cannotCreate, "cannot create key file \(path): its folder is missing")
        } catch {
            throw CLIFailure(error, vault: nil, access: .creating)
        }
    }
}

import Coffer

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

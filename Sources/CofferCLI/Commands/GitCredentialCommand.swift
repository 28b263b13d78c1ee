import ArgumentParser
import Coffer
import Foundation

/// `coffer git-credential VAULT get|store|erase`: a git credential helper.
struct GitCredentialCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git-credential",
        abstract: "Answer git's credential requests from the vault (a git credential helper).",
        discussion: """
            git runs it with get, store or erase and a request on standard input \
            (gitcredentials(7)). get answers with the username and password of the internet \
            password for the request's protocol, host (and port) and, when given, username, \
            with the rules of --server URLs: the same host, scheme and port; a path (sent with \
            credential.useHttpPath) picks the items of that path, else those without one. No \
            match, or several accounts and no username: nothing is answered, so git asks you.

            store saves what git used only with --allow-store: a new internet password when \
            none matches; an item that holds a different password is kept as it is (exit 2; \
            change it with `coffer edit`). erase removes nothing unless --allow-erase is \
            given, and then only the item whose password is the one git rejected.

            The vault is opened with its cached unlock (`coffer unlock`), else --key-file of \
            a slot that opens it alone, else with the master password typed on the \
            terminal (/dev/tty, never git's pipe). With no terminal, or GIT_TERMINAL_PROMPT=0, \
            it fails at once (exit 64) and git asks for the credentials itself. No secret is \
            read from the arguments or the environment; the password goes to git on its pipe.

            SETUP:
              git config --global credential.helper '!coffer git-credential ~/vault.coffer'
              (or, with `make install`'s git-credential-coffer: credential.helper 'coffer ~/vault.coffer')

            EXAMPLES:
              printf 'protocol=https\\nhost=github.com\\n\\n' | coffer git-credential vault.coffer get
            """)

    enum Operation: String, ExpressibleByArgument, CaseIterable {
        case get, store, erase
    }

    @Argument(help: "The vault file.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Argument(help: ArgumentHelp("What git asks: get, store or erase.", valueName: "operation"))
    var operation: Operation

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("The key file of a slot that opens the vault alone, used when it is not unlocked.", valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("identity"),
            help: ArgumentHelp("An age identity file or OpenSSH Ed25519 private key of a recipient slot (`coffer share`), used when the vault is not unlocked.",
                               valueName: "path"),
            completion: .file())
    var identity: String?

    @Flag(name: .customLong("allow-store"), help: "On store, add a new internet password for credentials git used.")
    var allowStore = false

    @Flag(name: .customLong("allow-erase"), help: "On erase, remove the item whose password git rejected.")
    var allowErase = false

    @OptionGroup var kdfLimit: KDFLimitArguments

    func validate() throws {
        guard !vault.isEmpty, keyFile?.isEmpty != true else { throw ValidationError("the vault and key file must be paths") }
    }

    func run() throws {
        // The request first (a malformed one is refused before the vault is touched); store
        // and erase that are not allowed read it and do nothing, as git expects of a helper.
        let message = try SecretReader.readAll(limit: GitCredential.maximumSize)
        let request = try mappingErrors(vault: nil) { try GitCredential(parsing: message) }
        guard let server = try mappingErrors(vault: nil, { try request.server() }) else {
            throw CLIFailure(.usage, "the credential request names no host")
        }
        switch operation {
        case .get: try answer(request, server)
        case .store: if allowStore { try store(request, server) }
        case .erase: try erase(request, server)
        }
    }

    /// The cached unlock, else the key file alone; else, on the controlling terminal (never
    /// git's pipe), the master password, unless git's GIT_TERMINAL_PROMPT=0 forbids prompts.
    /// With no terminal, the failure is at once, so git asks instead.
    private func open() throws -> Vault {
        var options = VaultOptions()
        options.kdfLimit = kdfLimit.limit
        do {
            return try CachedUnlocking.openUnattended(vault, name: vault, keyFile: keyFile, identity: identity, options: options)
        } catch let unattended as CLIFailure where unattended.status == .usage {
            let failure = CLIFailure(.usage, "\(unattended.message), and there is no terminal to ask for the master password on; git asks instead")
            guard ProcessInfo.processInfo.environment["GIT_TERMINAL_PROMPT"] != "0" else { throw failure }
            // No terminal: the failure is thrown from the closure, through open.
            return try mappingErrors(vault: vault) { () throws -> Vault in
                let key = try keyFile.map { try KeyFile(contentsOf: $0) }
                return try Vault.open(at: vault, keyFile: key, options: options) {
                    guard let password = try SecretReader.masterPasswordOnTerminal(for: vault) else { throw failure }
                    return password
                }.vault
            }
        }
    }

    private func answer(_ request: GitCredential, _ server: ServerAddress) throws {
        let vault = try open()
        let reply = try mappingErrors(vault: self.vault) { () throws -> SecureBytes? in
            let found = try vault.credentials(for: server, account: request.username)
            guard let item = found.first else { return nil }
            guard found.count == 1 || request.username != nil else {
                Output.error("coffer: \(found.count) items match \(server.host) in \(self.vault): "
                             + found.map(\.candidateDescription).joined(separator: "; ")
                             + "; git asks which account (or set credential.username)")
                return nil
            }
            guard let password = try vault.secrets(for: item.id).password else { return nil }
            return try GitCredential(username: item.account, password: password).encoded()
        }
        guard let reply else { return }
        try reply.withUnsafeBytes { try Output.bytes($0) }
    }

    /// The one item of this account at exactly this server and path (nil path: none).
    private func sameLogin(_ vault: Vault, _ server: ServerAddress, _ username: String) throws -> [Item] {
        try vault.credentials(for: server, account: username).filter { $0.attributes.path == server.path }
    }

    private func store(_ request: GitCredential, _ server: ServerAddress) throws {
        guard let username = request.username, let password = request.password else {
            throw CLIFailure(.usage, "git asked to store a credential without a username and password")
        }
        let vault = try open()
        try mappingErrors(vault: self.vault) {
            let found = try sameLogin(vault, server, username)
            guard let item = found.first else {
                let login = ItemAttributes.internetPassword(server: server.host, account: username, protocol: server.scheme,
                                                            port: server.port, path: server.path)
                _ = try vault.add(login, secrets: ItemSecrets(password: password))
                Output.error("coffer: saved the password of \(username) at \(server.host) in \(self.vault)")
                return
            }
            guard try vault.secrets(for: item.id).password != password else { return }
            throw CLIFailure(.duplicate, "\(self.vault) holds another password for \(item.candidateDescription); "
                             + "it was kept (change it with `coffer edit`)")
        }
    }

    private func erase(_ request: GitCredential, _ server: ServerAddress) throws {
        guard allowErase else {
            Output.error("coffer: git rejected a password for \(server.host); \(vault) keeps it (--allow-erase removes it)")
            return
        }
        guard let username = request.username, let password = request.password else { return }
        let vault = try open()
        try mappingErrors(vault: self.vault) {
            for item in try sameLogin(vault, server, username) where try vault.secrets(for: item.id).password == password {
                try vault.delete(item.id)
                Output.error("coffer: removed \(item.candidateDescription) from \(self.vault): git rejected its password")
            }
        }
    }
}

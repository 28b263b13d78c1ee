import ArgumentParser
import Coffer

/// `coffer add-ssh-key VAULT KEYFILE [--label L]`
struct AddSSHKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-ssh-key",
        abstract: "Keep an SSH private key (Ed25519, OpenSSH format) in the vault, for `coffer ssh-agent`.",
        discussion: """
            Reads KEYFILE (such as ~/.ssh/id_ed25519) and adds a secure note titled --label \
            (else the key's comment), tagged ssh-key, whose field ssh-public-key holds the \
            public key and whose secret field ssh-private-key holds the key file; `coffer get \
            VAULT NAME --field ssh-private-key` gives the file back. The key file itself is left \
            as it is: delete it once you use the agent, if you wish.

            Only unencrypted Ed25519 keys are read. RSA, ECDSA, DSA and security-key (sk-) \
            keys are refused by name, a passphrase-protected key with how to import it \
            (exit 64); a key the vault already holds is exit 2.

            EXAMPLES:
              coffer add-ssh-key vault.coffer ~/.ssh/id_ed25519 --label laptop
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: ArgumentHelp("The OpenSSH private key file.", valueName: "keyfile"), completion: .file())
    var keyFile: String

    @Option(help: "The item's title (default: the key's comment).")
    var label: String?

    func run() throws {
        // The key is read and checked before the vault is opened: a refused key costs no password.
        let (file, key) = try mappingErrors(vault: nil) { () throws -> (SecureBytes, SSHPrivateKey) in
            let file = try SecureBytes.readSecretFile(at: keyFile, maximumSize: SSHPrivateKey.maximumFileSize)
            return (file, try SSHPrivateKey(openSSHFile: file))
        }
        let unlocked = try vault.unlock(saving: rollback)
        let item = try vault.run { try unlocked.vault.addSSHKey(key, file: file, label: label) }
        Output.error("added SSH key \(key.publicKey.fingerprint) as \(item.displayName) [\(item.shortID)]")
    }
}

/// `coffer ssh-agent VAULT [--socket PATH]`
struct SSHAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh-agent",
        abstract: "Serve the vault's SSH keys to ssh, git and ssh-keygen over the SSH agent protocol while it is unlocked.",
        discussion: """
            Listens on a Unix socket (--socket PATH, else $XDG_RUNTIME_DIR/coffer/agent.sock \
            or /tmp/coffer-UID/agent.sock), mode 0600 in a folder of mode 0700, prints \
            `SSH_AUTH_SOCK=PATH; export SSH_AUTH_SOCK;` for the shell to eval, and serves in \
            the foreground until SIGINT, SIGTERM or SIGHUP, then removes the socket.

            At each request the vault is opened with its cached unlock (`coffer unlock`): \
            while it lasts, `ssh-add -l` lists the keys added with `coffer add-ssh-key` and \
            the agent signs with them (Ed25519, through libsodium; the key is read from the \
            vault for each signature and never leaves guarded memory). Once the vault is \
            locked (`coffer lock`) or its unlock expires, no key is listed and nothing is \
            signed. Refused (SSH_AGENT_FAILURE, with a line on stderr): adding or removing \
            keys (`ssh-add KEY`, `ssh-add -d/-D`: use `coffer add-ssh-key` and `coffer \
            remove`), locking the agent (`ssh-add -x`: use `coffer lock`), smartcards, \
            extensions, unknown requests, a key not in the vault, and malformed messages; a \
            message longer than 256 KiB is refused from its length and its connection closed.

            EXAMPLES:
              eval "$(coffer ssh-agent vault.coffer &)"        (or run it in another terminal)
              coffer unlock vault.coffer --for 8h && ssh-add -l && git push
            """)

    @Argument(help: "The vault file.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Option(help: ArgumentHelp("The socket's path; its folder must be yours and mode 0700 (created so when missing).", valueName: "path"),
            completion: .file())
    var socket: String?

    @OptionGroup var kdfLimit: KDFLimitArguments

    func validate() throws {
        guard !vault.isEmpty, socket?.isEmpty != true else { throw ValidationError("the vault and socket must be paths") }
    }

    func run() throws {
        let path = vault
        // The file must exist and be a vault; whether it is unlocked is checked at each request.
        _ = try mappingErrors(vault: path) { try Vault.info(at: path) }
        var options = VaultOptions()
        options.kdfLimit = kdfLimit.limit
        let unlockOptions = options
        ProcessIO.holdTerminationSignals()
        let socketPath = socket ?? SSHAgentSocket.defaultPath(name: "agent")
        let listener: SSHAgentSocket
        do {
            listener = try SSHAgentSocket(path: socketPath)
        } catch CofferError.fileExists {
            throw CLIFailure(.cannotCreate, "\(socketPath) is taken: another agent serves it, or it is not a socket; choose another with --socket")
        } catch {
            throw CLIFailure(error, vault: nil)
        }
        let agent = SSHAgent(report: { Output.error("coffer ssh-agent: \($0)") }) {
            try CachedUnlocking.open(path, options: unlockOptions)
        }
        Output.line("SSH_AUTH_SOCK=\(Self.shellQuoted(listener.path)); export SSH_AUTH_SOCK;")
        if try CachedUnlocking.open(path, options: unlockOptions) == nil {
            Output.error("coffer ssh-agent: \(path) is locked: no key is listed until `coffer unlock \(path)`")
        }
        Output.error("coffer ssh-agent: serving the SSH keys of \(path) on \(listener.path); stop with Ctrl-C")
        // Serving for hours: what was freed goes back to the system (CLI.run kept it).
        ProcessMemory.returnFreedMemory()
        listener.serve(agent) { ProcessIO.terminationRequested }
        Output.error("coffer ssh-agent: stopped; removed \(listener.path)")
    }

    /// `path` as one shell word: as it is when it holds only safe characters, else in single quotes.
    static func shellQuoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-+:@%".unicodeScalars.contains($0)) }
        return safe ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

import ArgumentParser
import Coffer
import CofferTerminal

/// `coffer run VAULT --env NAME=ITEM[:field] … [--env-file FILE] [--stdin ITEM[:field]] -- command args…`
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command with secrets from the vault in its environment (or on its stdin).",
        discussion: """
            Each --env NAME=ITEM[:field] sets the variable NAME to a secret: the item named \
            as `coffer get` names it (id, label, service, server or note title), and its \
            password, a note's text, or with :field a field as `get --field` reads it. The \
            text after the last `:` is the field unless it is all digits (a port) or holds \
            a `/` (a URL). --env-file FILE takes NAME=ITEM[:field] lines (# comments and \
            blank lines skipped): the file holds references, never secrets. --stdin \
            ITEM[:field] gives the command that secret, plus a newline, as its whole \
            standard input (at most 16 KiB), for tools that read a secret from stdin.

            The vault is opened first (the cached unlock of `coffer unlock`, else the \
            password as for every command; a key file alone asks for none), every \
            reference is resolved, then coffer becomes the command: it exits with the \
            command's status (126 or 127 when the command cannot be run or is not found). \
            No secret is read from the command line. The command inherits coffer's \
            core-file limit of 0, so it leaves no core dump holding the secrets.

            EXPOSURE: an environment variable is visible to every process of the same user \
            (/proc/PID/environ) and to the command's children, which inherit it; prefer \
            --stdin for a tool that takes a secret on stdin.

            EXAMPLES:
              coffer run vault.coffer --env GITHUB_TOKEN=github:token -- gh repo list
              coffer run vault.coffer --env-file .env.coffer -- ./deploy.sh
              coffer run vault.coffer --stdin registry -- docker login -u me --password-stdin
            """)

    @OptionGroup var vault: VaultArguments

    @Option(name: .customLong("env"), help: ArgumentHelp("Set NAME to a secret: NAME=ITEM or NAME=ITEM:field (repeatable).", valueName: "NAME=ITEM[:field]"))
    var variables: [String] = []

    @Option(name: .customLong("env-file"), help: ArgumentHelp("A file of NAME=ITEM[:field] lines.", valueName: "file"),
            completion: .file())
    var envFile: String?

    @Option(name: .customLong("stdin"), help: ArgumentHelp("Give the command this secret as its standard input.", valueName: "ITEM[:field]"))
    var stdinItem: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard let program = command.first, !program.isEmpty else {
            throw ValidationError("name the command to run after --, e.g. coffer run vault.coffer --env TOKEN=api -- ./script")
        }
        guard !variables.isEmpty || envFile != nil || stdinItem != nil else {
            throw ValidationError("give at least one --env, --env-file or --stdin")
        }
    }

    func run() throws {
        // Every reference is checked before the vault is opened: a typo costs no password.
        var references = try variables.map { try SecretReference(assignment: $0) }
        if let envFile {
            let text = try mappingErrors(vault: nil) {
                try SecureBytes.readSecretFile(at: envFile, maximumSize: SecretReference.maximumFileSize)
            }
            guard let decoded = text.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
                throw CLIFailure(.usage, "\(envFile) is not UTF-8 text")
            }
            references += try SecretReference.parseFile(decoded, name: envFile)
        }
        let stdinReference = try stdinItem.map { try SecretReference(item: $0) }
        let unlocked = try vault.unlock()
        let resolved = try vault.run { () throws -> (variables: [(name: String, value: SecureBytes)], stdin: SecureBytes?) in
            func secret(_ reference: SecretReference) throws -> SecureBytes {
                let name = ItemName(reference.item)
                let found = try unlocked.vault.items(named: name)
                guard let first = found.first else { throw CLIFailure(.noMatch, "no item matched \(name) in \(vault.vault)") }
                let item = found.count == 1 ? first : try unlocked.vault.item(named: name)
                return try ItemSecretChoice.secret(of: item, try unlocked.vault.secrets(for: item.id), field: reference.field)
            }
            let variables = try references.map { (name: $0.variable ?? "", value: try secret($0)) }
            return (variables, try stdinReference.map(secret))
        }
        // The master password came from a pipe and more followed it: those bytes are read
        // already, and the command, which gets standard input, would never see them.
        if stdinReference == nil && SecretInput.hasReadAhead() {
            throw CLIFailure(.usage, "standard input holds more than the master password line, and the command would not see it; "
                             + "unlock the vault first (`coffer unlock`) or give the command's input another way")
        }
        try ProgramExec.replaceProcess(with: command[0], Array(command.dropFirst()), variables: resolved.variables,
                                       stdinSecret: resolved.stdin)
    }
}

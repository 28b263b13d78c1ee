import ArgumentParser
import Coffer

/// `coffer init VAULT`
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new vault.",
        discussion: """
            Asks for the master password twice on a terminal (a mismatch asks again, up to 3 \
            tries); reads it from the first line of stdin otherwise. Its strength estimate is \
            shown on stderr; below a good score (3 of 4) it is warned about, and on a terminal \
            you are asked whether to keep it or type another. With --key-file, the vault's slot needs the password and the key \
            file together (with --no-password, the key file alone); a key file that does not \
            exist yet is generated (64 random bytes, mode 0600).

            The key-derivation cost is set once, here: Argon2id with --kdf-memory MiB (1 to \
            4096), --kdf-iterations (1 to 64) and --kdf-parallelism lanes (1 to 64). Above \
            1024 MiB or 10 iterations, which the other commands refuse to open without \
            --max-kdf-memory/--max-kdf-passes, pass those flags here too.

            Exit codes: 73 if the file exists or its folder is missing; 64 for bad flags.

            EXAMPLES:
              coffer init vault.coffer
              coffer init vault.coffer --kdf-memory 512 --kdf-iterations 4
              coffer init vault.coffer --key-file /media/usb/vault.key
              coffer init vault.coffer --key-file ~/.vault.key --no-password
            """)

    @Argument(help: "The vault file to create.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Option(name: .customLong("kdf-memory"), help: ArgumentHelp("Argon2id memory in MiB, 1 to 4096.", valueName: "mib"))
    var kdfMemory: UInt32 = 256

    @Option(name: .customLong("kdf-iterations"), help: ArgumentHelp("Argon2id iterations, 1 to 64.", valueName: "n"))
    var kdfIterations: UInt32 = 3

    @Option(name: .customLong("kdf-parallelism"), help: ArgumentHelp("Argon2id lanes, 1 to 64.", valueName: "n"))
    var kdfParallelism: UInt32 = 1

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("A key file for the first slot; generated if it does not exist.", valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Flag(name: .customLong("no-password"), help: "With --key-file: the key file alone opens the vault.")
    var noPassword = false

    @OptionGroup var kdfLimit: KDFLimitArguments

    func validate() throws {
        guard (1...4096).contains(kdfMemory) else { throw ValidationError("--kdf-memory must be 1 to 4096 MiB") }
        guard (1...64).contains(kdfIterations) else { throw ValidationError("--kdf-iterations must be 1 to 64") }
        guard (1...64).contains(kdfParallelism) else { throw ValidationError("--kdf-parallelism must be 1 to 64") }
        if noPassword && keyFile == nil { throw ValidationError("--no-password needs --key-file") }
        guard !vault.isEmpty else { throw ValidationError("the vault path is empty") }
    }

    func run() throws {
        var options = VaultOptions()
        options.kdf = Argon2idParameters(memoryKiB: kdfMemory * 1024, iterations: kdfIterations, lanes: kdfParallelism)
        options.kdfLimit = kdfLimit.limit
        try mappingErrors(vault: vault, access: .creating) {
            try options.kdf.validate()
            // What init creates, the other commands open without flags.
            try options.kdfLimit.check(options.kdf)
            // Refuse before asking for a password.
            if FileChecks.exists(vault) { throw CofferError.fileExists(vault) }
            let folder = FileChecks.folder(of: vault)
            if !FileChecks.isDirectory(folder) { throw CofferError.fileNotFound(folder) }
        }
        let password: SecureBytes? = noPassword ? nil
            : try SecretReader.newMasterPassword(for: vault, what: "the master password")
        var generatedKeyFile: String?
        let credential: VaultCredential
        switch (password, keyFile) {
        case (let password?, nil):
            credential = .password(password)
        case (let password, let path?):
            let (file, generated) = try KeyFileSupport.loadOrGenerate(path)
            if generated { generatedKeyFile = path }
            credential = password.map { .passwordAndKeyFile($0, file) } ?? .keyFile(file)
        case (nil, nil):
            throw CLIFailure(.usage, "--no-password needs --key-file")
        }
        do {
            _ = try mappingErrors(vault: vault, access: .creating) {
                try withProgressHint("deriving the key…") {
                    try Vault.create(at: vault, credential: credential, options: options)
                }
            }
        } catch {
            if let generatedKeyFile { FileChecks.remove(generatedKeyFile) }
            throw error
        }
        Output.error("created \(vault) with a \(credential.slotKind) slot (Argon2id: \(kdfMemory) MiB, "
                     + "\(Output.plural(Int(kdfIterations), "iteration")), \(Output.plural(Int(kdfParallelism), "lane")))")
    }
}

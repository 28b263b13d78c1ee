import ArgumentParser
import Coffer

/// `coffer info VAULT [--json]`
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show a vault's format version, key slots, KDF parameters and entry count (no password needed).",
        discussion: """
            Reads the whole file and checks everything that needs no password (SPEC.md §10, \
            steps 1-9): a truncated or malformed vault fails with \
            exit status 65. Nothing is decrypted; MACs and record digests are checked when the \
            vault is unlocked (see `coffer check`). The entry count is the manifest's; \
            it includes the records deleted items leave for merging with other copies \
            (SPEC.md §17.5), so it can exceed the number `coffer list` shows.

            JSON shape:
              {"path": str, "formatVersion": int, "vaultID": str, "generation": int,
               "entryCount": int, "fileSize": int,
               "opensWith": ["password"|"password+key-file"|"key-file"|"raw-key"|"age-recipient"|"ssh-recipient"],
               "keyFileRequired": bool,
               "slots": [{"kind": "password"|"password+key-file"|"key-file"|"raw-key"|"age-recipient"|"ssh-recipient",
                          "kdf": {"algorithm": "argon2id", "memoryKiB": int, "iterations": int,
                                  "parallelism": int} | null}]}

            EXAMPLES:
              coffer info vault.coffer
              coffer info vault.coffer --json
            """)

    @Argument(help: "The vault file.", completion: .file(extensions: ["coffer"]))
    var vault: String

    @Option(name: .customLong("key-file"),
            help: ArgumentHelp("Accepted like every VAULT command's; info reads no secret, so it is not used.", valueName: "path"),
            completion: .file())
    var keyFile: String?

    @Option(name: .customLong("identity"),
            help: ArgumentHelp("Accepted like every VAULT command's; info reads no secret, so it is not used.", valueName: "path"),
            completion: .file())
    var identity: String?

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        let info = try mappingErrors(vault: vault) { try Vault.info(at: vault, scope: .wholeFile) }
        if json {
            try JSONValue.object([
                ("path", .string(vault)),
                ("formatVersion", .int(Int64(info.formatVersion))),
                ("vaultID", .string(info.vaultID)),
                ("generation", .int(Int64(clamping: info.generation))),
                ("entryCount", .int(Int64(info.entryCount))),
                ("fileSize", .int(Int64(info.fileSize))),
                ("opensWith", .array(info.opensWith.map { .string($0.description) })),
                ("keyFileRequired", .bool(info.keyFileRequired)),
                ("slots", .array(info.slots.map { slot in
                    .object([
                        ("kind", .string(slot.kind.description)),
                        ("kdf", slot.kdf.map { kdf in
                            .object([
                                ("algorithm", .string("argon2id")),
                                ("memoryKiB", .int(Int64(kdf.memoryKiB))),
                                ("iterations", .int(Int64(kdf.iterations))),
                                ("parallelism", .int(Int64(kdf.lanes))),
                            ])
                        } ?? .null),
                    ])
                })),
            ]).print()
            return
        }
        Output.line("vault:          \(vault)")
        Output.line("format version: \(info.formatVersion)")
        Output.line("vault id:       \(info.vaultID)")
        Output.line("generation:     \(info.generation)")
        Output.line("entries:        \(info.entryCount)")
        Output.line("file size:      \(info.fileSize) bytes")
        Output.line("opens with:     \(Self.opensWith(info))")
        Output.line("key slots:      \(info.slots.count)")
        for (index, slot) in info.slots.enumerated() {
            var line = "  \(index + 1). \(slot.kind)"
            if let kdf = slot.kdf {
                line += " (Argon2id: \(Self.memory(kdf.memoryKiB)), \(Output.plural(Int(kdf.iterations), "iteration")), \(Output.plural(Int(kdf.lanes), "lane")))"
            }
            Output.line(line)
        }
    }

    /// The credentials that open the vault, in words: "password + key file (required)"
    /// when the password opens it only with a key file.
    private static func opensWith(_ info: VaultInfo) -> String {
        let words = info.opensWith.map { kind in
            switch kind {
            case .password: return "password"
            case .passwordAndKeyFile: return info.keyFileRequired ? "password + key file (required)" : "password + key file"
            case .keyFile: return "key file alone"
            case .rawKey: return "raw key"
            case .ageRecipient: return "age identity (shared)"
            case .sshRecipient: return "SSH key (shared)"
            case .unknown: return "\(kind)"
            }
        }
        return words.isEmpty ? "nothing this version can use" : words.joined(separator: "; ")
    }

    private static func memory(_ kib: UInt32) -> String {
        kib % 1024 == 0 ? "\(kib / 1024) MiB" : "\(kib) KiB"
    }
}

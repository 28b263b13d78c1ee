import ArgumentParser
import Coffer

/// `coffer share VAULT RECIPIENT [--name LABEL]`: a recipient slot for an age or SSH key.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Share the vault with an age recipient or SSH Ed25519 key: their identity opens it, no password.",
        discussion: """
            RECIPIENT is an age recipient (age1…, as `age-keygen -y` prints it), an SSH \
            public key line (ssh-ed25519 AAAA…), or the path of a .pub file. The vault key \
            is wrapped for that public key as age wraps a file key; its holder opens the \
            vault with --identity and their age identity file or OpenSSH private key, and \
            can read and edit everything in it. RSA, ECDSA and other SSH key types are \
            refused (exit 64).

            You must open the vault with a credential it has now (a cached unlock is not \
            used). The label (--name) and the public key are stored in the vault file's \
            header, readable without a key. `coffer unshare` takes a share back.

            EXAMPLES:
              coffer share team.coffer ~/keys/bob.pub --name bob
              coffer share team.coffer age1mrmfnwhtlprn4jquex0ukmwcm7y2nxlphuzgsgv8ew2k9mewy3rs8u7su5 --name carol
              coffer get team.coffer wifi --identity ~/.ssh/id_ed25519      # as Bob
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: ArgumentHelp("age1…, \"ssh-ed25519 AAAA…\", or a .pub file.", valueName: "recipient"), completion: .file())
    var recipient: String

    @Option(name: .customLong("name"), help: ArgumentHelp("A label for the share, for `shares` and `unshare` (stored unencrypted).", valueName: "label"))
    var name = ""

    func run() throws {
        let recipient = try Recipients.parse(self.recipient)
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let share = try vault.run { try unlocked.vault.addRecipient(recipient, label: name) }
        Output.error("shared \(Output.visible(vault.vault)) with \(share.recipient.kind) key \(share.recipient.fingerprint)"
                     + (name.isEmpty ? "" : " (\(Output.visible(name)))") + ": its identity opens it with --identity")
    }
}

/// `coffer shares VAULT [--json]`: who the vault is shared with.
struct SharesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shares",
        abstract: "List the public keys the vault is shared with: label, kind, fingerprint, when.",
        discussion: """
            One line per recipient slot: its label, its kind (age or ssh-ed25519), its \
            fingerprint (the age1… recipient itself, or SHA256:… as `ssh-keygen -l` prints \
            it) and when it was shared.

            JSON (--json): [{"label": str, "kind": "age"|"ssh-ed25519", "fingerprint": str, \
            "recipient": str, "added": ISO 8601 str}]

            EXAMPLES:
              coffer shares team.coffer
              coffer shares team.coffer --json
            """)

    @OptionGroup var vault: VaultArguments

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        let unlocked = try vault.unlock()
        let shares = unlocked.vault.recipients
        if json {
            try JSONValue.array(shares.map { share in
                .object([
                    ("label", .string(share.label)),
                    ("kind", .string(share.recipient.kind.rawValue)),
                    ("fingerprint", .string(share.recipient.fingerprint)),
                    ("recipient", .string(share.recipient.description)),
                    ("added", .string(share.added.ISO8601Format())),
                ])
            }).print()
            return
        }
        guard !shares.isEmpty else {
            Output.error("\(Output.visible(vault.vault)) is not shared with any public key")
            return
        }
        for share in shares {
            let label = share.label.isEmpty ? "-" : Output.visible(share.label)
            Output.line("\(label)  \(share.recipient.kind)  \(share.recipient.fingerprint)  added \(share.added.ISO8601Format())")
        }
    }
}

/// `coffer unshare VAULT RECIPIENT|LABEL`: removes recipient slots and rotates the key.
struct UnshareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unshare",
        abstract: "Take a share back: remove the recipient's slot and rotate the vault key.",
        discussion: """
            Names the share by its label, its fingerprint (as `coffer shares` prints it), or \
            its recipient (age1…, ssh-ed25519 AAAA…, a .pub file). Its slot is removed and, \
            by default, the vault key rotated in the same save (as `coffer rekey`), so the \
            removed key reads nothing saved afterwards, not even in a copy of the vault its \
            holder kept; --no-rekey skips the rotation. A name that matches no share is exit 64.

            EXAMPLES:
              coffer unshare team.coffer bob
              coffer unshare team.coffer ~/keys/bob.pub
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Argument(help: ArgumentHelp("A share's label, fingerprint or recipient.", valueName: "recipient-or-label"), completion: .file())
    var recipient: String

    @OptionGroup var rekey: RekeyArguments

    func run() throws {
        let unlocked = try vault.unlock(saving: rollback, cache: .credentialsOnly)
        let shares = unlocked.vault.recipients
        let change = try vault.run { () throws -> KeySlotChange in
            if shares.contains(where: { !$0.label.isEmpty && $0.label == recipient }) {
                return try unlocked.vault.removeRecipient(labeled: recipient, rotatingKey: rekey.rotatingKey)
            }
            if let share = shares.first(where: { $0.recipient.fingerprint == recipient }) {
                return try unlocked.vault.removeRecipient(share.recipient, rotatingKey: rekey.rotatingKey)
            }
            let named: VaultRecipient
            do {
                named = try Recipients.parse(recipient)
            } catch {
                throw CLIFailure(.usage, "\(Output.visible(vault.vault)) has no share labelled \(Output.visible(recipient)) "
                                 + "(see `coffer shares`), and it is no recipient")
            }
            return try unlocked.vault.removeRecipient(named, rotatingKey: rekey.rotatingKey)
        }
        CachedUnlocking.forget(vault.vault)
        Output.error("unshared \(Output.visible(vault.vault)): removed \(Output.plural(change.removed.count, "recipient slot"))")
        RekeyArguments.report(change.rotation, vault: vault.vault)
    }
}

/// The RECIPIENT argument of `share` and `unshare`.
enum Recipients {
    /// `age1…` or an SSH key line as given; anything else is the path of a .pub file,
    /// whose first line that is not blank or a `#` comment is read.
    static func parse(_ argument: String) throws -> VaultRecipient {
        try mappingErrors(vault: nil) { () throws -> VaultRecipient in
            let looksLikeKey = argument.hasPrefix("age1") || argument.hasPrefix("AGE1") || argument.contains(" ")
            guard !looksLikeKey, FileChecks.exists(argument) else { return try VaultRecipient(argument) }
            // Public, but read through the same guarded reader: a FIFO is refused, the size bounded.
            let contents = try SecureBytes.readSecretFile(at: argument, maximumSize: VaultIdentity.maximumFileSize)
            guard let text = contents.unsafeStringCopy() else { throw CofferError.invalidKey("\(argument) is not UTF-8 text") }
            let line = text.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) && !$0.hasPrefix("#") }
            return try VaultRecipient(String(line ?? ""))
        }
    }
}

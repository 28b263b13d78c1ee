import ArgumentParser
import Coffer

/// The root command: `coffer`.
struct CofferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer",
        abstract: "Keep secrets in one encrypted vault file.",
        discussion: """
            Every command that takes VAULT also takes --key-file PATH, as an extra or the only \
            factor, according to the key slots the vault has (see `coffer info VAULT`).

            SECRETS IN AND OUT:
              On a terminal, the master password is asked for without echo; `init` and `passwd` \
            ask twice. When stdin is not a terminal, its first line is the master password; for \
            `add` (and `edit --password-stdin`) the next line is the item's password, for `passwd` \
            the new password, for `note` the rest of stdin is the note. No password line is read \
            when a key file alone opens the vault. After `coffer unlock`, commands that read a \
            secret from a pipe (`add`, `note`, `edit` with --password-stdin, --secret-field or \
            --notes, `totp --set`) still read the master password line first, so a script's \
            lines never shift; other commands read none.
              Secrets go to stdout only from `get`, `history --show-passwords`, `generate`, \
            `passphrase`, `totp`, `git-credential get` (to git) and `export` (which warns that its \
            output is plaintext); `run` puts the secrets it is asked for into its command's \
            environment or stdin, and `ssh-agent` hands out signatures only. Prompts and \
            messages go to stderr, one plain line each, and never carry a secret.

            SEVERAL DEVICES:
              `coffer sync` merges the conflict copies Syncthing, Dropbox or Nextcloud leave \
            beside the vault, `coffer merge` merges any other copy, and `coffer merge-driver` \
            does it for git. Conflicting edits are kept: `coffer list --conflicts`, `coffer \
            history`, `coffer resolve`. A vault file older than one this device has seen (a \
            restored backup) gets a warning on every command, and saves exit 76 unless given \
            --accept-rollback.

            \(ExitStatus.helpTable)

            UNLOCK ONCE:
              `coffer unlock VAULT [--for 1h]` asks for the password once and keeps the vault \
            unlocked in this login session's kernel keyring; other commands then ask for none \
            (`--no-cache` asks anyway). `coffer lock [VAULT]` ends it, `coffer status` lists it.

            SHELL COMPLETION:
              coffer --generate-completion-script bash > /etc/bash_completion.d/coffer
              coffer --generate-completion-script zsh   (or fish)

            EXAMPLES:
              coffer init vault.coffer
              coffer add vault.coffer --service github.com --account octocat --generate
              coffer get vault.coffer --service github.com
              printf '%s\\n' "$MASTER" | coffer list vault.coffer --json
              coffer sync ~/Sync/vault.coffer --key-file ~/.config/coffer/vault.key
            """,
        version: CofferRelease.version,
        // `--help` lists the commands by what they work on; the hidden ones (`keyfile`, the
        // spelling kept from before; `clipboard-clear`, the CLI's own helper) sit with their kin.
        groupedSubcommands: [
            CommandGroup(name: "Items", subcommands: [
                AddCommand.self, NoteCommand.self, GetCommand.self, ShowCommand.self, ListCommand.self, SearchCommand.self,
                TagsCommand.self, EditCommand.self, RemoveCommand.self, HistoryCommand.self, TOTPCommand.self,
                AttachCommand.self, AttachmentsCommand.self, DetachCommand.self,
                ClipboardClearCommand.self,
            ]),
            CommandGroup(name: "Vault and keys", subcommands: [
                InitCommand.self, InfoCommand.self, CheckCommand.self, AuditCommand.self, RestoreCommand.self, RepairCommand.self,
                PasswdCommand.self, AddKeyfileCommand.self, RemoveKeyfileCommand.self, KeyfileCommand.self,
                RekeyCommand.self, UpgradeCommand.self,
            ]),
            CommandGroup(name: "Sharing", subcommands: [ShareCommand.self, SharesCommand.self, UnshareCommand.self]),
            CommandGroup(name: "Unlock once", subcommands: [UnlockCommand.self, LockCommand.self, StatusCommand.self]),
            CommandGroup(name: "Devices and sync", subcommands: [
                SyncCommand.self, MergeCommand.self, MergeDriverCommand.self, ResolveCommand.self,
            ]),
            CommandGroup(name: "Import and export", subcommands: [ImportCommand.self, ExportCommand.self]),
            CommandGroup(name: "Developer tools", subcommands: [
                RunCommand.self, GitCredentialCommand.self, AddSSHKeyCommand.self, SSHAgentCommand.self,
            ]),
            CommandGroup(name: "Generators", subcommands: [GenerateCommand.self, PassphraseCommand.self, EstimateCommand.self]),
        ]
    )
}

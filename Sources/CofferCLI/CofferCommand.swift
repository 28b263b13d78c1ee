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
            when a key file alone opens the vault.
              Secrets go to stdout only from `get`, `generate`, `passphrase`, `totp` and `export` \
            (which warns that its output is plaintext); prompts and \
            messages go to stderr, one plain line each, and never carry a secret.

            \(ExitStatus.helpTable)

            SHELL COMPLETION:
              coffer --generate-completion-script bash > /etc/bash_completion.d/coffer
              coffer --generate-completion-script zsh   (or fish)

            EXAMPLES:
              coffer init vault.coffer
              coffer add vault.coffer --service github.com --account octocat --generate
              coffer get vault.coffer --service github.com
              printf '%s\\n' "$MASTER" | coffer list vault.coffer --json
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, InfoCommand.self, AddCommand.self, NoteCommand.self, GetCommand.self,
            ListCommand.self, SearchCommand.self, EditCommand.self, RemoveCommand.self,
            PasswdCommand.self, AddKeyfileCommand.self, RemoveKeyfileCommand.self, CheckCommand.self,
            KeyfileCommand.self,
            GenerateCommand.self, PassphraseCommand.self, EstimateCommand.self,
            ImportCommand.self, ExportCommand.self, TOTPCommand.self,
            SyncCommand.self, MergeCommand.self, MergeDriverCommand.self, HistoryCommand.self, ResolveCommand.self,
            ClipboardClearCommand.self,
        ]
    )
}

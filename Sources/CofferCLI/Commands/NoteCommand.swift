import ArgumentParser
import Coffer

/// `coffer note VAULT --title T`
struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Add a secure note; its text is read from stdin.",
        discussion: """
            On a pipe, the first line of stdin is the master password and the rest is the \
            note. On a terminal, the master password is asked for, then the note is typed \
            and ended with Ctrl-D. One trailing newline is dropped. Notes may share a title; \
            read one back with `coffer get VAULT --title T`.

            EXAMPLES:
              coffer note vault.coffer --title "Wi-Fi" --tag home
              { printf '%s\\n' "$MASTER"; cat recovery-codes.txt; } | coffer note vault.coffer --title "GitHub recovery codes"
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments

    @Option(help: "The note's title.")
    var title: String

    @Option(help: "A tag (repeatable).")
    var tag: [String] = []

    @Flag(help: "Mark the note as a favorite.")
    var favorite = false

    func validate() throws {
        guard !title.isEmpty else { throw ValidationError("--title must not be empty") }
    }

    func run() throws {
        var attributes = ItemAttributes.secureNote(title: title)
        attributes.tags = tag
        attributes.isFavorite = favorite
        let unlocked = try vault.unlock(saving: rollback, cache: .readingStdin(secrets: true))
        if SecretReader.isInteractive {
            Output.error("Type the note, then press Ctrl-D on a new line:")
        }
        let text = try SecretReader.readAll()
        let item = try vault.run { try unlocked.vault.add(attributes, secrets: ItemSecrets(notes: text)) }
        Output.error("added secure note \"\(item.label ?? title)\" (\(text.count) bytes)")
    }
}

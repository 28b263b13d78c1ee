import ArgumentParser
import Coffer
import Foundation

/// `coffer attach VAULT NAME FILE [--as NAME] [--replace]`
struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Keep a file in an item, encrypted with its secrets.",
        discussion: """
            Name the item as for `coffer get` (NAME, or --service, --server, --title, --label, \
            --id), then the FILE to attach. It is kept under its file name, or the name --as \
            gives; an attachment of that name already in the item is exit 2 unless --replace. \
            One attachment is at most 16 MiB (an item's secret part, attachments included, \
            at most 64 MiB, SPEC.md); FILE must be a regular file. Attachments are secret: \
            their names and bytes are encrypted with the item's password, merge and export \
            with it. `coffer attachments` lists them, `coffer get --attachment` reads one, \
            `coffer detach` removes one.

            EXAMPLES:
              coffer attach vault.coffer github recovery-codes.txt
              coffer attach vault.coffer --service github.com ~/Downloads/codes.txt --as recovery-codes.txt --replace
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Argument(help: ArgumentHelp("The file to attach.", valueName: "file"), completion: .file())
    var file: String?

    @Option(name: .customLong("as"), help: ArgumentHelp("The attachment's name (default: FILE's name).", valueName: "name"))
    var attachmentName: String?

    @Flag(help: "Replace an attachment of the same name.")
    var replace = false

    func run() throws {
        let (selector, file) = try self.selector.withTrailingArgument(file, named: "FILE")
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let name = attachmentName ?? URL(fileURLWithPath: file).lastPathComponent
        // The file first: a missing or oversized file is an error before the password is asked for.
        let data = try mappingErrors(vault: nil) { try SecureBytes.readSecretFile(at: file, maximumSize: Vault.maximumAttachmentSize) }
        let unlocked = try vault.unlock(saving: rollback)
        let item = try vault.run { () throws -> Item in
            let item = try selector.resolve(in: unlocked.vault)
            do {
                return try unlocked.vault.attach(data, named: name, to: item.id, replacing: replace)
            } catch CofferError.duplicateItem {
                throw CLIFailure(.duplicate, "\(item.displayName) already has an attachment named \(name); add --replace to replace it")
            }
        }
        Output.error("attached \(name) (\(data.count) bytes) to \(item.summary)")
    }
}

/// `coffer attachments VAULT NAME [--json]`
struct AttachmentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attachments",
        abstract: "List an item's attachments: name and size.",
        discussion: """
            Name the item as for `coffer get`. One line per attachment: its size in bytes, \
            then its name. None is exit 0 with no output.

            JSON shape:
              [{"name": str, "size": int}]

            EXAMPLES:
              coffer attachments vault.coffer github
              coffer attachments vault.coffer --service github.com --json
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func run() throws {
        _ = try selector.itemName()
        let unlocked = try vault.unlock()
        let details = try vault.run { () throws -> ItemDetails in
            try unlocked.vault.details(of: try selector.resolve(in: unlocked.vault).id)
        }
        if json {
            try JSONValue.array(details.attachments.map { .object([("name", .string($0.name)), ("size", .int(Int64($0.size)))]) }).print()
            return
        }
        let width = String(details.attachments.map(\.size).max() ?? 0).count
        for file in details.attachments {
            let size = String(file.size)
            Output.line(String(repeating: " ", count: width - size.count) + size + "  " + Output.visible(file.name))
        }
    }
}

/// `coffer detach VAULT NAME FILENAME`
struct DetachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detach",
        abstract: "Remove an attachment from an item.",
        discussion: """
            Name the item as for `coffer get`, then the attachment's name (as `coffer \
            attachments` lists it). No attachment so named is exit 1. The vault's previous \
            version stays in VAULT.bak until the next change.

            EXAMPLES:
              coffer detach vault.coffer github recovery-codes.txt
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Argument(help: ArgumentHelp("The attachment's name.", valueName: "filename"))
    var attachment: String?

    func run() throws {
        let (selector, name) = try self.selector.withTrailingArgument(attachment, named: "FILENAME")
        _ = try selector.itemName()
        let unlocked = try vault.unlock(saving: rollback)
        let item = try vault.run { () throws -> Item in
            let item = try selector.resolve(in: unlocked.vault)
            do {
                return try unlocked.vault.detach(named: name, from: item.id)
            } catch CofferError.itemNotFound {
                throw CLIFailure(.noMatch, "\(item.displayName) has no attachment named \(name) (see `coffer attachments`)")
            }
        }
        Output.error("removed the attachment \(name) from \(item.summary)")
    }
}

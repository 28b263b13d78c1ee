import ArgumentParser
import Coffer
import Foundation

/// `coffer totp VAULT --service S [--account A] [--json] [--set]`
struct TOTPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "totp",
        abstract: "Print an item's current one-time password (TOTP, RFC 6238), or set one with --set.",
        discussion: """
            Name the item as for `coffer get`. The one-time password lives in the item's \
            secret field `otp`, as an otpauth:// URI (imports from KeePassXC and Bitwarden \
            fill it). The code is printed alone, plus a newline.

            --set reads an otpauth://totp/... URI or a bare base32 secret (asked for without \
            echo on a terminal; on a pipe, the line after the master password), checks it and \
            stores it as the item's `otp` field. It is a secret, so it is never taken from the \
            command line.

            --clip copies the code to the clipboard instead (cleared after --clear-after \
            seconds, as for `coffer get --clip`).

            JSON shape:
              {"code": str, "secondsRemaining": int, "period": int, "digits": int,
               "algorithm": "SHA1"|"SHA256"|"SHA512"}

            EXAMPLES:
              coffer totp vault.coffer --service github.com --account octocat
              coffer totp vault.coffer --server https://example.com --json
              coffer totp vault.coffer github --clip
              printf '%s\\n%s\\n' "$MASTER" 'otpauth://totp/GitHub:octocat?secret=...' | coffer totp vault.coffer --service github.com --set
            """)

    @OptionGroup var vault: VaultArguments
    @OptionGroup var rollback: RollbackArguments
    @OptionGroup(title: "Item") var selector: LabeledItemSelector

    @Flag(help: "Print JSON (shape above).")
    var json = false

    @Flag(name: .customLong("set"), help: "Store a one-time password (read like a password) instead of printing a code.")
    var set = false

    @OptionGroup var clipboard: ClipboardArguments

    func validate() throws {
        if set && json { throw ValidationError("--set and --json cannot be used together") }
        if clipboard.clip && (set || json) { throw ValidationError("--clip cannot be used with --\(set ? "set" : "json")") }
        try clipboard.check()
    }

    func run() throws {
        _ = try selector.itemName()   // a usage error (64) before the vault is opened
        let tool = try clipboard.tool()
        let unlocked = try set ? vault.unlock(saving: rollback, cache: .readingStdin(secrets: true)) : vault.unlock()
        let item = try vault.run { try selector.resolve(in: unlocked.vault) }
        if set {
            try store(on: item, in: unlocked.vault)
            return
        }
        let secrets = try vault.run { try unlocked.vault.secrets(for: item.id) }
        let totp: TOTP
        do {
            guard let found = try secrets.totp() else {
                throw CLIFailure(.noMatch, "\(item.displayName) has no one-time password (add one with `coffer totp … --set`)")
            }
            totp = found
        } catch let error as CofferError where error.kind == .invalidOneTimePassword {
            throw CLIFailure(.usage, "the otp field of \(item.displayName) cannot be used: \(error.detail ?? error.description)")
        }
        let now = Date()
        let code = try mappingErrors(vault: nil) { try totp.code(at: now) }
        if let tool { return try clipboard.copy(try SecureBytes(copying: Array(code.utf8)), with: tool, what: "the code") }
        guard json else {
            Output.line(code)
            return
        }
        try JSONValue.object([
            ("code", .string(code)),
            ("secondsRemaining", .int(Int64(totp.secondsRemaining(at: now)))),
            ("period", .int(Int64(totp.period))),
            ("digits", .int(Int64(totp.digits))),
            ("algorithm", .string(totp.algorithm.rawValue)),
        ]).print()
    }

    private func store(on item: Item, in vault: Vault) throws {
        let value = try SecretReader.next(prompt: "otpauth URI or base32 secret for \(item.displayName): ",
                                          what: "the otpauth URI or base32 secret")
        let parsed: TOTP
        do {
            parsed = try TOTP(parsing: value)
        } catch {
            throw CLIFailure(.usage, "\(error.description); nothing was changed")
        }
        // A bare secret names nothing: name the item, so authenticator apps show it well.
        let totp = try mappingErrors(vault: nil) {
            try TOTP(secret: parsed.secret, algorithm: parsed.algorithm, digits: parsed.digits, period: parsed.period,
                     issuer: parsed.issuer ?? item.sortName, account: parsed.account ?? item.account)
        }
        _ = try self.vault.run {
            try vault.update(item.id) { _, secrets in try secrets.setTOTP(totp) }
        }
        Output.error("stored a one-time password for \(item.displayName) (\(totp.digits) digits, \(totp.period) s, \(totp.algorithm))")
    }
}

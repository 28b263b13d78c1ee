import ArgumentParser
import Coffer

/// `--clip` and `--clear-after`: the one way a command copies a secret (`get`, `totp`,
/// `add --generate`) instead of printing it.
struct ClipboardArguments: ParsableArguments {
    @Flag(help: "Copy to the clipboard instead of printing.")
    var clip = false

    @Option(name: .customLong("clear-after"), help: ArgumentHelp("With --clip: clear the clipboard after this many seconds (0: never).", valueName: "seconds"))
    var clearAfter: Int = 45

    /// A usage error for a bad delay. Called from the command's `validate()` (a group's own
    /// `validate()` would run before ArgumentParser reports an unknown option).
    func check() throws {
        guard (0...86_400).contains(clearAfter) else { throw ValidationError("--clear-after must be 0 to 86400 seconds") }
    }

    /// The clipboard tool when --clip is given, found before the vault is opened (exit 74
    /// names the tools when there is none).
    func tool() throws -> Clipboard? { clip ? try Clipboard.find() : nil }

    /// Copies `secret` and says so on stderr, naming `what` was copied.
    func copy(_ secret: SecureBytes, with clipboard: Clipboard, what: String = "") throws {
        try clipboard.copy(secret, clearAfter: clearAfter)
        let clearing = clearAfter > 0 ? "; clearing it in \(clearAfter) s" : ""
        Output.error("copied \(what.isEmpty ? "" : what + " ")to the clipboard with \(clipboard.name)\(clearing)")
    }
}

import Coffer
import CofferTerminal

/// Reads secrets: lines from a pipe, or typed on a terminal with echo off
/// (``SecretInput`` does the reading; this adds the command's policy and messages).
///
/// When standard input is not a terminal, its lines are consumed in order: the
/// master password first, then whatever the command documents (an item's password,
/// a new master password, secret field values).
enum SecretReader {
    /// True when standard input is a terminal (then secrets are prompted for).
    static var isInteractive: Bool { SecretInput.isInteractive }

    /// Reads one line from `fd`; nil at end of input before any byte.
    static func readLine(fd: Int32) throws -> SecureBytes? {
        try reporting { () throws(TerminalError) in try SecretInput.readLine(fd: fd) }
    }

    /// Reads standard input to its end (for a secure note's text). One trailing
    /// newline ("\n" or "\r\n") is dropped.
    static func readAll() throws -> SecureBytes {
        try reporting { () throws(TerminalError) in try SecretInput.readAll(limit: 16 << 20) }
    }

    /// An item's notes (`add`/`edit --notes`), read after every other secret: typed on a
    /// terminal and ended with Ctrl-D, else the rest of standard input. One trailing
    /// newline is dropped.
    static func notes() throws -> SecureBytes {
        if isInteractive { Output.error("Type the notes, then press Ctrl-D on a new line:") }
        return try readAll()
    }

    /// Prompts on the terminal with echo off and reads one line.
    static func prompt(_ text: String) throws -> SecureBytes {
        let line = try reporting { () throws(TerminalError) in try SecretInput.prompt(Output.visible(text)) }
        guard let line else { throw CLIFailure(.usage, "no password entered") }
        return line
    }

    /// The next secret: a prompt on a terminal, else the next line of standard input.
    /// `what` names it in messages, e.g. "the master password".
    static func next(prompt text: String, what: String) throws -> SecureBytes {
        if isInteractive { return try prompt(text) }
        guard let line = try readLine(fd: 0) else {
            throw CLIFailure(.usage, "expected \(what) on the next line of standard input")
        }
        return line
    }

    /// The master password that opens a vault.
    static func masterPassword(for vault: String) throws -> SecureBytes {
        try next(prompt: "Master password for \(vault): ", what: "the master password")
    }

    /// A new secret chosen by the user: asked twice on a terminal (a mismatch is
    /// refused), one line on a pipe. Empty secrets are refused.
    static func newSecret(prompt text: String, what: String) throws -> SecureBytes {
        let first = try next(prompt: text, what: what)
        guard first.count > 0 else { throw CLIFailure(.usage, "\(what) must not be empty") }
        if isInteractive {
            let again = try prompt("Retype to confirm: ")
            guard again == first else { throw CLIFailure(.usage, "the two entries do not match; nothing was changed") }
        }
        return first
    }

    /// Runs `body`, turning a ``TerminalError`` into the command's exit code and message.
    private static func reporting<R>(_ body: () throws(TerminalError) -> R) throws(CLIFailure) -> R {
        do {
            return try body()
        } catch {
            throw CLIFailure(error.kind == .inputTooLarge || error.kind == .lineTooLong ? .usage : .ioError, error.description)
        }
    }
}

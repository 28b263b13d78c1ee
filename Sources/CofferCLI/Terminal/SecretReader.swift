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

    /// Reads standard input to its end (for a secure note's text), up to `limit` bytes
    /// (16 MiB by default; more is a usage error). One trailing newline ("\n" or "\r\n") is dropped.
    static func readAll(limit: Int = 16 << 20) throws -> SecureBytes {
        try reporting { () throws(TerminalError) in try SecretInput.readAll(limit: limit) }
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

    /// The master password typed on the controlling terminal (`/dev/tty`), for a command
    /// whose standard input is another program's (git's credential requests); nil when the
    /// process has no terminal.
    static func masterPasswordOnTerminal(for vault: String) throws -> SecureBytes? {
        try reporting { () throws(TerminalError) in try SecretInput.promptOnTerminal("Master password for \(vault) (coffer, for git): ") }
    }

    /// The master password that opens a vault.
    static func masterPassword(for vault: String) throws -> SecureBytes {
        try next(prompt: "Master password for \(vault): ", what: "the master password")
    }

    /// How many times a terminal user may choose a new secret: a mismatched confirmation,
    /// or a weak master password they decline, asks again until this many tries are used.
    static let newSecretTries = 3

    /// A new secret chosen by the user: asked twice on a terminal (on a mismatch, asked
    /// again, up to ``newSecretTries`` times), one line on a pipe. Empty secrets are refused.
    /// `accept` sees the first entry before it is confirmed; returning false (the user
    /// wants another) asks again. On a pipe it is called too, and its answer ignored:
    /// a script cannot choose again.
    static func newSecret(prompt text: String, what: String,
                          accept: (SecureBytes) throws -> Bool = { _ in true }) throws -> SecureBytes {
        guard isInteractive else {
            let line = try next(prompt: text, what: what)
            guard line.count > 0 else { throw CLIFailure(.usage, "\(what) must not be empty") }
            _ = try accept(line)
            return line
        }
        var mismatched = false
        for attempt in 1...newSecretTries {
            let first = try prompt(text)
            guard first.count > 0 else { throw CLIFailure(.usage, "\(what) must not be empty") }
            guard try accept(first) else { mismatched = false; continue }
            let again = try prompt("Retype to confirm: ")
            if again == first { return first }
            mismatched = true
            if attempt < newSecretTries { Output.error("the two entries do not match; try again") }
        }
        throw CLIFailure(.usage, mismatched ? "the two entries do not match; nothing was changed"
                                            : "\(what) was not chosen after \(newSecretTries) tries; nothing was changed")
    }

    /// A new master password (`init`, `passwd`): ``newSecret(prompt:what:accept:)`` that
    /// shows its strength estimate and, below the library's good score
    /// (``StrengthEstimate/isGood``), warns; on a terminal it then asks whether to keep it
    /// (no: choose another), on a pipe it goes on with the warning on stderr.
    static func newMasterPassword(for vault: String, what: String) throws -> SecureBytes {
        try newSecret(prompt: "New master password for \(vault): ", what: what) { password in
            let estimate = StrengthEstimator.estimate(password)
            Output.error("strength: \(max(0, min(estimate.score, 4)))/4 (\(estimate.scoreName))")
            guard !estimate.isGood else { return true }
            Output.error("coffer: warning: this master password is easy to guess"
                         + (estimate.feedback.warning.map { ": \(Output.clause($0))" } ?? "")
                         + "; a longer passphrase (`coffer passphrase`) is safer")
            guard isInteractive else { return true }
            return SecretInput.confirm("Use it anyway?")
        }
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

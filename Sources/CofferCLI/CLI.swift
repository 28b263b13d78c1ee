import ArgumentParser
import Coffer

/// Runs a command and exits with the documented code; every failure is one plain
/// line on stderr: `coffer: <message>`.
enum CLI {
    static func run(arguments: [String]) -> Never {
        // A closed pipe must be an I/O error (74), not a silent SIGPIPE death.
        ProcessIO.ignoreBrokenPipes()
        // Before any secret is read: no core file, no debugger attach, no memory in crash output.
        do {
            try ProcessHardening.apply([.quietCrashes])
        } catch {
            Output.error("coffer: warning: could not make the process undumpable: \(error)")
        }
        // One command, then exit: the Argon2id memory and a large vault's buffers, once
        // freed, are reused rather than unmapped and faulted in again (ProcessMemory).
        ProcessMemory.keepFreedMemory()
        if notesValueGiven(arguments, parseFailed: false) { fail(notesOnCommandLine) }
        do {
            var command = try CofferCommand.parseAsRoot(arguments)
            try RepeatedOptions.check(command, arguments: arguments)
            try command.run()
            warnIfSecretsWereNotLocked()
            ProcessIO.exit(ExitStatus.success.rawValue)
        } catch let failure as CLIFailure {
            fail(failure)
        } catch let error as CofferError {
            fail(CLIFailure(error, vault: nil))
        } catch let code as ExitCode {
            ProcessIO.exit(code.rawValue)
        } catch {
            let code = CofferCommand.exitCode(for: error)
            if code == .success {
                // --help, --version, --generate-completion-script: ArgumentParser prints them.
                CofferCommand.exit(withError: error)
            }
            if code == .validationFailure {
                if notesValueGiven(arguments, parseFailed: true) { fail(notesOnCommandLine) }
                let message = CofferCommand.message(for: error)
                    .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty }.joined(separator: "; ")
                fail(CLIFailure(.usage, "\(message) (see '\(helpHint(arguments))')"))
            }
            fail(CLIFailure(.ioError, "unexpected error: \(String(describing: error))"))
        }
    }

    private static func fail(_ failure: CLIFailure) -> Never {
        warnIfSecretsWereNotLocked()
        Output.error("coffer: " + failure.message)
        ProcessIO.exit(failure.status.rawValue)
    }

    /// Once, at the end: secrets that the system would not lock into RAM (`ulimit -l`) may
    /// have reached swap. The command still ran; the library's default policy allows it.
    private static func warnIfSecretsWereNotLocked() {
        let count = SecureMemory.unlockedRegionCount
        guard count > 0 else { return }
        Output.error("coffer: warning: \(count) secret buffer(s) could not be locked into RAM "
            + "(the locked-memory limit, ulimit -l, is too low); they may have been written to swap")
    }

    /// Notes are secrets: `add`/`edit --notes` reads them from the terminal or stdin. A
    /// value given on the command line (visible in `ps`) is refused, never stored, and
    /// never repeated in the message (ArgumentParser's own message would quote it).
    private static let notesOnCommandLine = CLIFailure(.usage,
        "--notes takes no value: notes are secret, so they are read from the terminal or the rest of stdin, never from the command line; nothing was stored")

    /// True when `add` or `edit` got `--notes=TEXT`, or (when parsing failed, `parseFailed`
    /// true) `--notes` followed by a word that is not an option: the rejected argument.
    private static func notesValueGiven(_ arguments: [String], parseFailed: Bool) -> Bool {
        guard let command = arguments.first(where: { !$0.hasPrefix("-") }), command == "add" || command == "edit" else { return false }
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { break }
            if argument.hasPrefix("--notes=") { return true }
            if parseFailed, argument == "--notes", index + 1 < arguments.count, !arguments[index + 1].hasPrefix("-") { return true }
        }
        return false
    }

    /// `coffer <subcommand> --help` for the subcommand named in `arguments`, if any.
    private static func helpHint(_ arguments: [String]) -> String {
        var path = ["coffer"]
        var commands: [ParsableCommand.Type] = CofferCommand.configuration.subcommands
        for argument in arguments where !argument.hasPrefix("-") {
            guard let next = commands.first(where: { $0._commandName == argument }) else { break }
            path.append(argument)
            commands = next.configuration.subcommands
        }
        return path.joined(separator: " ") + " --help"
    }
}

import ArgumentParser
import Coffer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a command and exits with the documented code; every failure is one plain
/// line on stderr: `coffer: <message>`.
enum CLI {
    static func run(arguments: [String]) -> Never {
        // A closed pipe must be an I/O error (74), not a silent SIGPIPE death.
        signal(SIGPIPE, SIG_IGN)
        // Before any secret is read: no core file, no debugger attach, no memory in crash output.
        do {
            try ProcessHardening.apply([.quietCrashes])
        } catch {
            Output.error("coffer: warning: could not make the process undumpable: \(error)")
        }
        do {
            var command = try CofferCommand.parseAsRoot(arguments)
            try command.run()
            warnIfSecretsWereNotLocked()
            exit(ExitStatus.success.rawValue)
        } catch let failure as CLIFailure {
            fail(failure)
        } catch let error as CofferError {
            fail(CLIFailure(error, vault: nil))
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let code = CofferCommand.exitCode(for: error)
            if code == .success {
                // --help, --version, --generate-completion-script: ArgumentParser prints them.
                CofferCommand.exit(withError: error)
            }
            if code == .validationFailure {
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
        exit(failure.status.rawValue)
    }

    /// Once, at the end: secrets that the system would not lock into RAM (`ulimit -l`) may
    /// have reached swap. The command still ran; the library's default policy allows it.
    private static func warnIfSecretsWereNotLocked() {
        let count = SecureMemory.unlockedRegionCount
        guard count > 0 else { return }
        Output.error("coffer: warning: \(count) secret buffer(s) could not be locked into RAM "
            + "(the locked-memory limit, ulimit -l, is too low); they may have been written to swap")
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

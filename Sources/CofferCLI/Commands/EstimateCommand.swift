import ArgumentParser
import Coffer

/// `coffer estimate [--json]`
struct EstimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "estimate",
        abstract: "Estimate how hard a password is to guess; the password is read from stdin.",
        discussion: """
            On a terminal, the password is asked for without echo; otherwise it is the first \
            line of stdin. The password itself is never printed. Score 0 to 4, as zxcvbn: \
            0 under 10^3 guesses, 1 under 10^6, 2 under 10^8, 3 under 10^10, 4 above.

            JSON shape:
              {"score": int, "guesses": number, "guessesLog10": number, "bits": number,
               "warning": str|null, "suggestions": [str],
               "patterns": [{"kind": str, "start": int, "end": int, "guessesLog10": number,
                             "dictionary": str|null, "reversed": bool, "l33t": bool,
                             "misspelt": bool}]}
            (start and end count characters; a pattern kind is dictionary, keyboard, repeat,
            sequence, date, year or bruteforce.)

            EXAMPLES:
              coffer estimate
              printf '%s\\n' 'Tr0ub4dor&3' | coffer estimate --json
              coffer estimate --user-input alice --user-input example.com
            """)

    @Option(name: .customLong("user-input"),
            help: ArgumentHelp("A word an attacker may know, such as the user or site name (repeatable).", valueName: "word"))
    var userInput: [String] = []

    @Flag(help: "Print JSON (shape above).")
    var json = false


    func run() throws {
        let password = try SecretReader.next(prompt: "Password to estimate: ", what: "the password to estimate")
        let estimate = StrengthEstimator.estimate(password, userInputs: userInput)
        if json {
            try JSONValue.object([
                ("score", .int(Int64(estimate.score))),
                ("guesses", .double(estimate.guesses < 1e15 ? estimate.guesses.rounded() : estimate.guesses)),
                ("guessesLog10", .rounded(estimate.guessesLog10)),
                ("bits", .rounded(estimate.bits)),
                ("warning", .optional(estimate.feedback.warning)),
                ("suggestions", .strings(estimate.feedback.suggestions)),
                ("patterns", .array(estimate.patterns.map { pattern in
                    .object([
                        ("kind", .string(pattern.kind.rawValue)),
                        ("start", .int(Int64(pattern.range.lowerBound))),
                        ("end", .int(Int64(pattern.range.upperBound))),
                        ("guessesLog10", .rounded(pattern.guessesLog10)),
                        ("dictionary", .optional(pattern.dictionary?.rawValue)),
                        ("reversed", .bool(pattern.isReversed)),
                        ("l33t", .bool(pattern.isL33t)),
                        ("misspelt", .bool(pattern.isMisspelt)),
                    ])
                })),
            ]).print()
            return
        }
        Output.line("score:    \(max(0, min(estimate.score, 4)))/4 (\(estimate.scoreName))")
        Output.line("guesses:  10^\(Self.format(estimate.guessesLog10)) (\(Self.format(estimate.bits)) bits)")
        if let warning = estimate.feedback.warning { Output.line("warning:  \(warning)") }
        for suggestion in estimate.feedback.suggestions { Output.line("suggest:  \(suggestion)") }
    }

    private static func format(_ number: Double) -> String {
        let rounded = (number * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

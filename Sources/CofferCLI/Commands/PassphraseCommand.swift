import ArgumentParser
import Coffer

/// `coffer passphrase [--words N] [--separator S] [--count N]`
struct PassphraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passphrase",
        abstract: "Print random passphrases from the EFF large wordlist, one per line.",
        discussion: """
            Words are unbiased picks from 7,776 words (12.9 bits each). Default: 6 \
            lowercase words joined by "-" (77.5 bits). The separator may not contain letters \
            or digits; it may be empty only with --case capitalized.

            JSON shape:
              {"words": int, "separator": str, "entropyBits": number, "passphrases": [str]}

            EXAMPLES:
              coffer passphrase
              coffer passphrase --words 8 --separator " " --count 3
              coffer passphrase --case capitalized --separator "" --number
            """)

    @Option(help: ArgumentHelp("Words per passphrase, 1 to 64 (default 6).", valueName: "n"))
    var words: Int = PassphrasePolicy.defaultWordCount

    @Option(help: ArgumentHelp("Put between words (default \"-\").", valueName: "s"))
    var separator: String = "-"

    @Option(name: .customLong("case"), help: ArgumentHelp("lowercase, uppercase or capitalized.", valueName: "case"))
    var wordCase: String = PassphrasePolicy.WordCase.lowercase.rawValue

    @Flag(help: "Append one random digit to one random word.")
    var number = false

    @Option(help: ArgumentHelp("How many passphrases, 1 to 1000.", valueName: "n"))
    var count: Int = 1

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--count must be 1 to 1000") }
        guard PassphrasePolicy.WordCase(rawValue: wordCase) != nil else {
            throw ValidationError("--case must be lowercase, uppercase or capitalized")
        }
    }

    func run() throws {
        let policy = PassphrasePolicy(wordCount: words, separator: separator,
                                      wordCase: PassphrasePolicy.WordCase(rawValue: wordCase) ?? .lowercase,
                                      includeNumber: number)
        let (generator, phrases) = try mappingErrors(vault: nil) { () throws -> (PassphraseGenerator, [SecureBytes]) in
            let generator = try PassphraseGenerator(policy: policy)
            return (generator, try generator.generate(count: count))
        }
        if json {
            try JSONValue.object([
                ("words", .int(Int64(words))),
                ("separator", .string(separator)),
                ("entropyBits", .rounded(generator.entropyBits)),
                ("passphrases", .array(phrases.map { .secret($0) })),
            ]).print()
            return
        }
        for phrase in phrases { try Output.secretLine(phrase) }
    }
}

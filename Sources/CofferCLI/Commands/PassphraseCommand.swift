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
            or digits; it may be empty only with --case capitalized. --count has no upper \
            limit: passphrases are written as they are made (also with --json), in bounded memory.

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

    @Option(help: ArgumentHelp("How many passphrases (default 1, no upper limit); they are printed as they are made.", valueName: "n"))
    var count: Int = 1

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard PassphrasePolicy.WordCase(rawValue: wordCase) != nil else {
            throw ValidationError("--case must be lowercase, uppercase or capitalized")
        }
    }

    func run() throws {
        let policy = PassphrasePolicy(wordCount: words, separator: separator,
                                      wordCase: PassphrasePolicy.WordCase(rawValue: wordCase) ?? .lowercase,
                                      includeNumber: number)
        let generator = try mappingErrors(vault: nil) { try PassphraseGenerator(policy: policy) }
        let stream = try SecretStream(json: json, head: [
            ("words", .int(Int64(words))),
            ("separator", .string(separator)),
            ("entropyBits", .rounded(generator.entropyBits)),
        ], arrayKey: "passphrases")
        // A batch at a time from one random stream, each in guarded memory that is freed
        // (and wiped) once the batch is in the stream.
        var remaining = count
        while remaining > 0 {
            let n = min(remaining, 256)
            for phrase in try mappingErrors(vault: nil, { try generator.generate(count: n) }) {
                try stream.append(phrase)
            }
            remaining -= n
        }
        try stream.finish()
    }
}

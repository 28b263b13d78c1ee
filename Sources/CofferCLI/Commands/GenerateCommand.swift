import ArgumentParser
import Coffer

/// `coffer generate [--length N] [--no-upper] … [--count N] [--json]`
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print random passwords, one per line.",
        discussion: """
            Each character is an unbiased pick from the chosen classes, from the operating \
            system's cryptographic random source. Default: 20 characters, all four classes.

            JSON shape:
              {"length": int, "entropyBits": number, "characters": str, "passwords": [str]}

            EXAMPLES:
              coffer generate
              coffer generate --length 32 --no-symbols --count 5
              coffer generate --exclude-similar --require-each --json
            """)

    @OptionGroup var generator: GeneratorFlags

    @Option(help: ArgumentHelp("How many passwords, 1 to 1000.", valueName: "n"))
    var count: Int = 1

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        guard (1...1000).contains(count) else { throw ValidationError("--count must be 1 to 1000") }
    }

    func run() throws {
        let passwordGenerator = try generator.generator()
        let passwords = try mappingErrors(vault: nil) { try passwordGenerator.generate(count: count) }
        if json {
            try JSONValue.object([
                ("length", .int(Int64(passwordGenerator.policy.length))),
                ("entropyBits", .rounded(passwordGenerator.entropyBits)),
                ("characters", .string(passwordGenerator.characters)),
                ("passwords", .array(passwords.map { .secret($0) })),
            ]).print()
            return
        }
        for password in passwords { try Output.secretLine(password) }
    }
}

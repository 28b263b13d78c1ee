import ArgumentParser
import Coffer

/// `coffer generate [--length N] [--no-upper] … [--count N] [--json]`
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print random passwords, one per line.",
        discussion: """
            Each character is an unbiased pick from the chosen classes, from the operating \
            system's cryptographic random source. Default: 20 characters, all four classes. \
            --count has no upper limit: passwords are written as they are made (also with --json), \
            in bounded memory.

            JSON shape:
              {"length": int, "entropyBits": number, "characters": str, "passwords": [str]}

            EXAMPLES:
              coffer generate
              coffer generate --length 32 --no-symbols --count 5
              coffer generate --count 1000000 > passwords.txt
              coffer generate --exclude-similar --require-each --json
            """)

    @OptionGroup var generator: GeneratorFlags

    @Option(help: ArgumentHelp("How many passwords (default 1, no upper limit); they are printed as they are made.", valueName: "n"))
    var count: Int = 1

    @Flag(help: "Print JSON (shape above).")
    var json = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
    }

    func run() throws {
        let passwordGenerator = try generator.generator()
        let length = passwordGenerator.policy.length
        let stream = try SecretStream(json: json, head: [
            ("length", .int(Int64(length))),
            ("entropyBits", .rounded(passwordGenerator.entropyBits)),
            ("characters", .string(passwordGenerator.characters)),
        ], arrayKey: "passwords")
        // Passwords are made a batch at a time into guarded memory (locked, wiped when
        // freed), streamed out, and freed: memory stays the same for a million as for one.
        let perBatch = min(count, max(1, (32 << 10) / length))
        var remaining = count
        while remaining > 0 {
            let n = min(perBatch, remaining)
            let batch = try mappingErrors(vault: nil) {
                try SecureBytes(count: n * length) { (region: UnsafeMutableRawBufferPointer) throws(CofferError) in
                    _ = try passwordGenerator.generate(into: region)
                }
            }
            try batch.withUnsafeBytes { bytes in
                for index in 0..<n {
                    try stream.append(UnsafeRawBufferPointer(rebasing: bytes[(index * length)..<((index + 1) * length)]))
                }
            }
            remaining -= n
        }
        try stream.finish()
    }
}

import ArgumentParser
import Coffer

/// The password generator's flags, shared by `generate`, `add --generate` and `edit --generate`.
struct GeneratorFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Characters in the password, \(PasswordPolicy.lengthRange.lowerBound) to \(PasswordPolicy.lengthRange.upperBound) (default \(PasswordPolicy.defaultLength)).",
                               valueName: "n"))
    var length: Int?

    @Flag(name: .customLong("no-upper"), help: "Leave out uppercase letters.")
    var noUpper = false

    @Flag(name: .customLong("no-lower"), help: "Leave out lowercase letters.")
    var noLower = false

    @Flag(name: .customLong("no-digits"), help: "Leave out digits.")
    var noDigits = false

    @Flag(name: .customLong("no-symbols"), help: "Leave out symbols.")
    var noSymbols = false

    @Flag(name: .customLong("exclude-similar"), help: "Leave out look-alike characters: \(PasswordPolicy.lookAlikeCharacters)")
    var excludeSimilar = false

    @Flag(name: .customLong("require-each"), help: "Use at least one character of each chosen class.")
    var requireEach = false

    /// True when any generator flag was given.
    var anyGiven: Bool { length != nil || noUpper || noLower || noDigits || noSymbols || excludeSimilar || requireEach }

    var policy: PasswordPolicy {
        PasswordPolicy(length: length ?? PasswordPolicy.defaultLength,
                       includeLowercase: !noLower, includeUppercase: !noUpper,
                       includeDigits: !noDigits, includeSymbols: !noSymbols,
                       excludeLookAlikes: excludeSimilar, requireEachClass: requireEach)
    }

    func validate() throws {
        do {
            try policy.validate()
        } catch {
            throw ValidationError(String(describing: error))
        }
    }

    /// A generator for these flags; an impossible policy is a usage error.
    func generator() throws -> PasswordGenerator {
        try mappingErrors(vault: nil) { try PasswordGenerator(policy: policy) }
    }
}

import Coffer

/// `--field NAME=VALUE` (non-secret custom fields).
func parseFieldAssignments(_ assignments: [String]) throws -> [CustomField] {
    try assignments.map { text in
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw CLIFailure(.usage, "--field needs NAME=VALUE, got \(text)")
        }
        return CustomField(name: String(text[..<equals]), value: String(text[text.index(after: equals)...]))
    }
}

/// Reads each `--secret-field NAME` value: prompted on a terminal, else the next line of stdin.
func readSecretFields(_ names: [String]) throws -> [SecretField] {
    try names.map { name in
        guard !name.isEmpty else { throw CLIFailure(.usage, "--secret-field needs a name") }
        let value = try SecretReader.next(prompt: "Value of secret field \(name): ", what: "the value of secret field \(name)")
        return SecretField(name: name, value: value)
    }
}

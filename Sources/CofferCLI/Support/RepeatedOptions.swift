import ArgumentParser

/// Refuses an option that takes one value but was given twice (`--label A --label B`):
/// ArgumentParser silently keeps the last, so an edit would quietly drop the first value.
/// Options that collect values (`--tag`, `--field`…) may repeat.
///
/// Which options take one value is read from the parsed command (the property wrappers
/// it holds, through option groups), so no command keeps a list of its own; the name is
/// ArgumentParser's default long name, the property's name in kebab case.
enum RepeatedOptions {
    /// Throws a usage error (64) naming the first single-value option given twice.
    static func check(_ command: any ParsableCommand, arguments: [String]) throws {
        let given = arguments.prefix { $0 != "--" }.filter { $0.hasPrefix("--") }.map { String($0.dropFirst(2).prefix { $0 != "=" }) }
        // Only a name given twice can be refused: without one the command is not reflected
        // (reading its options through Mirror and their type names took 33 million
        // instructions, a tenth of `coffer get`'s work beyond the KDF at 100,000 entries).
        guard Set(given).count < given.count else { return }
        let single = singleValueNames(in: command)
        var seen = Set<String>()
        for name in given {
            guard single.contains(name) else { continue }
            guard seen.insert(name).inserted else {
                throw CLIFailure(.usage, "--\(name) was given more than once; it takes one value")
            }
        }
    }

    /// The long names of the single-value `@Option`s in `value` and its option groups.
    static func singleValueNames(in value: Any, insideGroup: Bool = false) -> Set<String> {
        var names = Set<String>()
        for child in Mirror(reflecting: value).children {
            let type = String(describing: Swift.type(of: child.value))
            if type.hasPrefix("Option<"), let label = child.label {
                if !type.hasPrefix("Option<Array<") { names.insert(longName(label.hasPrefix("_") ? String(label.dropFirst()) : label)) }
            } else if type.hasPrefix("OptionGroup<") || type.hasPrefix("Parsed<") {
                names.formUnion(singleValueNames(in: child.value, insideGroup: true))
            } else if insideGroup && child.label == "value" {
                // The parsed group itself (`Parsed.value`).
                names.formUnion(singleValueNames(in: child.value))
            }
        }
        return names
    }

    /// `maxKDFMemory` -> `max-kdf-memory`, as ArgumentParser names options by default.
    static func longName(_ property: String) -> String {
        let characters = Array(property)
        var out = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                if previous.isLowercase || previous.isNumber || (previous.isUppercase && nextIsLower) { out.append("-") }
            }
            out.append(contentsOf: character.lowercased())
        }
        return out
    }
}

import Coffer

/// `ITEM[:field]`, and `NAME=ITEM[:field]` for an environment variable: which secret
/// `coffer run` hands to a command. A reference names a secret; it never holds one, so it
/// may sit on a command line or in an `--env-file`.
struct SecretReference: Equatable {
    /// The environment variable; nil for `--stdin`.
    var variable: String?
    /// The item, named as `coffer get NAME` names it (``ItemName/Key/anything(_:)``).
    var item: String
    /// The field (``ItemSecretChoice``); nil for the password, or a note's text.
    var field: String?

    /// The largest `--env-file` read: references only, a few lines.
    static let maximumFileSize = 64 * 1024

    /// `ITEM[:field]`: the text after the last `:` is the field unless it is empty, all
    /// digits (a port: `example.com:8443`) or holds a `/` (a URL: `https://example.com`).
    init(item text: String) throws {
        var item = text, field: String?
        if let colon = text.lastIndex(of: ":") {
            let suffix = text[text.index(after: colon)...]
            if !suffix.isEmpty, !suffix.contains("/"), !suffix.allSatisfy({ $0.isASCII && $0.isNumber }) {
                item = String(text[..<colon])
                field = String(suffix)
            }
        }
        guard !item.isEmpty else { throw CLIFailure(.usage, "\(text) names no item; write ITEM or ITEM:field") }
        self.init(variable: nil, item: item, field: field)
    }

    init(variable: String?, item: String, field: String?) {
        self.variable = variable
        self.item = item
        self.field = field
    }

    /// `NAME=ITEM[:field]`; NAME is a portable variable name (`[A-Za-z_][A-Za-z0-9_]*`).
    init(assignment text: String) throws {
        guard let equals = text.firstIndex(of: "=") else {
            throw CLIFailure(.usage, "\(text) is not NAME=ITEM[:field]")
        }
        let name = String(text[..<equals])
        guard Self.isVariableName(name) else {
            throw CLIFailure(.usage, "\(name.isEmpty ? "an empty name" : name) is not an environment variable name (letters, digits and _, not starting with a digit)")
        }
        var reference = try SecretReference(item: String(text[text.index(after: equals)...]))
        reference.variable = name
        self = reference
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return name.utf8.allSatisfy { ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || (0x30...0x39).contains($0) || $0 == 0x5F }
    }

    /// The lines of an `--env-file`: `NAME=ITEM[:field]` each; blank lines and lines
    /// starting with `#` are skipped. A bad line is a usage error naming its number.
    static func parseFile(_ text: String, name: String) throws -> [SecretReference] {
        var references: [SecretReference] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            var line = Substring(raw)
            if line.hasSuffix("\r") { line = line.dropLast() }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                references.append(try SecretReference(assignment: String(trimmed)))
            } catch let failure as CLIFailure {
                throw CLIFailure(.usage, "\(name), line \(index + 1): \(failure.message)")
            }
        }
        return references
    }
}

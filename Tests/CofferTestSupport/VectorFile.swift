import Foundation
import CofferCrypto
import CofferFormat

package struct VectorFileError: Error, CustomStringConvertible {
    package let description: String
    package init(description: String) { self.description = description }
}

/// A `.vec` file: `key: value` lines, a blank line, then the raw vault bytes (SPEC.md §15.1).
package struct VectorFile: Sendable {
    package var name: String
    package var expect: VectorExpectation
    package var password: String?
    package var keyFile: [UInt8]?
    package var rawKey: [UInt8]?
    /// An age identity (`AGE-SECRET-KEY-1…`) for a recipient slot (SPEC.md §4.11).
    package var identity: String? = nil
    /// The 32-byte Ed25519 seed of an SSH identity for an ssh-ed25519 recipient slot.
    package var sshSeed: [UInt8]? = nil
    package var generation: UInt64?
    package var comment: String?
    package var entries: [VectorEntry]?
    /// Merge vectors (SPEC.md §15.1): the other replicas to merge with this one, and the result.
    package var mergeWith: [String]? = nil
    package var merged: MergedVault? = nil
    /// A refused merge vector (SPEC.md §15.1): merging this file with each `merge-with` file,
    /// either way, fails with this class, both files left as they were.
    package var mergeRefused: VectorExpectation? = nil
    package var bytes: [UInt8]

    package init(name: String, expect: VectorExpectation, password: String? = nil, keyFile: [UInt8]? = nil,
                 rawKey: [UInt8]? = nil, generation: UInt64? = nil, comment: String? = nil, entries: [VectorEntry]? = nil,
                 mergeWith: [String]? = nil, merged: MergedVault? = nil, bytes: [UInt8]) {
        self.name = name
        self.expect = expect
        self.password = password
        self.keyFile = keyFile
        self.rawKey = rawKey
        self.generation = generation
        self.comment = comment
        self.entries = entries
        self.mergeWith = mergeWith
        self.merged = merged
        self.bytes = bytes
    }

    package func serialized() throws -> [UInt8] {
        var lines = ["expect: \(expect.rawValue)"]
        if let password { lines.append("password: \(password)") }
        if let keyFile { lines.append("key-file: \(Hex.encode(keyFile))") }
        if let rawKey { lines.append("raw-key: \(Hex.encode(rawKey))") }
        if let identity { lines.append("identity: \(identity)") }
        if let sshSeed { lines.append("ssh-ed25519-seed: \(Hex.encode(sshSeed))") }
        if let generation { lines.append("generation: \(generation)") }
        if let comment { lines.append("comment: \(comment)") }
        if let entries { lines.append("entries: \(try VectorEntry.encodeLine(entries))") }
        if let mergeWith { lines.append("merge-with: \(mergeWith.joined(separator: " "))") }
        if let mergeRefused { lines.append("merge-refused: \(mergeRefused.rawValue)") }
        if let merged { lines.append("merged: \(try merged.encodeLine())") }
        for line in lines where line.contains("\n") { throw VectorFileError(description: "\(name): newline in \(line)") }
        return Array((lines.joined(separator: "\n") + "\n\n").utf8) + bytes
    }

    package static func parse(name: String, contents: [UInt8]) throws -> VectorFile {
        // The header ends at the first blank line; everything after it is the vault.
        var split: Int?
        for i in 0..<max(0, contents.count - 1) where contents[i] == 0x0A && contents[i + 1] == 0x0A {
            split = i
            break
        }
        guard let split else { throw VectorFileError(description: "\(name): no blank line after the header") }
        let header = String(decoding: contents[0..<split], as: UTF8.self)
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n", omittingEmptySubsequences: false) {
            guard let colon = line.firstIndex(of: ":"), line[line.index(after: colon)...].hasPrefix(" ") else {
                throw VectorFileError(description: "\(name): bad header line \(line)")
            }
            let key = String(line[..<colon])
            let value = String(line[line.index(colon, offsetBy: 2)...])
            guard fields.updateValue(value, forKey: key) == nil else { throw VectorFileError(description: "\(name): \(key) twice") }
        }
        let known: Set<String> = ["expect", "password", "key-file", "raw-key", "identity", "ssh-ed25519-seed", "generation", "comment",
                                  "entries", "merge-with", "merge-refused", "merged"]
        if let unknown = fields.keys.first(where: { !known.contains($0) }) {
            throw VectorFileError(description: "\(name): unknown header \(unknown)")
        }
        guard let expectText = fields["expect"], let expect = VectorExpectation(rawValue: expectText) else {
            throw VectorFileError(description: "\(name): missing or unknown expect")
        }
        var vector = VectorFile(
            name: name, expect: expect,
            password: fields["password"],
            keyFile: fields["key-file"].map(Hex.decode),
            rawKey: fields["raw-key"].map(Hex.decode),
            generation: try fields["generation"].map { text in
                guard let value = UInt64(text) else { throw VectorFileError(description: "\(name): bad generation") }
                return value
            },
            comment: fields["comment"],
            entries: try fields["entries"].map(VectorEntry.decodeLine),
            mergeWith: fields["merge-with"].map { $0.split(separator: " ").map(String.init) },
            merged: try fields["merged"].map(MergedVault.decodeLine),
            bytes: Array(contents[(split + 2)...]))
        vector.identity = fields["identity"]
        vector.sshSeed = fields["ssh-ed25519-seed"].map(Hex.decode)
        if let refused = fields["merge-refused"] {
            guard let outcome = VectorExpectation(rawValue: refused) else { throw VectorFileError(description: "\(name): unknown merge-refused") }
            vector.mergeRefused = outcome
        }
        return vector
    }

    /// The credential the header names.
    package func credential() throws -> VaultCredential {
        let material = try keyFile.map { contents in
            try contents.withBytes { (raw) throws(CofferError) in try formatCall { () throws(FormatError) in try KeyFile.material(contents: raw) } }
        }
        if let identity {
            return .identity(try VaultIdentity(contents: try SecureBytes(copying: identity)))
        }
        if let sshSeed {
            return .identity(try VaultIdentity(ed25519SecretKey: try Ed25519.secretKey(seed: try SecureBytes(copying: sshSeed))))
        }
        switch (password, material, rawKey) {
        case (let p?, nil, nil): return .password(try SecureBytes(copying: p))
        case (nil, let m?, nil): return .keyFile(KeyFile(material: m))
        case (let p?, let m?, nil): return .passwordAndKeyFile(try SecureBytes(copying: p), KeyFile(material: m))
        case (nil, nil, let r?): return .rawKey(try SecureBytes(copying: r))
        default: throw VectorFileError(description: "\(name): needs password, key-file, both, or raw-key")
        }
    }

    /// Every `.vec` file in `Tests/Vectors`, by name.
    package static func loadAll() throws -> [VectorFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: VectorPaths.directory.path)
            .filter { $0.hasSuffix(".vec") }
            .sorted()
        return try names.map { name in
            let data = try Data(contentsOf: VectorPaths.directory.appendingPathComponent(name))
            return try parse(name: name, contents: Array(data))
        }
    }
}

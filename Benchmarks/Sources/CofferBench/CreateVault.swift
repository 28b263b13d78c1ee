import Coffer
import Foundation

/// Builds a Coffer vault from the TSV of `gen_entries.py` in one transaction, through
/// the public API: each line becomes a generic password (service = title, account =
/// username, the URL as an attribute; the password and the notes as secrets), as
/// `coffer add` would.
enum CreateVault {
    static func run(_ options: Options) throws {
        guard options.positional.count == 2 else { throw BenchError("create ENTRIES.tsv VAULT") }
        let (source, target) = (options.positional[0], options.positional[1])
        let password = try SecureBytes(copying: try options.string("password"))
        let rows = try readRows(source)
        let clock = ContinuousClock()
        let start = clock.now
        let vault = try Vault.create(at: target, password: password,
                                     options: VaultOptions(kdf: try options.kdf(), keepsBackup: false))
        try vault.transaction { tx in
            for row in rows {
                var attributes = ItemAttributes.genericPassword(service: row[0], account: row[1])
                attributes.urls = [row[3]]
                // Secrets are dropped after each add: only sealed records stay in memory.
                let secrets = ItemSecrets(password: try SecureBytes(copying: row[2]), notes: try SecureBytes(copying: row[4]))
                try tx.add(attributes, secrets: secrets)
            }
        }
        print("created \(target): \(rows.count) entries in \(String(format: "%.2f", seconds(clock.now - start))) s")
    }

    /// Lines of five tab-separated fields.
    static func readRows(_ path: String) throws -> [[String]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var rows: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5 else { throw BenchError("\(path): a line without 5 fields") }
            rows.append(fields)
        }
        return rows
    }
}

import Coffer

/// What the CLI says about damaged records (``DamagedItem``): which, and the ways out.
/// One wording, for every command that meets one.
enum DamagedEntries {
    /// The commands that get a damaged vault back, for `vault`.
    static func wayOut(_ vault: String) -> String {
        "`coffer check \(vault)` names every damaged entry, `coffer export \(vault) --salvage` saves the readable items, "
            + "`coffer repair \(vault)` replaces damaged entries from \(vault).bak (or --from COPY) or takes them out, "
            + "`coffer restore \(vault)` puts the backup back, and `coffer merge \(vault) COPY` brings items back from another copy"
    }

    /// `2 damaged entries (entry 3f2a9c01, entry 77b0e1d2)`.
    static func named(_ damaged: [DamagedItem]) -> String {
        "\(damaged.count) damaged entr\(damaged.count == 1 ? "y" : "ies") (" + damaged.map(\.description).joined(separator: ", ") + ")"
    }

    /// The failure (exit 65) of a command that showed what it could read and left `damaged` out.
    static func failure(_ damaged: [DamagedItem], vault: String, shown: String) -> CLIFailure {
        CLIFailure(.vaultUnreadable, "\(vault): \(named(damaged)) could not be read, \(shown); \(wayOut(vault))")
    }
}

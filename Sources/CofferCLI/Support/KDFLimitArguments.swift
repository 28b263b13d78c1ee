import ArgumentParser
import Coffer

/// `--max-kdf-memory` and `--max-kdf-passes`: raise the key-derivation limit
/// (``KDFLimit``) for one command, on every command that opens or creates a vault.
struct KDFLimitArguments: ParsableArguments {
    @Option(name: .customLong("max-kdf-memory"),
            help: ArgumentHelp("Open (or create) a vault whose Argon2id slots use up to this much memory per slot, in MiB (default 1024, at most 4096). Refused before the password prompt otherwise (exit 65).",
                               valueName: "mib"))
    var maxKDFMemory: UInt32?

    @Option(name: .customLong("max-kdf-passes"),
            help: ArgumentHelp("Likewise for Argon2id passes per slot (default 10, at most 64). The total over the slots tried is this memory × these passes.",
                               valueName: "n"))
    var maxKDFPasses: UInt32?

    func validate() throws {
        if let maxKDFMemory, !(1...4096).contains(maxKDFMemory) { throw ValidationError("--max-kdf-memory must be 1 to 4096 MiB") }
        if let maxKDFPasses, !(1...64).contains(maxKDFPasses) { throw ValidationError("--max-kdf-passes must be 1 to 64") }
    }

    /// The limit in force: the library's default, or these flags (an unset one keeps its
    /// default); the total is one slot at the per-slot maximum, never below the default total.
    var limit: KDFLimit {
        guard maxKDFMemory != nil || maxKDFPasses != nil else { return .default }
        let memory = maxKDFMemory.map { $0 * 1024 } ?? KDFLimit.default.maxMemoryKiB
        let passes = maxKDFPasses ?? KDFLimit.default.maxIterations
        let total = max(UInt64(memory) * UInt64(passes), KDFLimit.default.maxTotalWork)
        return KDFLimit(maxMemoryKiB: memory, maxIterations: passes, maxTotalWork: total)
    }

    /// What the CLI adds to a ``CofferError/kdfCostTooHigh(_:)`` message.
    static let hint = "to open it anyway, pass --max-kdf-memory MIB and/or --max-kdf-passes N"
}

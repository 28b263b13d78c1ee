/// A reader's budget for key derivation: how much Argon2id work one unlock may do.
///
/// SPEC.md §9 lets a file ask for up to 4 GiB × 64 passes per slot and 32 slots, which a
/// crafted file can use to keep a reader busy for hours ("wrong password" after 1 h 45 min).
/// This is a reader-side policy, not a format rule (SPEC.md §13): before any KDF runs,
/// the slots an unlock may try are checked against it and, if they cost more, the unlock
/// is refused with ``CofferError/kdfCostTooHigh(_:)``. Writers check new slots against
/// the limit in force too, so what Coffer creates, Coffer opens by default.
///
/// Work is measured as memory × passes (KiB × iterations), which is what Argon2id's time
/// grows with; lanes do not reduce the work, only spread it.
///
/// ```swift
/// var options = VaultOptions()
/// options.kdfLimit = KDFLimit(maxMemoryKiB: 4 * 1024 * 1024, maxIterations: 10)   // trust this vault
/// let vault = try Vault.open(at: path, password: password, options: options)
/// ```
public struct KDFLimit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Memory per slot, in KiB. Default: 1 GiB.
    public var maxMemoryKiB: UInt32
    /// Passes per slot. Default: 10.
    public var maxIterations: UInt32
    /// The sum of memoryKiB × iterations over the slots an unlock may try. Default:
    /// 1 GiB × 10 passes (10,485,760 KiB × passes): one slot at the per-slot maximum, or
    /// about 13 slots of the default 256 MiB × 3.
    public var maxTotalWork: UInt64

    /// A limit of `maxMemoryKiB` and `maxIterations` per slot; the total defaults to one
    /// slot at that maximum (a smaller total would refuse a slot the per-slot limit allows).
    public init(maxMemoryKiB: UInt32, maxIterations: UInt32, maxTotalWork: UInt64? = nil) {
        self.maxMemoryKiB = maxMemoryKiB
        self.maxIterations = maxIterations
        self.maxTotalWork = maxTotalWork ?? UInt64(maxMemoryKiB) * UInt64(maxIterations)
    }

    /// 1 GiB and 10 passes per slot, 1 GiB × 10 passes in all (SPEC.md §13): at most a
    /// few seconds and 1 GiB of memory per unlock on the machines in BENCHMARKS.md.
    public static let `default` = KDFLimit(maxMemoryKiB: 1024 * 1024, maxIterations: 10)

    /// No limit beyond SPEC.md §9's bounds: 4 GiB × 64 passes per slot, 32 such slots.
    /// Only for files from a trusted source.
    public static let formatMaximum = KDFLimit(
        maxMemoryKiB: Argon2idParameters.memoryKiBRange.upperBound,
        maxIterations: Argon2idParameters.iterationsRange.upperBound,
        maxTotalWork: 32 * UInt64(Argon2idParameters.memoryKiBRange.upperBound) * UInt64(Argon2idParameters.iterationsRange.upperBound))

    /// Memory × passes of one derivation, in KiB × passes.
    public static func work(of parameters: Argon2idParameters) -> UInt64 {
        UInt64(parameters.memoryKiB) * UInt64(parameters.iterations)
    }

    /// Throws ``CofferError/kdfCostTooHigh(_:)`` unless one unlock may derive with every
    /// one of `slots` (the Argon2id parameters of the slots it may try) within this limit.
    public func check(_ slots: [Argon2idParameters]) throws(CofferError) {
        let total = slots.reduce(UInt64(0)) { $0 &+ Self.work(of: $1) }
        let withinSlot = slots.allSatisfy { $0.memoryKiB <= maxMemoryKiB && $0.iterations <= maxIterations }
        guard withinSlot, total <= maxTotalWork else {
            throw .kdfCostTooHigh("\(Self.describe(slots)); the limit is \(self)")
        }
    }

    /// Throws ``CofferError/kdfCostTooHigh(_:)`` unless one slot of `parameters` is within this limit.
    public func check(_ parameters: Argon2idParameters) throws(CofferError) {
        try check([parameters])
    }

    /// "1024 MiB × 10 passes per slot and 10240 MiB × passes in all".
    public var description: String {
        "\(Self.size(UInt64(maxMemoryKiB))) × \(Self.passes(maxIterations)) per slot and \(Self.size(maxTotalWork)) × passes in all"
    }

    /// "32 slots of Argon2id 4096 MiB × 64 passes (262144 MiB × passes in all)", or with
    /// mixed parameters "3 slots of Argon2id up to … ".
    static func describe(_ slots: [Argon2idParameters]) -> String {
        let total = slots.reduce(UInt64(0)) { $0 &+ work(of: $1) }
        let memory = slots.map(\.memoryKiB).max() ?? 0
        let passes = slots.map(\.iterations).max() ?? 0
        let same = Set(slots.map { [$0.memoryKiB, $0.iterations] }).count <= 1
        let count = slots.count == 1 ? "1 slot" : "\(slots.count) slots"
        return "\(count) of Argon2id \(same ? "" : "up to ")\(size(UInt64(memory))) × \(Self.passes(passes))"
            + (slots.count > 1 ? " (\(size(total)) × passes in all)" : "")
    }

    /// "1 pass", "N passes".
    static func passes(_ count: UInt32) -> String { count == 1 ? "1 pass" : "\(count) passes" }

    /// KiB as "N MiB" when whole, else "N KiB".
    static func size(_ kib: UInt64) -> String {
        kib % 1024 == 0 ? "\(kib / 1024) MiB" : "\(kib) KiB"
    }
}

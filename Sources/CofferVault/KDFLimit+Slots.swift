import CofferCrypto
import CofferFormat

extension KDFLimit {
    /// Checks the Argon2id slots an unlock with a credential of `kind` tries (every
    /// Argon2id slot when `kind` is nil), before any KDF runs.
    func check(_ slots: [KeySlotV2], kind: KeySlotKind?) throws(CofferError) {
        try check(slots.filter { kind == nil || $0.kind == kind }.compactMap(\.kdf))
    }
}

extension KeySlotKind {
    /// Password and key-file slots derive their key with Argon2id; raw-key slots do not.
    var hasKDF: Bool { self == .password || self == .keyFile || self == .passwordAndKeyFile }
}

extension VaultInfo {
    /// Checks, without any password and before any KDF runs, that an unlock trying the
    /// slots of `kinds` (every password and key-file slot when nil) stays within `limit`;
    /// throws ``CofferError/kdfCostTooHigh(_:)``, naming the cost, when it would not.
    /// Call it before asking for a password, with the kinds of the
    /// ``credentialChoices(withKeyFile:)`` you will try.
    ///
    /// ```swift
    /// let info = try Vault.info(at: path)
    /// let choices = info.credentialChoices(withKeyFile: false)
    /// try info.checkUnlockCost(limit: options.kdfLimit, kinds: choices.map(\.slotKind))
    /// let password = try askPassword()
    /// ```
    public func checkUnlockCost(limit: KDFLimit = .default, kinds: [KeySlotKind]? = nil) throws(CofferError) {
        try limit.check(slots.filter { kinds?.contains($0.kind) ?? true }.compactMap(\.kdf))
    }

    /// Memory × passes (KiB × iterations) of the slots of `kinds` (all when nil): the
    /// work ``checkUnlockCost(limit:kinds:)`` compares with ``KDFLimit/maxTotalWork``.
    public func unlockWork(kinds: [KeySlotKind]? = nil) -> UInt64 {
        slots.filter { kinds?.contains($0.kind) ?? true }.compactMap(\.kdf).reduce(0) { $0 &+ KDFLimit.work(of: $1) }
    }
}

import Foundation
import Testing
import CofferVault
import CofferTestSupport

/// The default work budget per unlock (SPEC.md §13, issue 15 finding 8): hostile files
/// are refused before any KDF runs. Every KDF a hostile file claims here would take
/// seconds to minutes, so each open runs under a deadline: the suite never hangs, and a
/// reader that ran the KDF fails the test.
@Suite struct VaultKDFLimitTests {
    static let gib: UInt32 = 1024 * 1024
    static let cheap = Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1)

    /// Opens `path` with password "pw" under a deadline; the thrown kind, or nil on success.
    static func openKind(_ path: String, options: VaultOptions = VaultOptions(), seconds: Double = 10,
                         sourceLocation: SourceLocation = #_sourceLocation) -> CofferError.Kind?? {
        let outcome = withDeadline(seconds: seconds) { () -> CofferError.Kind? in
            do {
                let vault = try Vault.open(at: path, password: try SecureBytes(copying: "pw"), options: options)
                vault.lock()
                return nil
            } catch let error as CofferError {
                return error.kind
            } catch {
                return .invalidArgument
            }
        }
        if outcome == nil { Issue.record("open did not finish in \(seconds) s: a KDF ran", sourceLocation: sourceLocation) }
        return outcome
    }

    @Test func aSlotOfFourGiBTimesSixtyFourIsRefusedBeforeTheKDF() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("bomb.coffer").path
            try KDFTestVault.write(to: path, good: nil, claims: [Argon2idParameters(memoryKiB: 4 * Self.gib, iterations: 64, lanes: 1)])
            #expect(Self.openKind(path) == .some(.kdfCostTooHigh))
            // Without a password: the header alone tells.
            let info = try Vault.info(at: path)
            #expect(info.unlockWork() == UInt64(4 * Self.gib) * 64)
            do throws(CofferError) {
                try info.checkUnlockCost()
                Issue.record("checkUnlockCost accepted 4 GiB × 64")
            } catch {
                #expect(error.kind == .kdfCostTooHigh)
                #expect(error.description.contains("1 slot of Argon2id 4096 MiB × 64 passes"), "\(error)")
                #expect(error.description.contains("1024 MiB × 10 passes per slot and 10240 MiB × passes in all"), "\(error)")
            }
            try info.checkUnlockCost(limit: .formatMaximum)
        }
    }

    @Test func thirtyTwoSlotsWithinThePerSlotLimitButOverTheTotalAreRefused() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("many.coffer").path
            let slot = Argon2idParameters(memoryKiB: Self.gib / 2, iterations: 2, lanes: 1)   // 1 GiB × passes each
            try KDFLimit.default.check(slot)
            try KDFLimit.default.check(Array(repeating: slot, count: 10))
            try KDFTestVault.write(to: path, good: nil, claims: Array(repeating: slot, count: 32))
            #expect(Self.openKind(path, seconds: 5) == .some(.kdfCostTooHigh))
            #expect(throws: CofferError.kdfCostTooHigh) { try Vault.info(at: path).checkUnlockCost() }
            do throws(CofferError) {
                try Vault.info(at: path).checkUnlockCost()
                Issue.record("checkUnlockCost accepted 32 slots")
            } catch {
                #expect(error.description.contains("32 slots of Argon2id 512 MiB × 2 passes (32768 MiB × passes in all)"), "\(error)")
            }
            // Only the kinds tried count: there is no key-file slot.
            try Vault.info(at: path).checkUnlockCost(kinds: [.keyFile])
        }
    }

    @Test func theCheapestSlotIsTriedFirst() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("mixed.coffer").path
            // Header order: a costly slot that opens with nothing (about 1 GiB × 9, within
            // the default budget), then the cheap slot of the password.
            try KDFTestVault.write(to: path, good: Self.cheap,
                                   claims: [Argon2idParameters(memoryKiB: Self.gib, iterations: 9, lanes: 1)])
            try Vault.info(at: path).checkUnlockCost()
            #expect(Self.openKind(path, seconds: 3) == .some(nil))
        }
    }

    @Test func aRaisedLimitOpensAVaultOverTheDefault() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("big.coffer").path
            // 2 GiB is over the default; the cheap slot opens first, so no 2 GiB KDF runs.
            try KDFTestVault.write(to: path, good: Self.cheap,
                                   claims: [Argon2idParameters(memoryKiB: 2 * Self.gib, iterations: 1, lanes: 1)])
            #expect(Self.openKind(path, seconds: 5) == .some(.kdfCostTooHigh))
            var options = VaultOptions()
            options.kdfLimit = KDFLimit(maxMemoryKiB: 2 * Self.gib, maxIterations: 10)
            #expect(options.kdfLimit.maxTotalWork == UInt64(2 * Self.gib) * 10)
            #expect(Self.openKind(path, options: options, seconds: 5) == .some(nil))
            try Vault.info(at: path).checkUnlockCost(limit: options.kdfLimit)
        }
    }

    @Test func createRefusesParametersAboveTheLimit() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("new.coffer").path
            let password = try SecureBytes(copying: "pw")
            var options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 64, iterations: 11, lanes: 1))
            #expect(throws: CofferError.kdfCostTooHigh) { try Vault.create(at: path, password: password, options: options) }
            #expect(!FileManager.default.fileExists(atPath: path))
            // Within SPEC §9 but not the default: refused before any KDF.
            options.kdf = Argon2idParameters(memoryKiB: 4 * Self.gib, iterations: 64, lanes: 1)
            let kind = withDeadline(seconds: 5) { [options] () -> CofferError.Kind? in
                do { _ = try Vault.create(at: path, password: password, options: options); return nil }
                catch let error as CofferError { return error.kind } catch { return .invalidArgument }
            }
            #expect(kind == .some(.kdfCostTooHigh))
            // Raised, it creates, and opens under the same limit.
            options.kdf = Argon2idParameters(memoryKiB: 64, iterations: 11, lanes: 1)
            options.kdfLimit = KDFLimit(maxMemoryKiB: 1024, maxIterations: 11)
            try Vault.create(at: path, password: password, options: options).lock()
            #expect(Self.openKind(path) == .some(.kdfCostTooHigh))
            #expect(Self.openKind(path, options: options) == .some(nil))
        }
    }

    @Test func addingSlotsStaysWithinTheTotal() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("slots.coffer").path
            var options = VaultOptions(kdf: Self.cheap)
            options.kdfLimit = KDFLimit(maxMemoryKiB: 64, maxIterations: 1, maxTotalWork: 128)
            let vault = try Vault.create(at: path, password: try SecureBytes(copying: "pw"), options: options)
            try vault.transaction { tx in try tx.addKeySlot(.password(try SecureBytes(copying: "second"))) }
            #expect(throws: CofferError.kdfCostTooHigh) {
                try vault.transaction { tx in try tx.addKeySlot(.password(try SecureBytes(copying: "third"))) }
            }
            #expect(vault.slots == [.password, .password])
            // Another kind has its own budget.
            try vault.transaction { tx in try tx.addKeySlot(.rawKey(try SecureBytes(copying: String(repeating: "k", count: 32)))) }
            #expect(throws: CofferError.kdfCostTooHigh) {
                _ = try Vault.create(at: dir.appendingPathComponent("two.coffer").path,
                                     credential: .password(try SecureBytes(copying: "a")),
                                     additional: [.password(try SecureBytes(copying: "b")), .password(try SecureBytes(copying: "c"))],
                                     options: options)
            }
        }
    }

    @Test func theDefaultSlotFitsTheDefaultLimit() throws {
        try KDFLimit.default.check(.default)
        #expect(KDFLimit.default.maxMemoryKiB == Self.gib)
        #expect(KDFLimit.default.maxIterations == 10)
        #expect(KDFLimit.default.maxTotalWork == UInt64(Self.gib) * 10)
        #expect(VaultOptions().kdfLimit == .default)
        // 13 default slots fit; 14 do not.
        try KDFLimit.default.check(Array(repeating: .default, count: 13))
        #expect(throws: CofferError.kdfCostTooHigh) { try KDFLimit.default.check(Array(repeating: .default, count: 14)) }
    }
}

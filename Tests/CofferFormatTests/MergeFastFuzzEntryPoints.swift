import Foundation
import CofferCrypto
@testable import CofferFormat
import CofferStore
@testable import CofferVault

/// The `merge` fuzz target's in-memory check (RELIABILITY.md, "Fuzzing"): the same merge
/// core as the file path (``SaveEngine/mergedInMemory(with:keys:)``: the replica read and
/// checked as `Vault.merge` reads it, ``ReplicaMerge/merge(_:_:sealer:)``, the encoding a
/// save writes), with no file written, so that one input costs milliseconds rather than the
/// file path's tens. Checked on every input:
///
/// - a refused copy leaves the fixed vault's state as it was;
/// - an accepted one gives a file that parses, unlocks with the fixed raw key, and whose
///   every record opens (overview and secret part) and every live item decodes (its secrets
///   and its losing values as the API shows them), none damaged;
/// - its key slots and items obey ``FuzzEntryPoints/checkSlots(_:fixed:copy:report:into:)``
///   and ``FuzzEntryPoints/checkItems(_:_:_:_:into:)`` (no slot the rules forbid, nothing lost);
/// - merging the same copy into the result again changes nothing.
///
/// The file path (``FuzzEntryPoints/merge(_:fixture:)``: lock, temporary file, rename,
/// re-open, the commuted merge) runs on one input in ``fileSampleRate`` as well, chosen by
/// the input's hash so that a crash file replays the same way.
extension FuzzEntryPoints {
    /// One input in this many also goes through the file path.
    static let fileSampleRate: UInt64 = 64

    /// What the fuzz binary runs per input: the in-memory check, and the file path on a sample.
    static func mergeTarget(_ bytes: [UInt8]) -> Report {
        var report = mergeInMemory(bytes, fixture: mergeFixture)
        if report.violations.isEmpty, fnv1a(bytes) % fileSampleRate == 0 {
            let slow = merge(bytes, fixture: mergeFixture)
            report.violations += slow.violations
        }
        return report
    }

    static func mergeInMemory(_ bytes: [UInt8], fixture: MergeFixture) -> Report {
        fixture.lock.lock()
        defer { fixture.lock.unlock() }
        var report = Report()
        do {
            try checkMergeInMemory(bytes, fixture, &report)
        } catch {
            report.violation("the harness failed: \(error)")
        }
        return report
    }

    private static func checkMergeInMemory(_ input: [UInt8], _ fixture: MergeFixture, _ report: inout Report) throws {
        guard let vault = fixture.memoryVault else {
            report.violation("the fixed vault does not open")
            return
        }
        let merged: (report: MergeReport, file: [UInt8]?)?
        do {
            merged = try vault.readingEngine { (engine, keys) throws(CofferError) -> (report: MergeReport, file: [UInt8]?)? in
                guard let keys else { return nil }
                return try engine.mergedInMemory(with: input, keys: keys)
            }
        } catch {
            report.errors.append(error)
            let now = vault.currentSnapshot
            if now.header != fixture.header || now.generation != fixture.snapshot.generation || now.allRecords.count != fixture.snapshot.allRecords.count {
                report.violation("a refused copy (\(error.kind)) changed the vault")
            }
            return
        }
        guard let merged else {
            report.violation("the fixed vault has no keys")
            return
        }
        report.reach(.opened)
        if merged.file == nil, merged.report != MergeReport() {
            report.violation("a merge that changed nothing reported changes: \(merged.report)")
        }

        // The result parses, unlocks with the fixed key and every record opens.
        let resultBytes = merged.file ?? fixture.bytes
        let result: VaultSnapshot
        let outcome: VaultFileV2
        do {
            outcome = try VaultFileV2.parse(resultBytes)
            // Unlocked with the fixed key where a slot of the fixed vault is left; else (the copy
            // removed them all, as another device's `passwd --no-rekey` does) authenticated with
            // the keys the merging process holds.
            if Set(outcome.header.slots.map(\.identity)).isDisjoint(with: fixture.header.slots.map(\.identity)) {
                _ = try outcome.authenticate(keys: fixture.keys)
            } else {
                let keys = try VaultFileV2.unlock(outcome.header, with: try fixture.credential()).keys
                guard ConstantTime.equals(keys.epochID, fixture.keys.epochID) else { throw NoFixedSlot() }
            }
            result = try VaultSnapshot(codec: outcome, keys: fixture.keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
            if let damaged = result.damaged.keys.first { throw CofferError.tampered(.entry(damaged.hex)) }
            let sealer = ItemSealer(vaultID: fixture.vaultID, keys: fixture.keys, entropy: .system)
            for record in result.allRecords {
                let overview = try record.openOverviewList(vaultID: fixture.vaultID, keys: fixture.keys)
                let secrets = try record.openSecretList(vaultID: fixture.vaultID, keys: fixture.keys, overview: overview)
                // Every live item reads back whole, as `Vault.items()` and `secrets(for:)` read it.
                if !record.isTombstone {
                    _ = try formatCall { () throws(FormatError) in try EntryCodec.decodeOverview(overview) }
                    _ = try formatCall { () throws(FormatError) in try secrets.withUnsafeBytes { (raw) throws(FormatError) in try EntryCodec.decodeSecrets(raw) } }
                    // Its secrets and losing values as `secrets(for:)` and `conflicts(for:)` show them.
                    let version = try ItemVersion(record: record, overview: overview)
                    _ = try sealer.secrets(of: version)
                    for found in try sealer.conflicts(of: version) { _ = try ItemConflict(found.conflict, name: found.name) }
                }
            }
        } catch {
            report.violation("the merged vault does not open whole: \(error)")
            return
        }
        let copy = try VaultFileV2.parse(input)
        checkSlots(outcome.header, fixed: fixture.header, copy: copy.header, report: merged.report, into: &report)
        let theirs = try VaultSnapshot(codec: copy, keys: fixture.keys, identity: FileIdentity(device: 0, inode: 0, size: 0, modifiedNanoseconds: 0))
        try checkItems(fixture.snapshot, theirs, result, fixture, into: &report)

        // Merging the same copy again changes nothing.
        do {
            let sealer = ItemSealer(vaultID: fixture.vaultID, keys: fixture.keys, entropy: .system)
            let again = try ReplicaMerge.merge(result, theirs, sealer: sealer)
            if again.changed || again.report != MergeReport() {
                report.violation("merging the same copy again changed something: \(again.report)")
            }
        } catch {
            report.violation("merging the same copy again failed: \(error)")
        }
    }

    private struct NoFixedSlot: Error {}

    /// FNV-1a: a stable hash of an input (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

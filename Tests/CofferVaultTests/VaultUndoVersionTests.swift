import Foundation
import Testing
@testable import CofferVault
import CofferTestSupport

/// Issue 28, finding 8: the undo versions are bounded by count and by age.
@Suite("Vault: undo versions, bounded by count and age")
struct VaultUndoVersionTests {
    @Test("At most `count` versions are kept, the newest; those replaced longer ago than the age limit go")
    func bounds() throws {
        try withTemporaryDirectory { dir in
            var options = testOptions
            options.replicaState = .directory(dir.appendingPathComponent("state").path)
            options.undoVersions = UndoVersionLimits(count: 3, maximumAgeDays: 30)
            let vault = try Vault.create(at: dir.appendingPathComponent("v.coffer").path, password: secure("pw"), options: options)
            var now: Int64 = 1_800_000_000_000
            let clock = { @Sendable (time: Int64) in WallClock { time } }
            for index in 0..<5 {
                vault.wallClock = clock(now)
                try vault.add(.genericPassword(service: "s\(index)", account: "a"))
                now += 1_000
            }
            let kept = try vault.undoVersions()
            #expect(kept.map(\.number) == [1, 2, 3])
            #expect(kept.map(\.generation) == [5, 4, 3], "the newest three")
            // 31 days later, one more save: the three older ones are past the limit.
            vault.wallClock = clock(now + 31 * 86_400_000)
            try vault.add(.genericPassword(service: "late", account: "a"))
            #expect(try vault.undoVersions().map(\.generation) == [6])
            #expect(try vault.undoVersionChanges(1).removed.map(\.service) == ["late"])
            vault.dropUndoVersions()
            #expect(try vault.undoVersions().isEmpty)
            #expect(throws: CofferError.itemNotFound) { try vault.restoreUndoVersion(1) }
        }
    }
}

import CofferCrypto
import CofferFormat
import CofferTestSupport
@testable import CofferVault
import Foundation
import Testing

/// Issue 27, "Merging across rotations" (SPEC.md §17.8): a copy under an earlier key, a
/// successor and a concurrent rotation merge; edits an earlier key made after the rotation
/// are held unless accepted; nothing of an older copy's header enters; the owner's current
/// credentials always open the result.
@Suite("Vault: merging across key rotations")
struct VaultEpochMergeTests {
    func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    func header(_ path: String) throws -> VaultHeaderV2 { try VaultFileV2.parse(try bytes(path)).header }
    func copy(_ from: String, _ to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }
    func names(_ vault: Vault) throws -> Set<String> { Set(try vault.items().map(\.attributes.displayName)) }
    func opens(_ path: String, _ password: String) -> Bool {
        (try? Vault.open(at: path, password: try secure(password), options: testOptions)) != nil
    }
    func add(_ vault: Vault, _ service: String) throws -> Item {
        try vault.add(.genericPassword(service: service, account: "me"), secrets: ItemSecrets(password: secure("secret-\(service)")))
    }

    /// A vault at `v.coffer` (password "old") with one item, and a laptop's copy of it.
    func setUp(_ dir: URL) throws -> (owner: Vault, path: String, laptop: Vault, laptopPath: String, shared: Item) {
        let path = dir.appendingPathComponent("v.coffer").path
        let owner = try Vault.create(at: path, password: secure("old"), options: testOptions)
        let shared = try add(owner, "shared")
        let laptopPath = dir.appendingPathComponent("laptop.coffer").path
        try copy(path, laptopPath)
        let laptop = try Vault.open(at: laptopPath, password: secure("old"), options: testOptions)
        return (owner, path, laptop, laptopPath, shared)
    }

    @Test("An offline device's edits made before a password change merge into the rotated vault; nothing of its header enters")
    func olderCopyHonestEditsArrive() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, laptop, laptopPath, shared) = try setUp(dir)
            try add(laptop, "offline-edit")
            try laptop.update(shared.id) { attributes, _ in attributes.label = "renamed offline" }
            try owner.changePassword(from: secure("old"), to: secure("new"))
            try add(owner, "after-passwd")
            let slotsBefore = try header(path).slots.map(\.identity), removedBefore = try header(path).removedSlots
            let epoch = try header(path).epochID

            let report = try owner.merge(contentsOf: laptopPath)
            #expect(report.earlierKey.epoch == .older)
            #expect(report.earlierKey.held.isEmpty)
            #expect(report.earlierKey.merged == 2)
            #expect(report.added == 1 && report.updated == 1)
            #expect(report.slotsAdded == 0 && report.slotsRemoved == 0)
            #expect(try names(owner) == ["shared", "offline-edit", "after-passwd"])
            #expect(try owner.item(shared.id).attributes.label == "renamed offline")
            // Nothing of the copy's header: same slots, removals and epoch; the old password
            // does not open the result, the new one does, and the file is whole.
            let after = try header(path)
            #expect(after.slots.map(\.identity) == slotsBefore && after.removedSlots == removedBefore && after.epochID == epoch)
            #expect(!opens(path, "old") && opens(path, "new"))
            try Vault.open(at: path, password: secure("new"), options: testOptions).verifyAll()
            // Merging it again changes nothing and writes nothing.
            let written = try bytes(path)
            #expect(try owner.merge(contentsOf: laptopPath).isEmpty)
            #expect(try bytes(path) == written)
        }
    }

    @Test("Edits an old copy made after the password change are held (count and names), and merge with acceptEarlierKey")
    func heldEditsReportedAndAccepted() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, laptop, laptopPath, shared) = try setUp(dir)
            try add(laptop, "before-rotation")
            try owner.changePassword(from: secure("old"), to: secure("new"))
            Thread.sleep(forTimeInterval: 0.01)
            try add(laptop, "late-add")
            try laptop.update(shared.id) { _, secrets in secrets.notes = try SecureBytes(copying: "late note") }

            let held = try owner.merge(contentsOf: laptopPath)
            #expect(Set(held.earlierKey.held.map(\.name)) == ["late-add", "shared"])
            #expect(held.earlierKey.merged == 1 && held.earlierKey.accepted == 0)
            #expect(try names(owner) == ["shared", "before-rotation"])
            #expect(try owner.secrets(for: shared.id).notes == nil)
            // The report never carries a value.
            let json = String(decoding: try JSONEncoder().encode(held), as: UTF8.self)
            #expect(!json.contains("late note") && !json.contains("secret-late-add"))

            let accepted = try owner.merge(contentsOf: laptopPath, options: MergeOptions(acceptEarlierKey: true))
            #expect(accepted.earlierKey.held.isEmpty && accepted.earlierKey.accepted == 2)
            #expect(try names(owner) == ["shared", "before-rotation", "late-add"])
            #expect(try owner.secrets(for: shared.id).notes.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } == "late note")
            #expect(!opens(path, "old") && opens(path, "new"))
        }
    }

    @Test("After a password change, the old copy and the old password read nothing saved afterwards, by merge in either direction")
    func oldCopyCannotReadLaterItems() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, laptop, laptopPath, _) = try setUp(dir)
            try copy(laptopPath, dir.appendingPathComponent("pristine.coffer").path)
            try owner.changePassword(from: secure("old"), to: secure("new"))
            try add(owner, "after-passwd-secret")
            // The old copy's holder merges the live vault: its slot is gone there.
            let error = #expect(throws: CofferError.self) { try laptop.merge(contentsOf: path) }
            #expect(error?.kind == .otherKeyEpoch)
            #expect(try !names(laptop).contains("after-passwd-secret"))
            // It changes its copy's password (a rotation of its own) and adds a way in: the
            // owner's merge refuses that copy whole (no slot of the owner's credential in it).
            try laptop.changePassword(from: secure("old"), to: secure("mine"))
            try laptop.addKeySlot(.password(try secure("mine2")))
            let owner2 = try Vault.open(at: path, password: secure("new"), options: testOptions)
            let refused = #expect(throws: CofferError.self) { try owner2.merge(contentsOf: laptopPath) }
            #expect(refused?.kind == .otherKeyEpoch)
            #expect(!opens(path, "mine") && !opens(path, "mine2") && !opens(path, "old") && opens(path, "new"))
            // Nor does an old copy without a rotation of its own add its slot: nothing of an
            // older copy's header enters, and what it added after the change is held.
            try copy(dir.appendingPathComponent("pristine.coffer").path, laptopPath)
            let sneaky = try Vault.open(at: laptopPath, password: secure("old"), options: testOptions)
            try sneaky.addKeySlot(.password(try secure("sneaky")))
            try add(sneaky, "sneaky-item")
            let report = try owner2.merge(contentsOf: laptopPath)
            #expect(report.earlierKey.epoch == .older && report.slotsAdded == 0)
            #expect(report.earlierKey.held.map(\.name) == ["sneaky-item"])
            #expect(!opens(path, "sneaky") && opens(path, "new"))
            #expect(try !names(owner2).contains("sneaky-item"))
        }
    }

    @Test("A copy rekeyed from this vault's key is a successor: the vault moves to its key, both sides' edits kept, either direction")
    func successorMovesTheVault() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, laptop, laptopPath, _) = try setUp(dir)
            try add(laptop, "laptop-before")
            try owner.rotateKey()
            try add(owner, "owner-after")
            // The laptop (old key, same password slot) merges the rotated vault: it moves.
            let report = try laptop.merge(contentsOf: path)
            #expect(report.earlierKey.epoch == .successor)
            #expect(try header(laptopPath).epochID == header(path).epochID)
            #expect(try names(laptop) == ["shared", "laptop-before", "owner-after"])
            // Its handle saves under the new key from then on.
            try add(laptop, "laptop-after")
            try Vault.open(at: laptopPath, password: secure("old"), options: testOptions).verifyAll()
            // And the owner takes it back in the same epoch.
            let back = try owner.merge(contentsOf: laptopPath)
            #expect(back.earlierKey.epoch == .same)
            #expect(try names(owner) == ["shared", "laptop-before", "owner-after", "laptop-after"])
            #expect(try header(path).keyHistory?.epochs.count == 1)
        }
    }

    /// Before: a handle kept the key of the slot it was opened with, which its own password
    /// change had replaced, so it could not open a copy rekeyed after (case 2) until the
    /// vault was opened again with the new password.
    @Test("A handle that changed the password merges a copy rekeyed after, without reopening (was: otherKeyEpoch until reopened)")
    func successorAfterOwnPasswordChange() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, _, laptopPath, _) = try setUp(dir)
            try owner.changePassword(from: secure("old"), to: secure("new"))
            // Another device takes the new file, rekeys it and adds an item.
            try copy(path, laptopPath)
            let laptop = try Vault.open(at: laptopPath, password: secure("new"), options: testOptions)
            try laptop.rotateKey()
            try add(laptop, "laptop-after-rekey")
            let report = try owner.merge(contentsOf: laptopPath)
            #expect(report.earlierKey.epoch == .successor)
            #expect(try names(owner) == ["shared", "laptop-after-rekey"])
            #expect(try header(path).epochID == header(laptopPath).epochID)
            #expect(opens(path, "new") && !opens(path, "old"))
        }
    }

    @Test("Concurrent rotations on two devices converge: merged both ways they end in one epoch with the same items")
    func concurrentRotationsConverge() throws {
        try withTemporaryDirectory { dir in
            let (a, aPath, b, bPath, _) = try setUp(dir)
            // One ticking clock for both: on the system clock B's edit and A's rotation could
            // fall in one millisecond, take one time, and be ordered by replica id (SPEC.md
            // §17.1), so B's edit, made before A's rotation, was held about once in 70 runs.
            let ticker = Ticker(Date().millisecondsSince1970 + 1000)
            a.wallClock = WallClock { ticker.next() }
            b.wallClock = WallClock { ticker.next() }
            try add(a, "from-a")
            try add(b, "from-b")
            try a.rotateKey()
            try b.rotateKey()
            let ra = try a.merge(contentsOf: bPath)
            #expect(ra.earlierKey.epoch == .concurrent && ra.earlierKey.held.isEmpty)
            let rb = try b.merge(contentsOf: aPath)
            #expect(rb.earlierKey.epoch == .successor)
            try a.merge(contentsOf: bPath)
            try b.merge(contentsOf: aPath)
            #expect(try header(aPath).epochID == header(bPath).epochID)
            #expect(try names(a) == ["shared", "from-a", "from-b"])
            #expect(try names(b) == names(a))
            #expect(opens(aPath, "old") && opens(bPath, "old"))
            // Both keep the other epochs: an old copy of either still merges.
            #expect(try header(aPath).keyHistory?.epochs.count == 2)
        }
    }

    @Test("Mutual successors pick the same epoch whichever merges first")
    func mutualSuccessorsConverge() throws {
        for aFirst in [true, false] {
            try withTemporaryDirectory { dir in
                let (a, aPath, b, bPath, _) = try setUp(dir)
                try a.rotateKey()
                try b.rotateKey()
                // Each takes the other's key into its history (a concurrent rotation, both
                // ways at once): then each is the other's successor.
                let aSnap = dir.appendingPathComponent("a-snap.coffer").path, bSnap = dir.appendingPathComponent("b-snap.coffer").path
                try copy(aPath, aSnap)
                try copy(bPath, bSnap)
                #expect(try a.merge(contentsOf: bSnap).earlierKey.epoch == .concurrent)
                #expect(try b.merge(contentsOf: aSnap).earlierKey.epoch == .concurrent)
                let aEpoch = try header(aPath), bEpoch = try header(bPath)
                let expected = aEpoch.epochStart != bEpoch.epochStart
                    ? (aEpoch.epochStart > bEpoch.epochStart ? aEpoch.epochID : bEpoch.epochID)
                    : (aEpoch.epochID.lexicographicallyPrecedes(bEpoch.epochID) ? bEpoch.epochID : aEpoch.epochID)
                if aFirst { try a.merge(contentsOf: bPath); try b.merge(contentsOf: aPath) } else { try b.merge(contentsOf: aPath); try a.merge(contentsOf: bPath) }
                #expect(try header(aPath).epochID == expected)
                #expect(try header(bPath).epochID == expected)
            }
        }
    }

    @Test("A file made from the vault's public header alone (the device's slot wrapped to a key no holder of the vault drew) is refused: case 4 needs a shared earlier epoch")
    func forgedConcurrentEpochRefused() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, _, _, _) = try setUp(dir)
            try owner.rotateKey()
            let file = try VaultFileV2.parse(try bytes(path))
            // The items are the vault's own, sealed again (a forger would bring their own): only the header matters here.
            let keys = try VaultFileV2.unlock(file.header, with: .password(try secure("old"))).keys
            func forge(history: Bool) throws -> String {
                let forged = try EpochKeys(epochKey: try SecureBytes.random(count: 32))
                var header = file.header
                header.slots = try header.slots.map { try $0.restanza(vaultID: header.vaultID, epoch: forged, entropy: .system) }
                header.epochID = forged.epochID
                // A key history of an epoch the vault never had, sealed under the forged key.
                let other = try EpochKeys(epochKey: try SecureBytes.random(count: 32))
                header.setKeyHistory(history ? try KeyHistory.seal([(KeyHistory.Epoch(epochID: other.epochID, end: header.epochStart), other)],
                                                                   vaultID: header.vaultID, current: forged, entropy: .system) : nil)
                let records = try file.records.map { try $0.resealed(vaultID: header.vaultID, from: keys, to: forged, nonce: try EntropySource.system.bytes(24)) }
                let out = dir.appendingPathComponent("forged-\(history).coffer").path
                try Data(try VaultFileV2.encode(header: header, generation: 99, records: records, keys: forged).bytes).write(to: URL(fileURLWithPath: out))
                return out
            }
            let before = try bytes(path)
            for forged in [try forge(history: false), try forge(history: true)] {
                let error = #expect(throws: CofferError.self) { try owner.merge(contentsOf: forged) }
                #expect(error?.kind == .otherKeyEpoch)
                let fromBytes = #expect(throws: CofferError.self) { try owner.merge(bytes: try bytes(forged)) }
                #expect(fromBytes?.kind == .otherKeyEpoch)
            }
            #expect(try bytes(path) == before)
        }
    }

    @Test("A rotation of a file that lacks the device's latest edit (a restore put an older version back) takes a new replica id: the app that made the edit keeps it")
    func rotationAfterRestoreKeepsAnotherAppsEdit() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("v.coffer").path
            let options = VaultOptions(kdf: testKDF, keepsBackup: true, lockTimeout: .seconds(5),
                                       replicaState: .directory(dir.appendingPathComponent("state").path))
            let item = try add(try Vault.create(at: path, password: secure("pw"), options: options), "item")
            let app0 = try Vault.open(at: path, password: secure("pw"), options: options)
            let app1 = try Vault.open(at: path, password: secure("pw"), options: options)
            try app1.update(item.id) { attributes, _ in attributes.tags = ["edited by app 1"] }
            // A process without device state puts the backup (from before the edit) back.
            try Vault.open(at: path, password: secure("pw"), options: testOptions).restoreBackup()
            try app0.rotateKey()
            try app1.refresh()
            let reopened = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(try reopened.item(item.id).attributes.tags == ["edited by app 1"])
        }
    }

    @Test("A vault handle whose file another process rekeyed saves and refreshes under the new key")
    func handleFollowsRotation() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, _, _, _) = try setUp(dir)
            let other = try Vault.open(at: path, password: secure("old"), options: testOptions)
            try other.rotateKey()
            try add(owner, "after-other-rotated")
            #expect(try names(other) == ["shared"])
            #expect(try other.refresh())
            #expect(try names(other) == ["shared", "after-other-rotated"])
            try other.rotateKey()
            #expect(try owner.refresh())
            try add(owner, "twice")
            try Vault.open(at: path, password: secure("old"), options: testOptions).verifyAll()
            #expect(try names(Vault.open(at: path, password: secure("old"), options: testOptions)) == ["shared", "after-other-rotated", "twice"])
        }
    }

    @Test("The key history keeps the newest 64 epochs: a copy of an epoch that dropped out is refused, a newer one merges")
    func keyHistoryBounded() throws {
        try withTemporaryDirectory { dir in
            let (owner, path, _, laptopPath, _) = try setUp(dir)
            var copies: [String] = [laptopPath]
            // The first rotation removes the laptop's password: its copy can then only be
            // merged through the key history.
            try owner.changePassword(from: secure("old"), to: secure("new"))
            for round in 2...66 {
                try owner.rotateKey()
                if round == 10 {
                    let c = dir.appendingPathComponent("round10.coffer").path
                    try copy(path, c)
                    copies.append(c)
                }
            }
            #expect(try header(path).keyHistory?.epochs.count == 64)
            let dropped = #expect(throws: CofferError.self) { try owner.merge(contentsOf: copies[0]) }
            #expect(dropped?.kind == .otherKeyEpoch)
            #expect(try owner.merge(contentsOf: copies[1]).earlierKey.epoch == .older)
        }
    }
}

import Foundation
import Testing
import CofferCrypto
import CofferFormat
import CofferStore
@testable import CofferVault
import CofferTestSupport

/// Copies refused cheaply (issue 32): a copy is checked from its start before the rest is
/// read, and a copy refused for what it holds is remembered on the device, so that a large,
/// foreign or damaged conflict copy is neither read whole nor read again on every sync.
@Suite("Vault: copies refused from their start, and remembered")
struct VaultRefusedCopyTests {
    func file(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// A sparse file of `size` bytes that starts with `start`.
    func sparse(_ path: String, start: [UInt8], size: Int) throws {
        try Data(start).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size))
        try handle.close()
    }

    /// A vault with an item, and a copy of it (`copy.coffer`) with an item of its own whose
    /// notes make the copy longer than the start a merge reads first.
    func replicas(_ dir: URL, options: VaultOptions = testOptions) throws -> (vault: Vault, path: String, copy: String) {
        let path = dir.appendingPathComponent("v.coffer").path
        let vault = try Vault.create(at: path, password: secure("pw"), options: options)
        try vault.add(.genericPassword(service: "mail", account: "me"), secrets: ItemSecrets(password: secure("m0")))
        let copy = dir.appendingPathComponent("copy.coffer").path
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let other = try Vault.open(at: copy, password: secure("pw"), options: testOptions)
        let long = String(repeating: "a long note. ", count: (VaultFileV2.summaryPrefixLength / 13) + 10_000)
        try other.add(.secureNote(title: "long"), secrets: ItemSecrets(notes: secure(long)))
        #expect(try file(copy).count > VaultFileV2.summaryPrefixLength)
        return (vault, path, copy)
    }

    @Test("Sparse 1,000 MB copies are refused from their start in well under a second, with the kind a whole read gives, the vault unchanged")
    func refusedFromTheStart() throws {
        try withTemporaryDirectory { dir in
            let (vault, path, copy) = try replicas(dir)
            let before = try file(path)
            let own = try file(path)
            let other = dir.appendingPathComponent("other.coffer").path
            _ = try Vault.create(at: other, password: secure("pw"), options: testOptions)
            let size = 1_000_000_000
            let cases: [(String, [UInt8], CofferError.Kind)] = [
                // This vault's 14-byte preamble, then zeros: the header is not there.
                ("preamble", Array(own.prefix(14)), .tampered),
                // This vault's whole file, then zeros: more bytes than its records.
                ("start", own, .malformed),
                // Another vault's file.
                ("other", try file(other), .differentVault),
            ]
            for (name, start, kind) in cases {
                let sparsePath = dir.appendingPathComponent("v.sync-conflict-20260301-101500-\(name).coffer").path
                try sparse(sparsePath, start: start, size: size)
                let began = Date()
                let error = #expect(throws: CofferError.self) { try vault.merge(contentsOf: sparsePath) }
                let seconds = Date().timeIntervalSince(began)
                #expect(error?.kind == kind, "\(name): \(String(describing: error))")
                #expect(seconds < 1, "\(name): \(seconds) s")
                Reliability.figure("refused from the start", "\(name): \(kind) after \(String(format: "%.3f", seconds)) s")
                try FileManager.default.removeItem(atPath: sparsePath)
            }
            #expect(try file(path) == before)

            // A copy longer than the start: cut, grown or damaged, each refused with the kind
            // its whole bytes give; whole, it merges.
            let good = try file(copy)
            var damaged = good
            damaged[damaged.count - 100] ^= 1
            let variants: [(String, [UInt8])] = [("cut", Array(good.dropLast(40))), ("grown", good + [0]), ("damaged", damaged)]
            for (name, bytes) in variants {
                let variant = dir.appendingPathComponent("\(name).coffer").path
                try Data(bytes).write(to: URL(fileURLWithPath: variant))
                let fromFile = #expect(throws: CofferError.self) { try vault.merge(contentsOf: variant) }
                let fromBytes = #expect(throws: CofferError.self) { try vault.merge(bytes: bytes) }
                #expect(fromFile?.kind == fromBytes?.kind && fromFile != nil, "\(name): \(String(describing: fromFile)) / \(String(describing: fromBytes))")
            }
            #expect(try file(path) == before)
            #expect(try vault.merge(contentsOf: copy).added == 1)
        }
    }

    /// A device with its own state folder, as `coffer sync` runs.
    func remembering(_ dir: URL) -> VaultOptions {
        var options = testOptions
        options.replicaState = .directory(dir.appendingPathComponent("state").path)
        return options
    }

    /// Sets `path`'s modification time to `modified` (nanoseconds since 1970).
    func setModified(_ path: String, _ modified: Int64) {
        let time = timespec(tv_sec: Int(modified / 1_000_000_000), tv_nsec: Int(modified % 1_000_000_000))
        var times = [time, time]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test("A refused copy is remembered: unchanged, it is refused again without being read; changed or asked for, it is read again")
    func rememberedRefusal() throws {
        try withTemporaryDirectory { dir in
            let options = remembering(dir)
            let (_, path, copyPath) = try replicas(dir, options: options)
            let vault = try Vault.open(at: path, password: secure("pw"), options: options)
            let good = try file(copyPath)
            var bad = good
            bad[20] ^= 0xFF   // inside the header: its checksum fails
            let copy = dir.appendingPathComponent("v.sync-conflict-20260301-101500-ABCDEF2.coffer").path
            try Data(bad).write(to: URL(fileURLWithPath: copy))

            #expect(throws: CofferError.tampered(.header)) { try vault.mergeConflictCopy(at: copy) }
            let refused = try #require(Vault.refusal(ofCopyAt: copy, forVaultAt: path, state: options.replicaState))
            #expect(refused.kind == .tampered && refused.isUnchanged)
            #expect(try Vault.refusedCopies(of: path, state: options.replicaState).map(\.path) == [refused.path])

            // The good copy's bytes written in place: same file, same size, same time. Were it
            // read, it would merge; it is refused from memory.
            let identity = try #require(try VaultFileStore(path: copy).currentIdentity())
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
            try handle.write(contentsOf: Data(good))
            try handle.close()
            setModified(copy, identity.modifiedNanoseconds)
            #expect(try VaultFileStore(path: copy).currentIdentity() == identity)
            let generation = vault.generation
            #expect(throws: CofferError.refusedBefore) { try vault.mergeConflictCopy(at: copy) }
            #expect(try Vault.info(at: path).generation == generation)

            // Asked to, it reads the copy again: now it merges, and the refusal is forgotten.
            #expect(try vault.mergeConflictCopy(at: copy, rereadingRefused: true).added == 1)
            #expect(Vault.refusal(ofCopyAt: copy, forVaultAt: path, state: options.replicaState) == nil)

            // Refused again, then changed (touched): read again, refused for what it holds now.
            try Data(bad).write(to: URL(fileURLWithPath: copy))
            #expect(throws: CofferError.tampered(.header)) { try vault.mergeConflictCopy(at: copy) }
            setModified(copy, identity.modifiedNanoseconds + 1_000_000_000)
            #expect(Vault.refusal(ofCopyAt: copy, forVaultAt: path, state: options.replicaState) == nil)
            #expect(throws: CofferError.tampered(.header)) { try vault.mergeConflictCopy(at: copy) }

            // Forgotten on request; not "unchanged" once the file is gone.
            try Vault.forgetRefusedCopies(of: path, state: options.replicaState)
            #expect(try Vault.refusedCopies(of: path, state: options.replicaState).isEmpty)
            #expect(throws: CofferError.tampered(.header)) { try vault.mergeConflictCopy(at: copy) }
            try FileManager.default.removeItem(atPath: copy)
            #expect(try Vault.refusedCopies(state: options.replicaState).allSatisfy { !$0.isUnchanged })
        }
    }

    @Test("Only refusals for what the copy holds are remembered, and nothing without a state folder")
    func whatIsRemembered() throws {
        try withTemporaryDirectory { dir in
            let options = remembering(dir)
            let (_, path, _) = try replicas(dir, options: options)
            let vault = try Vault.open(at: path, password: secure("pw"), options: options)
            // Another vault: remembered.
            let other = dir.appendingPathComponent("other.coffer").path
            _ = try Vault.create(at: other, password: secure("pw"), options: testOptions)
            #expect(throws: CofferError.differentVault) { try vault.mergeConflictCopy(at: other) }
            #expect(throws: CofferError.refusedBefore) { try vault.mergeConflictCopy(at: other) }
            // A missing file: nothing to remember.
            let missing = dir.appendingPathComponent("missing.coffer").path
            #expect(throws: CofferError.fileNotFound) { try vault.mergeConflictCopy(at: missing) }
            #expect(Vault.refusal(ofCopyAt: missing, forVaultAt: path, state: options.replicaState) == nil)
            // A copy under another key epoch without this vault's slot: about this vault's key
            // too, not remembered.
            let rotated = dir.appendingPathComponent("rotated.coffer").path
            try FileManager.default.copyItem(atPath: path, toPath: rotated)
            try Vault.open(at: rotated, password: secure("pw"), options: testOptions).changePassword(from: secure("pw"), to: secure("other"))
            #expect(throws: CofferError.otherKeyEpoch) { try vault.mergeConflictCopy(at: rotated) }
            #expect(Vault.refusal(ofCopyAt: rotated, forVaultAt: path, state: options.replicaState) == nil)
            // Without a state folder nothing is remembered.
            let forgetful = try Vault.open(at: path, password: secure("pw"), options: testOptions)
            #expect(throws: CofferError.differentVault) { try forgetful.mergeConflictCopy(at: other) }
            #expect(try Vault.refusedCopies(state: .none).isEmpty)
        }
    }
}

import Foundation
import Testing
@testable import CofferFormat
@testable import CofferVault
import CofferTestSupport

/// The order of password-history entries of one date (SPEC.md §17.5): by the password's
/// bytes, in a merged record and in what an application sees.
@Suite("Vault: history entries of one date")
struct VaultHistoryOrderTests {
    static let key: [UInt8] = [UInt8](repeating: 7, count: 32)
    static let options = VaultOptions(kdf: Argon2idParameters(memoryKiB: 8, iterations: 1, lanes: 1), keepsBackup: false,
                                      lockTimeout: .seconds(5), replicaState: .none)

    /// The passwords of item `id`'s history in the record of the file at `path`, in record order.
    static func recordHistory(_ path: String, _ id: ItemID) throws -> [[UInt8]] {
        let file = try VaultFileV2.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let keys = try VaultFileV2.unlock(file.header, with: .rawKey(try SecureBytes(copying: key))).keys
        let record = try #require(file.records.first { $0.id == id })
        let sealer = ItemSealer(vaultID: file.header.vaultID, keys: keys, entropy: .system)
        let state = try sealer.open(try ItemVersion(record: record, overview: try record.openOverviewList(vaultID: file.header.vaultID, keys: keys)))
        return state.parts.history.compactMap { entry in HistoryField(entry).map { Array((try? $0.password.copy())?.withUnsafeBytes { Array($0) } ?? []) } }
    }

    @Test("Two entries of one date, passwords of 130 and 260 bytes: the merged record and the API list them by the passwords' bytes")
    func lengthsAcrossFramings() throws {
        try withTemporaryDirectory { dir in
            let path = { (name: String) in dir.appendingPathComponent(name).path }
            let t0: Int64 = 1_749_000_000_000, t1 = t0 + 86_400_000, t2 = t1 + 60_000
            // Every clock fixed, so that the stamps' times are the dates the entries get.
            let base = try Vault.create(at: path("a"), credentials: [.rawKey(try SecureBytes(copying: Self.key))], options: Self.options,
                                        entropy: .system, clock: WallClock { t0 })
            base.wallClock = WallClock { t0 }
            let id = try base.add(ItemAttributes(kind: .genericPassword, service: "vpn", account: "me"),
                                  secrets: ItemSecrets(password: try SecureBytes(copying: "v0"))).id
            try FileManager.default.copyItem(atPath: path("a"), toPath: path("b"))
            // In memory an entry carries format 1's framing: a little-endian u32 length, by
            // which the 260-byte password's entry (length 280: 18 01 …) sorts before the
            // 130-byte one's (150: 96 00 …); by the passwords, "a…" comes first.
            let short = [UInt8](repeating: UInt8(ascii: "a"), count: 130), long = [UInt8](repeating: UInt8(ascii: "b"), count: 260)
            for (name, password) in [("a", short), ("b", long)] {
                let vault = try Vault.open(at: path(name), credential: .rawKey(try SecureBytes(copying: Self.key)), options: Self.options)
                vault.wallClock = WallClock { t1 }
                try vault.update(id) { _, secrets in secrets.password = try SecureBytes(copying: password) }
                vault.wallClock = WallClock { t2 }
                try vault.update(id) { _, secrets in secrets.password = try SecureBytes(copying: "final \(name)") }
            }
            let merged = try Vault.open(at: path("a"), credential: .rawKey(try SecureBytes(copying: Self.key)), options: Self.options)
            merged.wallClock = WallClock { t2 }
            try merged.merge(contentsOf: path("b"))
            let record = try Self.recordHistory(path("a"), id)
            #expect(record.prefix(2).map { $0.count } == [130, 260], "record order \(record.map(\.count))")
            let history = try merged.secrets(for: id).passwordHistory
            let shown = history.map { $0.password.withUnsafeBytes { Array($0) } }
            // What the API shows at t2: the two entries by their bytes, with the losing "final …" after them ("a…" < "b…" < "f…").
            #expect(shown.prefix(3).map { $0.count } == [130, 260, 7], "shown \(shown.map(\.count)) \(history.map { $0.replaced.timeIntervalSince1970 })")
        }
    }
}

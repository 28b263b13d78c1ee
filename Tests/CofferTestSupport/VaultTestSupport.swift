import Foundation
import CofferFormat
@testable import CofferVault

/// Small KDF parameters so tests run fast; real vaults default to 256 MiB.
package let testKDF = Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1)
package let testOptions = VaultOptions(kdf: testKDF, lockTimeout: .seconds(5), replicaState: .none)

package func secure(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

extension SecureBytes {
    package var testString: String? { unsafeStringCopy() }
}

extension Vault {
    /// The snapshot, for tests that look at records and tombstones.
    package var snapshotForTests: VaultSnapshot { withLock { currentSnapshot } }
}

/// Flips one bit of the vault file at `path`, in the record with the greatest id: the first
/// byte of its overview ciphertext (`inOverview`), else the last byte of its secret part's
/// tag. A record damaged on disk, for tests of how little such damage stops.
package func damageRecord(inFileAt path: String, inOverview: Bool) throws {
    let url = URL(fileURLWithPath: path)
    var bytes = [UInt8](try Data(contentsOf: url))
    guard let record = try VaultFileV2.parse(bytes).records.max(by: { $0.id < $1.id }) else { return }
    bytes[inOverview ? record.body.startIndex : record.body.endIndex - 1] ^= 0x01
    try Data(bytes).write(to: url)
}

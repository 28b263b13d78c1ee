import Foundation
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

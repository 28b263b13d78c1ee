import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer

/// Small KDF parameters so tests run fast; real vaults default to 256 MiB.
let testKDF = Argon2idParameters(memoryKiB: 64, iterations: 1, lanes: 1)
let testOptions = VaultOptions(kdf: testKDF, lockTimeout: .seconds(5), replicaState: .none)

func secure(_ text: String) throws -> SecureBytes { try SecureBytes(copying: text) }

extension SecureBytes {
    var testString: String? { unsafeStringCopy() }
}

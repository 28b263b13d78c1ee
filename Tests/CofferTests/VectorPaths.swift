import Foundation
import Coffer
@testable import CofferCrypto
@testable import CofferFormat
@testable import CofferStore
@testable import CofferVault
@testable import CofferOTP
@testable import CofferGenerator
@testable import CofferTransfer
import CofferTestSupport

enum VectorPaths {
    /// `Tests/Vectors`, found from this source file.
    static var directory: URL {
        repositoryRoot.appendingPathComponent("Tests/Vectors", isDirectory: true)
    }

    /// The repository root (for SPEC.md).
    static var repositoryRoot: URL { TestPaths.repositoryRoot }
}

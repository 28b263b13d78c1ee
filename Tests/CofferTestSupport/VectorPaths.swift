import Foundation

package enum VectorPaths {
    /// `Tests/Vectors`, found from this source file.
    package static var directory: URL {
        repositoryRoot.appendingPathComponent("Tests/Vectors", isDirectory: true)
    }

    /// The repository root (for SPEC.md).
    package static var repositoryRoot: URL { TestPaths.repositoryRoot }
}

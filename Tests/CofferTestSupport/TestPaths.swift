import Foundation

/// Where the tests find the repository and the built products.
package enum TestPaths {
    /// The repository root, found from this file (`Tests/CofferTestSupport/TestPaths.swift`).
    package static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()   // CofferTestSupport
            .deletingLastPathComponent()   // Tests
            .deletingLastPathComponent()
    }
}

/// The folder holding the built products (the test runner's own folder).
package func buildProductsDirectory() -> URL {
    #if os(Linux)
    let runner = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    #else
    let runner = Bundle.main.bundleURL
    #endif
    var dir = runner.deletingLastPathComponent()
    // On macOS the runner may sit inside an .xctest bundle.
    while dir.path != "/" && !FileManager.default.fileExists(atPath: dir.appendingPathComponent("CofferTestWriter").path) {
        dir = dir.deletingLastPathComponent()
    }
    return dir
}
